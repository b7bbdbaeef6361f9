#!/usr/bin/env bash
# Recording benchmark: replays a 60 fps 640×480 clip at its own pace through `gazerec start`
# (as a camera would deliver it) and reports whether every frame was recorded, the achieved
# rate, the per-frame lag (frame due → features ready) and the CPU per frame. Release build.
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
start=$(date +%s.%N)
id=$("$gazerec" start --input "$clip" --blend-shapes eyeBlink_L,eyeBlink_R 2>/dev/null)
end=$(date +%s.%N)
"$gazerec" export "$id" | python3 -c "
import json, sys
s = json.load(sys.stdin); r = s['gazerec']['recorder']; n = r['frames']
print(f'recorded frames        {n} of $frames ({\"no frame dropped\" if n == $frames else \"FRAMES MISSING\"})')
print(f'achieved rate          {r[\"achievedFramesPerSecond\"]} fps (clip 60 fps)')
print(f'lag median / p95       {r[\"lagMedianMilliseconds\"]} / {r[\"lagP95Milliseconds\"]} ms (frame due → features ready)')
print(f'CPU per frame          {1000 * r[\"cpuSeconds\"] / n:.2f} ms (all threads: decoding, vision, storage; model load excluded)')
print(f'wall time              {$end - $start:.1f} s for {n / 60:.1f} s of video')
"
