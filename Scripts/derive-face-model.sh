#!/usr/bin/env bash
# Derives the table of FaceModel3D.meanShape (Sources/GazeCore/HeadPose.swift): dlib's 68 points
# with the depth MediaPipe FaceMesh gives each, averaged over the faces given (default: the shared
# fixtures' portraits, frontal portrait first, and every 10th frame of both webcam clips).
# Needs the peers' environment (Scripts/setup-peers.sh). Prints the Swift table to stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
Scripts/setup-peers.sh
swift build -c release --product gazerec >&2
bin="$(swift build -c release --show-bin-path)"
fixtures=../shared/fixtures
if [ $# -eq 0 ]; then
  set -- "$fixtures/faces/sergey.png" "$fixtures/faces/astronaut.png" "$fixtures/video/cap13_blinks_20s.mp4" \
    "$fixtures/video/cap12_headturns_20s.mp4"
fi
exec .build-peers/eyetrax/bin/python Scripts/derive_face_model.py --gazerec "$bin/gazerec" --stride 10 "$@"
