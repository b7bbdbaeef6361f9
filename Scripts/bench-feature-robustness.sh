#!/usr/bin/env bash
# How much drawn round rims (with the screen's reflection) and a hand at the chin disturb each gaze
# feature set and the landmarks an eye patch could be aligned to, against their spread across the
# clip (Scripts/bench_feature_robustness.py; docs/Benchmarks.md).
#   Scripts/bench-feature-robustness.sh [DIR] [options of Scripts/bench_feature_robustness.py]
# DIR: labels.csv's layout, NAME.tag files with their clips, or a folder of images and videos
# (default: the shared webcam clips as Scripts/bench_gaze_standin.py lays them out, so the drawn
# reflection moves with its targets). Without --copy NAME=DIR the copies are
# drawn with Scripts/draw_glasses.py by the GazeTracking environment of Scripts/setup-peers.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
model="${GAZEREC_MODEL:-/usr/share/dlib/shape_predictor_68_face_landmarks.dat}"
swift build -c release --product gazerec >&2
swift build -c release --product gazerec-bench >&2
bin="$(swift build -c release --show-bin-path)"
if [ $# -eq 0 ] || [ "${1#--}" != "$1" ]; then
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' EXIT
  python3 Scripts/bench_gaze_standin.py "$dir" >&2
else
  dir="$1"; shift
fi
draw=()
if [ -x .build-peers/gazetracking/bin/python ]; then draw=(--draw-python .build-peers/gazetracking/bin/python); fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
python3 Scripts/bench_feature_robustness.py "$dir" --gazerec "$bin/gazerec" --bench "$bin/gazerec-bench" \
  --model "$model" "${draw[@]}" "$@"
