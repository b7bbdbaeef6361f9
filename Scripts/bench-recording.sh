#!/usr/bin/env bash
# Recording benchmark: replays a 60 fps 640×480 clip at its own pace through `gazerec start`
# (as a camera would deliver it) and reports whether every frame was recorded, the achieved
# rate, the per-frame lag (frame due → features ready) and the CPU per frame, without and with
# the live --preview and with --save-video (to show neither slows capture). Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
source_clip="${1:-../shared/fixtures/video/cap12_headturns_20s.mp4}"
[ -f "$source_clip" ] || source_clip="$(Scripts/sample-video.sh)"
swift build -c release --product gazerec >&2
gazerec="$(swift build -c release --show-bin-path)/gazerec"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GAZEREC_DATABASE="$work/bench.sqlite"
clip="$work/clip60.mp4"
ffmpeg -v error -y -i "$source_clip" -vf "scale=640:480,fps=60" -c:v libx264 -crf 18 -pix_fmt yuv420p "$clip"
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$clip")
echo "machine: $(nproc) cores, $(date -u +%Y-%m-%d); clip: 640x480 at 60 fps, $frames frames from $(basename "$source_clip")"
report() {  # report ID LABEL WALL-SECONDS
  "$gazerec" export "$1" | python3 -c "
import json, sys
s = json.load(sys.stdin); r = s['gazerec']['recorder']; n = r['frames']
print('$2')
print(f'  recorded frames        {n} of $frames ({\"no frame dropped\" if n == $frames else \"FRAMES MISSING\"})')
print(f'  gaze samples           {len(s[\"scanPath\"])}')
print(f'  achieved rate          {r[\"achievedFramesPerSecond\"]} fps (clip 60 fps)')
print(f'  lag median / p95       {r[\"lagMedianMilliseconds\"]} / {r[\"lagP95Milliseconds\"]} ms (frame due → features ready)')
print(f'  CPU per frame          {1000 * r[\"cpuSeconds\"] / n:.2f} ms (all threads: decoding, vision, storage; model load excluded)')
print(f'  CPU share              {r.get(\"cpuPercentOfOneCore\", float(\"nan\")):.1f} % of one core (CPU seconds over wall seconds; target ≤ 15 %)')
print(f'  wall time              {$3:.1f} s for {n / 60:.1f} s of video')
v = r.get('savedVideo')
if v: print(f'  saved video            {v[\"frames\"]} frames, {v[\"droppedFrames\"]} left out')
"
}
# With the shared head-turn clip, a scripted calibration first, so the recordings map gaze.
if [ "$(basename "$source_clip")" = cap12_headturns_20s.mp4 ]; then
  "$gazerec" calibrate --input "$source_clip" --script Scripts/calibration-headturns-20s.txt > /dev/null 2>&1
fi
start=$(date +%s.%N)
id=$("$gazerec" start --input "$clip" --blend-shapes eyeBlink_L,eyeBlink_R 2>/dev/null)
end=$(date +%s.%N)
report "$id" "plain recording" "$end - $start"
# The same with the live preview drawn on a terminal (a pseudo-terminal from script(1)).
start=$(date +%s.%N)
script -qfec "'$gazerec' start --input '$clip' --blend-shapes eyeBlink_L,eyeBlink_R --preview" /dev/null > "$work/preview.out"
end=$(date +%s.%N)
id=$(grep -aoE '[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}' "$work/preview.out" | tail -1)
report "$id" "with --preview (drawn on a pseudo-terminal)" "$end - $start"
# The same keeping the video (lossless FFV1, written on its own thread).
start=$(date +%s.%N)
id=$("$gazerec" start --input "$clip" --blend-shapes eyeBlink_L,eyeBlink_R --save-video "$work/kept.mkv" 2>/dev/null)
end=$(date +%s.%N)
report "$id" "with --save-video ($(du -m "$work/kept.mkv" | cut -f1) MB)" "$end - $start"
