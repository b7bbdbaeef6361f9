#!/usr/bin/env bash
# The main job: set up, build, and record a session, then show and export it.
#   - With a camera (/dev/video*), records 10 s from it.
#   - Without one, records from a sample face video instead, and says so
#     (Scripts/sample-video.sh: the shared webcam clip if present, else one it makes).
# The session goes into a throw-away database unless GAZEREC_DATABASE is set.
# Extra arguments are passed to `gazerec start` (e.g. --duration 30 --app-id my-study).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
swift build -c release --product gazerec >&2
gazerec="$(swift build -c release --show-bin-path)/gazerec"

if [ -z "${GAZEREC_DATABASE:-}" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  export GAZEREC_DATABASE="$work/gazerec.sqlite"
fi

if compgen -G "/dev/video*" > /dev/null && "$gazerec" devices > /dev/null 2>&1 && [ -n "$("$gazerec" devices)" ]; then
  echo "gazerec: recording 10 s from the camera" >&2
  id="$("$gazerec" start --duration 10 "$@")"
else
  sample="$(Scripts/sample-video.sh)"
  echo "gazerec: no camera found: recording from the sample video $sample instead" >&2
  id="$("$gazerec" start --input "$sample" --blend-shapes eyeBlink_L,eyeBlink_R,eyeWide_L,eyeWide_R,jawOpen "$@")"
fi
"$gazerec" show "$id" >&2
"$gazerec" export --pretty "$id"
