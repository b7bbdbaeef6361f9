#!/usr/bin/env bash
# Makes the Python environments of the peers the benchmarks measure gazerec against, under
# .build-peers/ (ignored by git): EyeTrax 0.4.0 (PyPI eyetrax) with MediaPipe before 0.10.15, whose
# FaceMesh solution gives the same 478 points as the FaceLandmarker model EyeTrax would download;
# and the Python dlib and OpenCV that GazeTracking (a checkout of github.com/antoinelame/GazeTracking,
# given to the benchmarks as GAZETRACKING_SOURCE) runs on.
# Idempotent; needs Python 3.9-3.12 and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
peers=".build-peers"
mkdir -p "$peers"
if [ ! -x "$peers/eyetrax/bin/python" ] || ! "$peers/eyetrax/bin/python" -c "import eyetrax, mediapipe" 2>/dev/null; then
  echo "gazerec setup: making $peers/eyetrax (eyetrax 0.4.0, mediapipe<0.10.15)" >&2
  python3 -m venv "$peers/eyetrax"
  "$peers/eyetrax/bin/pip" install --quiet "eyetrax==0.4.0" "mediapipe<0.10.15" >&2
fi
if [ ! -x "$peers/gazetracking/bin/python" ] || ! "$peers/gazetracking/bin/python" -c "import dlib, cv2, numpy" 2>/dev/null; then
  echo "gazerec setup: making $peers/gazetracking (dlib-bin, opencv-python-headless, numpy)" >&2
  python3 -m venv "$peers/gazetracking"
  "$peers/gazetracking/bin/pip" install --quiet dlib-bin opencv-python-headless numpy >&2
fi
