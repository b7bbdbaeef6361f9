#!/usr/bin/env python3
"""EyeTrax on a calibration clip and script, for Scripts/bench-gaze.sh (run with the peers' Python).

EyeTrax 0.4.0 (PyPI `eyetrax`) with its own feature extraction (GazeEstimator.extract_features:
MediaPipe's 478 face-mesh points with iris, its eye-region subset in a head-aligned frame, head
angles, its blink rule) and its default model (standardised features, ridge regression, alpha 1).
Its FaceLandmarker model is downloaded from a host that may not be reachable, so the same 478
points come from `mediapipe.solutions.face_mesh` with refine_landmarks=True instead.

As in EyeTrax's own calibration, frames it flags as blinks are not trained on (a target left
without samples is left out of the fit); every validation frame with features is predicted. Prints JSON: {"targets": [{x, y, samples, accuracyPoints,
meanGazeX, meanGazeY}]} for the validation targets, or exits 1 with a reason on stderr.
"""

import argparse
import collections
import json
import math
import sys

import cv2
import mediapipe as mp
import numpy as np
from eyetrax.gaze import GazeEstimator
from eyetrax.models import create_model


class FaceMeshLandmarker:
    """Answers EyeTrax's FaceLandmarker calls with mediapipe.solutions.face_mesh (the same 478 points)."""

    def __init__(self):
        self.mesh = mp.solutions.face_mesh.FaceMesh(static_image_mode=False, max_num_faces=1, refine_landmarks=True,
                                                    min_detection_confidence=0.5, min_tracking_confidence=0.5)

    def detect_for_video(self, image, timestamp_ms):
        result = self.mesh.process(image.numpy_view())
        faces = [face.landmark for face in result.multi_face_landmarks] if result.multi_face_landmarks else []
        return type("Result", (), {"face_landmarks": faces})()

    def close(self):
        self.mesh.close()


def estimator():
    gaze = GazeEstimator.__new__(GazeEstimator)
    gaze._mp = mp
    gaze._face_landmarker = FaceMeshLandmarker()
    gaze.model = create_model("ridge")
    gaze._ear_history = collections.deque(maxlen=50)
    gaze._blink_ratio = 0.8
    gaze._min_history = 15
    gaze._mp_last_ts_ms = 0
    return gaze


def read_script(path):
    settle, targets = 0.0, []
    for line in open(path):
        words = line.split("#")[0].split()
        if not words:
            continue
        if words[0] == "settle":
            settle = float(words[1])
        elif words[0] in ("calibrate", "validate"):
            targets.append((words[0], float(words[1]), float(words[2]), float(words[3]), float(words[4])))
    return settle, targets


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("clip")
    parser.add_argument("script")
    args = parser.parse_args()
    settle, targets = read_script(args.script)
    gaze = estimator()
    capture = cv2.VideoCapture(args.clip)
    samples = [[] for _ in targets]
    first = None
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        time = capture.get(cv2.CAP_PROP_POS_MSEC) / 1000
        first = time if first is None else first
        relative = time - first
        features, blink = gaze.extract_features(frame)
        for index, (kind, x, y, start, end) in enumerate(targets):
            if start + settle <= relative <= end and features is not None:
                if kind == "validate" or not blink:
                    samples[index].append(features)
    # EyeTrax trains on whatever its calibration collected: a target without samples is left out.
    calibration = [(i, t) for i, t in enumerate(targets) if t[0] == "calibrate"]
    if sum(len(samples[index]) for index, _ in calibration) < 2:
        print("eyetrax: fewer than two calibration samples", file=sys.stderr)
        sys.exit(1)
    features = np.array([f for index, _ in calibration for f in samples[index]])
    positions = np.array([[t[1], t[2]] for index, t in calibration for _ in samples[index]])
    gaze.train(features, positions)
    report = []
    for index, target in enumerate(targets):
        if target[0] != "validate":
            continue
        if not samples[index]:
            report.append({"x": target[1], "y": target[2], "samples": 0})
            continue
        predicted = gaze.predict(np.array(samples[index]))
        distances = [math.hypot(p[0] - target[1], p[1] - target[2]) for p in predicted]
        report.append({"x": target[1], "y": target[2], "samples": len(distances),
                       "accuracyPoints": float(np.mean(distances)),
                       "meanGazeX": float(np.mean(predicted[:, 0])), "meanGazeY": float(np.mean(predicted[:, 1]))})
    json.dump({"targets": report}, sys.stdout)


if __name__ == "__main__":
    main()
