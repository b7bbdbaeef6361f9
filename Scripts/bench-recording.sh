#!/usr/bin/env bash
# Recording benchmark: replays a 60 fps 640×480 clip at its own pace through `gazerec start`
# (as a camera would deliver it) and reports whether every frame was recorded, the achieved
# rate, the per-frame lag (frame due → features ready) and the CPU per frame, without and with
# the live --preview and with --save-video (to show neither slows capture). Release build.
#
# `Scripts/bench-recording.sh --lsl [CLIP]` instead compares recording without and with `--lsl`
# side by side in one run (plain, --lsl, plain, --lsl), each --lsl run with a pylsl inlet pulling
# every gaze sample and marker as LabRecorder would (pylsl from Scripts/setup-lsl.sh; LSL kept on
# this machine by .build-lsl/lsl_api.cfg), and prints the CPU of each and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
lsl=0
if [ "${1:-}" = "--lsl" ]; then lsl=1; shift; fi
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
if [ "$lsl" = 1 ]; then
  Scripts/setup-lsl.sh
  python=.build-lsl/venv/bin/python
  [ -x "$python" ] || { echo "pylsl is not installed (Scripts/setup-lsl.sh could not install it)" >&2; exit 1; }
  export LSLAPICFG="$PWD/.build-lsl/lsl_api.cfg"
  cpu_per_frame() {  # cpu_per_frame ID: CPU ms per recorded frame
    "$gazerec" export "$1" | python3 -c "import json, sys; r = json.load(sys.stdin)['gazerec']['recorder']; print(f'{1000 * r[\"cpuSeconds\"] / r[\"frames\"]:.3f}')"
  }
  declare -a plain_cpu lsl_cpu
  for round in 1 2; do
    start=$(date +%s.%N)
    id=$("$gazerec" start --input "$clip" --blend-shapes eyeBlink_L,eyeBlink_R 2>/dev/null)
    end=$(date +%s.%N)
    report "$id" "plain recording (round $round)" "$end - $start"
    plain_cpu+=("$(cpu_per_frame "$id")")
    # The LabRecorder stand-in: subscribes to both streams, pulls until the gaze stream falls silent.
    "$python" -c "
import sys, pylsl, pylsl.util
gaze = pylsl.resolve_bypred(\"name='gazerec-gaze' and contains(source_id, 'clip60.mp4')\", 1, 60.0)
markers = pylsl.resolve_bypred(\"name='gazerec-markers' and contains(source_id, 'clip60.mp4')\", 1, 10.0)
inlets = [pylsl.StreamInlet(info[0], recover=False) for info in (gaze, markers) if info]
for inlet in inlets: inlet.open_stream(10.0)
count = 0
while True:
    try:
        _, stamp = inlets[0].pull_sample(timeout=3.0)
        if inlets[1:]: inlets[1].pull_sample(timeout=0.0)
    except pylsl.util.LostError:
        break
    if stamp is None: break
    count += 1
print(f'  pylsl inlet received   {count} gaze samples', file=sys.stderr)
" &
    client=$!
    start=$(date +%s.%N)
    id=$("$gazerec" start --input "$clip" --blend-shapes eyeBlink_L,eyeBlink_R --lsl --lsl-wait 60 2>/dev/null)
    end=$(date +%s.%N)
    wait "$client"
    report "$id" "with --lsl, a pylsl inlet subscribed (round $round)" "$end - $start"
    lsl_cpu+=("$(cpu_per_frame "$id")")
  done
  python3 -c "
plain = [${plain_cpu[0]}, ${plain_cpu[1]}]; lsl = [${lsl_cpu[0]}, ${lsl_cpu[1]}]
print('CPU per frame, side by side (ms): plain', ', '.join(f'{v:.3f}' for v in plain), '| --lsl', ', '.join(f'{v:.3f}' for v in lsl))
ratio = sum(lsl) / sum(plain)
print(f'--lsl / plain: {ratio:.3f} ({100 * (ratio - 1):+.1f} %; the budget is +10 %)')
"
  exit 0
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
