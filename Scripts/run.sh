#!/usr/bin/env bash
# The main job: set up, build, and record a session, then show and export it.
#   - With a camera (/dev/video*), calibrates on the terminal (when run in one), then records 10 s.
#   - Without one, with the shared webcam clips present: a scripted calibration from the head-turn
#     clip, then that clip recorded as if it were a camera (a session with gaze).
#   - Otherwise, records from a sample face video (Scripts/sample-video.sh makes one), without gaze.
# The session goes into a throw-away database unless GAZEREC_DATABASE is set.
# Extra arguments are passed to `gazerec start` (e.g. --duration 30 --app-id my-study).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
Scripts/setup-models.sh
Scripts/setup-lsl.sh          # liblsl and pylsl (the LSL tests skip with a reason without them)
swift build -c release --product gazerec >&2
gazerec="$(swift build -c release --show-bin-path)/gazerec"

if [ -z "${GAZEREC_DATABASE:-}" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  export GAZEREC_DATABASE="$work/gazerec.sqlite"
fi

headturns="../shared/fixtures/video/cap12_headturns_20s.mp4"
if compgen -G "/dev/video*" > /dev/null && "$gazerec" devices > /dev/null 2>&1 && [ -n "$("$gazerec" devices)" ]; then
  if [ -t 0 ] && [ -t 1 ]; then
    echo "gazerec: calibrating on this terminal first (make it full screen; Esc skips)" >&2
    "$gazerec" calibrate --points 9 > /dev/null || echo "gazerec: no calibration: recording without gaze" >&2
  fi
  echo "gazerec: recording 10 s from the camera" >&2
  id="$("$gazerec" start --duration 10 "$@")"
elif [ -f "$headturns" ]; then
  # A webcam clip of someone turning the head, with a schedule of where each held pose points:
  # a scripted calibration from it, then the clip recorded as if it were a camera, with gaze.
  echo "gazerec: no camera found: calibrating from and recording the sample clip $headturns" >&2
  "$gazerec" calibrate --input "$headturns" --script Scripts/calibration-headturns-20s.txt > /dev/null
  id="$("$gazerec" start --input "$headturns" --blend-shapes eyeBlink_L,eyeBlink_R,eyeWide_L,eyeWide_R,jawOpen "$@")"
else
  sample="$(Scripts/sample-video.sh)"
  echo "gazerec: no camera found: recording from the sample video $sample instead (no calibration: no gaze)" >&2
  id="$("$gazerec" start --input "$sample" --blend-shapes eyeBlink_L,eyeBlink_R,eyeWide_L,eyeWide_R,jawOpen "$@")"
fi
"$gazerec" show "$id" >&2
"$gazerec" export --pretty "$id"
