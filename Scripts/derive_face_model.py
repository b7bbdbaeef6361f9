#!/usr/bin/env python3
"""Derives gazerec's 3-D mean face for head pose: dlib's 68 points with depths.

dlib gives 68 points in the image; MediaPipe FaceMesh (Apache-2.0) gives 468 points with a depth
each, from its own learned face prior. For every frame of the faces given, each dlib point takes
the depth of the mesh where it lies (interpolated from the nearest mesh vertices in the image), so
the frame yields the 68 points in 3-D (weak perspective, pixels). Generalised Procrustes analysis
(rotation, scale, translation) aligns the frames to the first one, which must be a frontal
portrait: its orientation is the model's frontal pose (pitch, yaw and roll 0). The mean shape is
then scaled so the outer eye corners (36, 45) lie 90 mm apart, the adult mean biocular breadth,
and centred between the four eye corners.

Prints the Swift table of `FaceModel3D.meanShape` (camera axes: x to the image's right, y down,
z away from the camera, millimetres). Run through Scripts/derive-face-model.sh.

  python derive_face_model.py --gazerec PATH IMAGE_OR_VIDEO... [--stride N]
"""

import argparse
import csv
import io
import subprocess
import sys

import cv2
import mediapipe as mp
import numpy as np

BIOCULAR_MM = 90.0


def dlib_landmarks(gazerec, path):
    """Every frame's 68 dlib points (frame index → 68×2 array), from `gazerec analyze`."""
    out = subprocess.run([gazerec, "analyze", "--input", path, "--landmarks", "--format", "csv", "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    frames = {}
    for row in csv.DictReader(io.StringIO(out)):
        if not row["x0"]:
            continue
        points = np.array([[float(row[f"x{i}"]), float(row[f"y{i}"])] for i in range(68)])
        frames[int(row["frame"])] = points
    return frames


def mesh_frames(path, wanted):
    """FaceMesh's 468 points (x, y, depth in pixels) for the frames in `wanted`."""
    mesh = mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=1, refine_landmarks=False)
    capture = cv2.VideoCapture(path)
    index = 0
    result = {}
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        if index in wanted:
            height, width = frame.shape[:2]
            found = mesh.process(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
            if found.multi_face_landmarks:
                lm = found.multi_face_landmarks[0].landmark
                result[index] = np.array([[p.x * width, p.y * height, p.z * width] for p in lm])
        index += 1
    return result


def lift(dlib_points, mesh_points):
    """The 68 points with the mesh's depth where each lies (inverse-distance over 4 nearest vertices)."""
    lifted = np.zeros((68, 3))
    for i, (x, y) in enumerate(dlib_points):
        d = np.hypot(mesh_points[:, 0] - x, mesh_points[:, 1] - y)
        nearest = np.argsort(d)[:4]
        w = 1.0 / np.maximum(d[nearest], 1e-3)
        lifted[i] = [x, y, float(np.sum(w * mesh_points[nearest, 2]) / np.sum(w))]
    return lifted


def procrustes(reference, shape):
    """`shape` rotated, scaled and moved onto `reference` (least squares, no reflection)."""
    ref_centre, centre = reference.mean(0), shape.mean(0)
    a, b = reference - ref_centre, shape - centre
    u, s, vt = np.linalg.svd(b.T @ a)
    d = np.sign(np.linalg.det(u @ vt))
    correction = np.diag([1, 1, d])
    rotation = u @ correction @ vt
    scale = np.trace(np.diag(s) @ correction) / np.sum(b * b)
    return scale * b @ rotation + ref_centre


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gazerec", required=True)
    parser.add_argument("--stride", type=int, default=5, help="every N-th frame of a video")
    parser.add_argument("inputs", nargs="+", help="the first must be a frontal portrait")
    args = parser.parse_args()

    shapes = []
    for path in args.inputs:
        dlib = dlib_landmarks(args.gazerec, path)
        wanted = {i for i in dlib if i % args.stride == 0}
        meshes = mesh_frames(path, wanted)
        for index in sorted(wanted & meshes.keys()):
            shapes.append(lift(dlib[index], meshes[index]))
        print(f"{path}: {len(wanted & meshes.keys())} frames", file=sys.stderr)
    if len(shapes) < 2:
        sys.exit("derive_face_model: fewer than two faces found")

    mean = shapes[0].copy()
    for _ in range(10):
        aligned = [procrustes(mean, s) for s in shapes]
        # Keep the first (frontal) face's frame: realign the new mean onto it.
        mean = procrustes(shapes[0], np.mean(aligned, axis=0))
    spread = np.median([np.sqrt(np.mean(np.sum((procrustes(mean, s) - mean) ** 2, axis=1))) for s in shapes])

    # Centre between the eye corners, x along the outer corners' line kept as the frontal frame has it.
    centre = mean[[36, 39, 42, 45]].mean(0)
    model = (mean - centre) * (BIOCULAR_MM / np.linalg.norm(mean[45] - mean[36]))
    print(f"// {len(shapes)} faces; median RMS residual after alignment {spread:.2f} px", file=sys.stderr)
    print("    public static let meanShape = FaceModel3D(points: [")
    for i, (x, y, z) in enumerate(model):
        print(f"        ({i}, Vector3({x:.2f}, {y:.2f}, {z:.2f})),")
    print("    ])")


if __name__ == "__main__":
    main()
