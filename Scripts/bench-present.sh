#!/usr/bin/env bash
# How close is what `start --present` records to what the screen showed? Presents, on an Xvfb
# display of its own, a 6 s 30 fps video whose every frame carries its number as a 10-bit pattern
# (black/white blocks along its top), while FFmpeg's x11grab grabs the display at 60 Hz with each
# grab's wall-clock time. Each grab's pattern is decoded; the recorded presentation (onset and
# playback samples, PresentationClock's rule) is read from the export. Reports, in ms:
#   onset    the recorded onset − the first grab showing frame 0 (≥ 0 means recorded after it was seen)
#   position for every grab showing frame k at time t: the recorded position at t − k/30 s
#            (a frame is shown for 33 ms, so ±17 ms of this is the frame's own length)
# as median, p95 and max of the absolute errors. Xvfb has no vsync and no compositor: see
# docs/Performance.md for what this means on a real display.
#   Scripts/bench-present.sh            (GAZEREC_BIN=path uses that gazerec instead of a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
for program in Xvfb mpv ffmpeg; do
  command -v "$program" >/dev/null || { echo "bench-present: $program is missing: run Scripts/setup-system.sh" >&2; exit 1; }
done
if [ -z "${GAZEREC_BIN:-}" ]; then
  swift build -c release --product gazerec >&2
  GAZEREC_BIN="$(swift build -c release --show-bin-path)/gazerec"
fi
clip="../shared/fixtures/video/cap13_blinks_20s.mp4"
work="$(mktemp -d)"; [ -n "${KEEP:-}" ] && echo "work: $work" >&2
number=$((150 + RANDOM % 100))
while [ -e "/tmp/.X11-unix/X$number" ]; do number=$((number + 1)); done
Xvfb ":$number" -screen 0 1280x720x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill -9 $xvfb 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
while [ ! -e "/tmp/.X11-unix/X$number" ]; do sleep 0.05; done

# Frame N: bit b of N (b < 9) is block b (64 px wide, the top 60 rows) white when set; block 9 is
# always white (the stimulus is on the screen); the rest mid grey.
ffmpeg -v error -f lavfi -i "color=c=gray:s=640x360:r=30:d=6,format=gray" \
  -vf "geq=lum='if(lt(Y\,60)\,if(gte(X\,576)\,255\,255*mod(floor(N/pow(2\,floor(X/64)))\,2))\,128)',format=yuv420p" "$work/numbered.mp4"

# The grab: 720 grabs at 60 Hz (12 s), each frame's time the wall clock when grabbed (x11grab's own stamps).
ffmpeg -v info -f x11grab -framerate 60 -video_size 1280x720 -i ":$number" -frames:v 720 -copyts \
  -vf "crop=1280:120:0:0,scale=10:1:flags=area,showinfo" -f rawvideo -pix_fmt gray "$work/grab.raw" 2>"$work/grab.log" &
grabber=$!
sleep 0.5
DISPLAY=":$number" GAZEREC_DATABASE="$work/db.sqlite" "$GAZEREC_BIN" start --input "$clip" --calibration none \
  --screen 1280x720 --present "$work/numbered.mp4" >"$work/id" 2>"$work/start.log"
wait $grabber || true
GAZEREC_DATABASE="$work/db.sqlite" "$GAZEREC_BIN" export "$(cat "$work/id")" >"$work/session.json"

python3 - "$work" <<'PY'
import json, re, statistics, sys
work = sys.argv[1]
log = open(f"{work}/grab.log").read()
base = re.search(r"config in time_base: (\d+)/(\d+)", log)
unit = int(base.group(1)) / int(base.group(2))
times = [int(m.group(1)) * unit for m in re.finditer(r" pts:\s*(\d+)", log)]
raw = open(f"{work}/grab.raw", "rb").read()
shown = []  # (time, frame number) of the grabs that show a numbered frame
for i, t in enumerate(times):
    blocks = raw[i * 10:(i + 1) * 10]
    if len(blocks) < 10 or blocks[9] < 215 or any(40 < b < 215 for b in blocks):
        continue  # no stimulus, or a grab across two frames
    shown.append((t, sum(1 << b for b, value in enumerate(blocks[:9]) if value >= 215)))
p = json.load(open(f"{work}/session.json"))["gazerec"]["presentations"][0]
onset, playback, events = p["onset"], p["playback"], p["events"]
def position(t):  # PresentationClock's rule, without pauses (none happen here)
    last = None
    for s in playback:
        if s["timestamp"] <= t: last = s
        else: break
    return (t - onset) if last is None else last["stimulusSeconds"] + (t - last["timestamp"])
first_zero = next(t for t, n in shown if n == 0)
signed = [(position(t) - n / 30) * 1000 for t, n in shown if onset <= t < p["offset"]]
errors = [abs(e) for e in signed]
def figures(values):
    values = sorted(values)
    return f"median {statistics.median(values):.1f}  p95 {values[min(len(values) - 1, int(len(values) * 0.95))]:.1f}  max {values[-1]:.1f}"
print(f"grabs showing a numbered frame: {len(shown)} of {len(times)}; frames seen {len({n for _, n in shown})} of 180")
print(f"onset: recorded − first grab showing frame 0 = {(onset - first_zero) * 1000:+.1f} ms")
print(f"position |recorded − shown| (ms): {figures(errors)}  over {len(errors)} grabs; "
      f"signed median {statistics.median(signed):+.1f} (> 0: the recorded position is ahead of the screen)")
PY
