#!/usr/bin/env bash
# Calibrated gaze accuracy on real frames with known targets, gazerec beside EyeTrax.
#   Scripts/bench-gaze.sh DIR [options of Scripts/bench_gaze.py]
# DIR holds labels.csv and the images or videos it names (layout: docs/Benchmarks.md). Every
# session's targets are split twice in a checkerboard (half calibrate, half validate); each fold
# becomes a clip and a calibration script, run through the real `gazerec calibrate --script` and,
# when .build-peers/eyetrax exists (Scripts/setup-peers.sh makes it), through EyeTrax on the same
# frames and windows. --no-peer leaves EyeTrax out.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: Scripts/bench-gaze.sh DIR [--sessions REGEX] [--hold S] [--fps N] [--settle S] [--draws N [--draw-targets K] [--seed S]] [--jobs N] [--json FILE] [--no-peer]" >&2; exit 64; }
dir="$1"; shift
[ -f "$dir/labels.csv" ] || { echo "bench-gaze: no labels.csv in $dir (layout: docs/Benchmarks.md)" >&2; exit 1; }
Scripts/setup-system.sh
Scripts/setup-models.sh
swift build -c release --product gazerec >&2
swift build -c release --product gazerec-bench >&2
gazerec="$(swift build -c release --show-bin-path)/gazerec"
bench="$(swift build -c release --show-bin-path)/gazerec-bench"
peer=()
args=()
use_peer=1
for argument in "$@"; do
  if [ "$argument" = "--no-peer" ]; then use_peer=0; else args+=("$argument"); fi
done
if [ "$use_peer" = 1 ] && [ -x .build-peers/eyetrax/bin/python ]; then
  peer=(--peer-python .build-peers/eyetrax/bin/python)
elif [ "$use_peer" = 1 ]; then
  echo "bench-gaze: no .build-peers/eyetrax (Scripts/setup-peers.sh makes it): gazerec alone" >&2
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
exec python3 Scripts/bench_gaze.py "$dir" --gazerec "$gazerec" --bench "$bench" "${peer[@]}" "${args[@]}"
