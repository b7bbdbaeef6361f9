#!/usr/bin/env bash
# Times `gazerec stimulus timeline` and `stimulus aoi` over 20 constructed one-hour sessions
# (30 Hz gaze, Scripts/make_session.py), one process each, on one core (taskset -c 0).
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
