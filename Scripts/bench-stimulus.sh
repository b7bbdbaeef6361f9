#!/usr/bin/env bash
# Times `gazerec stimulus timeline` and `stimulus aoi` over 20 constructed one-hour sessions
# (30 Hz gaze, Scripts/make_session.py), one process each, on one core (taskset -c 0); then
# `stimulus overlay` of a 1280×720 30 fps H.264 stimulus (FFmpeg's testsrc2, OVERLAY_SECONDS long,
# default 60) with one session and with all of them, to .mp4 (H.264) and .mkv (FFV1), and prints
# each run's wall and CPU seconds over the video's seconds (below 1: faster than real time), and the
# same for the ffmpeg program re-encoding the video with the same encoder settings (nothing drawn).
# usage: Scripts/bench-stimulus.sh [SESSIONS] [SECONDS]   (GAZEREC_BIN: the binary; default the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-20}
seconds=${2:-3600}
bin=${GAZEREC_BIN:-}
if [[ -z "$bin" ]]; then
    swift build -c release --product gazerec >&2
    bin=.build/release/gazerec
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GAZEREC_DATABASE="$work/db.sqlite"
python3 Scripts/make_session.py "$seconds" 30 "$work/one.json"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$work/one.json")
for n in $(seq 1 "$sessions"); do
    new=$(printf '%08X-0000-4000-8000-%012X' "$n" "$n")
    sed "s/$id/$new/" "$work/one.json" > "$work/s$n.json"
done
"$bin" import "$work"/s*.json > /dev/null
ffmpeg -v error -f lavfi -i testsrc=s=1280x720 -frames:v 1 "$work/stimulus.png"
printf '[{"name": "left", "rect": [0, 0, 640, 720]}, {"name": "face", "ellipse": [900, 300, 150, 200]},\n' > "$work/aois.json"
printf ' {"name": "ball", "keyframes": [{"t": 0, "rect": [0, 300, 100, 100]}, {"t": %s, "rect": [1180, 300, 100, 100]}]}]\n' "$seconds" >> "$work/aois.json"
run() {
    local start end
    start=$(date +%s.%N)
    taskset -c 0 "$bin" stimulus "$@" --all --stimulus "$work/stimulus.png" --rect 0,0,1600,900 > "$work/out.csv"
    end=$(date +%s.%N)
    echo "$1: $(python3 -c "print(f'{$end - $start:.2f}')") s for $sessions sessions of $seconds s ($(($(wc -l < "$work/out.csv") - 1)) rows)"
}
run timeline
run timeline --group
run aoi --aois "$work/aois.json"

overlay_seconds=${OVERLAY_SECONDS:-60}
ffmpeg -v error -f lavfi -i "testsrc2=s=1280x720:r=30:d=$overlay_seconds" -c:v libx264 -preset veryfast -pix_fmt yuv420p \
    "$work/stimulus.mp4"
overlay() {
    local what=$1 output=$2
    shift 2
    /usr/bin/time -f "%e %U %S" -o "$work/time" taskset -c 0 "$bin" stimulus overlay "$@" --stimulus "$work/stimulus.mp4" \
        --rect 0,0,1600,900 --output "$work/$output" 2> /dev/null
    read -r wall user system < "$work/time"
    python3 -c "
wall, cpu, video = $wall, $user + $system, $overlay_seconds
print(f'overlay, $what, 1280x720 30 fps, {video} s -> $output: {wall:.1f} s wall ({wall / video:.2f} x real time), '
      f'{cpu:.1f} s CPU ({cpu / video:.2f} x)')"
}
first=$(printf '%08X-0000-4000-8000-%012X' 1 1)
overlay "1 session" overlay.mp4 "$first"
overlay "1 session" overlay.mkv "$first"
overlay "$sessions sessions" overlay.mp4 --all
overlay "$sessions sessions" overlay.mkv --all
# The reference: the ffmpeg program decoding the same video and encoding it with the same encoder
# settings, one thread, nothing drawn.
reference() {
    local what=$1 output=$2
    shift 2
    /usr/bin/time -f "%e %U %S" -o "$work/time" taskset -c 0 ffmpeg -v error -threads 1 -i "$work/stimulus.mp4" -threads 1 "$@" \
        -y "$work/$output"
    read -r wall user system < "$work/time"
    python3 -c "
wall, cpu, video = $wall, $user + $system, $overlay_seconds
print(f'reference, ffmpeg $what, {video} s -> $output: {wall:.1f} s wall ({wall / video:.2f} x real time), '
      f'{cpu:.1f} s CPU ({cpu / video:.2f} x)')"
}
reference "libx264 veryfast crf 18" reference.mp4 -c:v libx264 -preset veryfast -crf 18 -movflags +faststart
reference "ffv1" reference.mkv -c:v ffv1 -g 1
