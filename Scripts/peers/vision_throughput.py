#!/usr/bin/env python3
"""A peer's per-frame throughput on a clip, for Scripts/bench-vision.sh (run with the peer's Python,
on one core under taskset). Decoding is included (OpenCV's VideoCapture, as the peers read video);
model loading is left out (the peer is constructed, and its first frame processed, before the clock
starts). Prints JSON: {"peer", "frames", "seconds", "framesPerSecond", "framesWithFace"}.

  mediapipe     MediaPipe FaceMesh with iris (refine_landmarks=True): EyeTrax's engine, 478 points
  gazetracking  GazeTracking (Python + dlib): HOG face detection and dlib's 68 landmarks on every
                frame, then its pupil search; needs GAZETRACKING_SOURCE, a checkout of
                github.com/antoinelame/GazeTracking, and uses Debian's copy of the same landmark model
"""

import json
import os
import shutil
import sys
import tempfile
import time

import cv2

cv2.setNumThreads(1)


def mediapipe_peer():
    import mediapipe as mp

    mesh = mp.solutions.face_mesh.FaceMesh(static_image_mode=False, max_num_faces=1, refine_landmarks=True)

    def process(frame):
        result = mesh.process(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
        return result.multi_face_landmarks is not None

    return process


def gazetracking_peer():
    source = os.environ.get("GAZETRACKING_SOURCE")
    if not source or not os.path.isdir(os.path.join(source, "gaze_tracking")):
        sys.exit("vision_throughput: set GAZETRACKING_SOURCE to a checkout of GazeTracking")
    # Its package loads trained_models/shape_predictor_68_face_landmarks.dat beside itself: a copy
    # of the package with Debian's identical model linked in (the checkout may lack the large file).
    work = tempfile.mkdtemp()
    shutil.copytree(os.path.join(source, "gaze_tracking"), os.path.join(work, "gaze_tracking"))
    model = os.path.join(work, "gaze_tracking", "trained_models", "shape_predictor_68_face_landmarks.dat")
    os.makedirs(os.path.dirname(model), exist_ok=True)
    if not os.path.isfile(model) or os.path.getsize(model) < 1_000_000:
        if os.path.exists(model):
            os.remove(model)
        os.symlink(os.environ.get("GAZEREC_MODEL", "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"), model)
    sys.path.insert(0, work)
    from gaze_tracking import GazeTracking

    gaze = GazeTracking()

    def process(frame):
        gaze.refresh(frame)
        return gaze.pupils_located

    return process


def main():
    peer, clip = sys.argv[1], sys.argv[2]
    process = {"mediapipe": mediapipe_peer, "gazetracking": gazetracking_peer}[peer]()
    capture = cv2.VideoCapture(clip)
    ok, frame = capture.read()
    if not ok:
        sys.exit(f"vision_throughput: cannot read {clip}")
    process(frame)  # the first frame builds the peer's graph: part of loading, not timed
    frames = faces = 0
    start = time.perf_counter()
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        faces += bool(process(frame))
        frames += 1
    seconds = time.perf_counter() - start
    print(json.dumps({"peer": peer, "frames": frames, "seconds": seconds, "framesPerSecond": frames / seconds,
                      "framesWithFace": faces}))


if __name__ == "__main__":
    main()
