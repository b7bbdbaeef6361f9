#!/usr/bin/env python3
"""Copies a folder in Scripts/bench-gaze.sh's layout with round glasses drawn on every face.

No lawful footage of people wearing glasses while they follow on-screen targets is known to us, so
this draws them on real frames, where gazerec's own landmarks (`gazerec analyze --landmarks`) put
the eyes: a round lens over each eye (radius `--radius` × the distance between the eyes' centres),
dark rims `--rim` × that distance thick, a bridge and temples to the face's sides, a faint haze on
the lens, a bright reflection of the screen across its upper half (`--reflection`, its opacity), and
with `--glint` a saturated spot on each lens. Every part keeps its place relative to the eyes, as
glasses do on a head: nothing follows the head's pose, so nothing here tells a fit where a target
was. A frame without a face keeps the last face's glasses (a video) or none (an image).

    Scripts/draw_glasses.py SRC DST [--gazerec BIN] [--rim F] [--radius F] [--reflection A] [--haze A] [--glint]
    Scripts/bench-gaze.sh DST

Needs NumPy and OpenCV (the GazeTracking environment Scripts/setup-peers.sh makes has both) and
FFmpeg. labels.csv is copied unchanged; videos are written again with H.264 at CRF 12, images in
their own format.
"""

import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys

try:
    import cv2
    import numpy as np
except ImportError:
    sys.exit("draw_glasses: needs numpy and opencv (run it with .build-peers/gazetracking/bin/python after "
             "Scripts/setup-peers.sh)")

IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
SHIFT = 3  # sub-pixel bits of OpenCV's drawing


def fixed(point):
    return (int(round(point[0] * (1 << SHIFT))), int(round(point[1] * (1 << SHIFT))))


def landmarks_per_frame(gazerec, path):
    """The 68 landmarks of every frame of `path` (None where no face was found)."""
    result = subprocess.run([gazerec, "analyze", "--input", path, "--landmarks"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"draw_glasses: gazerec analyze failed on {path}: {result.stderr.strip().splitlines()[-1:]}")
    frames = []
    for line in result.stdout.splitlines():
        row = json.loads(line)
        if not row.get("face") or row.get("x0") is None:
            frames.append(None)
            continue
        frames.append(np.array([[row[f"x{i}"], row[f"y{i}"]] for i in range(68)], dtype=float))
    return frames


def draw(image, landmarks, options):
    """`image` (BGR) with glasses drawn where `landmarks` put the eyes."""
    height, width = image.shape[:2]
    right, left = landmarks[36:42].mean(axis=0), landmarks[42:48].mean(axis=0)
    distance = float(np.linalg.norm(left - right))
    if distance < 4:
        return image
    ux = (left - right) / distance
    uy = np.array([-ux[1], ux[0]])  # down the face
    angle = math.degrees(math.atan2(ux[1], ux[0]))
    radius = options.radius * distance
    centres = [right + uy * 0.08 * distance, left + uy * 0.08 * distance]
    lens = np.zeros((height, width), np.uint8)
    reflection = np.zeros((height, width), np.uint8)
    for centre in centres:
        cv2.ellipse(lens, fixed(centre), fixed((radius, radius)), angle, 0, 360, 255, -1, cv2.LINE_AA, SHIFT)
        band = centre - uy * 0.1 * radius
        cv2.ellipse(reflection, fixed(band), fixed((0.55 * radius, 0.22 * radius)), angle - 15, 0, 360, 255, -1,
                    cv2.LINE_AA, SHIFT)
    on_lens = (lens / 255.0)[..., None]
    on_band = (reflection / 255.0)[..., None] * on_lens
    picture = image.astype(np.float32)
    picture = picture * (1 - options.haze * on_lens) + 255 * options.haze * on_lens
    picture = picture * (1 - options.reflection * on_band) + 235 * options.reflection * on_band
    out = np.clip(picture, 0, 255).astype(np.uint8)
    if options.glint:
        for centre in centres:
            spot = centre + ux * 0.3 * radius - uy * 0.25 * radius
            cv2.circle(out, fixed(spot), int(max(1.0, 0.05 * distance) * (1 << SHIFT)), (255, 255, 255), -1,
                       cv2.LINE_AA, SHIFT)
    rim = (25, 25, 28)
    thickness = max(1, int(round(options.rim * distance)))
    for centre in centres:
        cv2.ellipse(out, fixed(centre), fixed((radius, radius)), angle, 0, 360, rim, thickness, cv2.LINE_AA, SHIFT)
    inner = [centres[0] + ux * radius - uy * 0.3 * radius, centres[1] - ux * radius - uy * 0.3 * radius]
    cv2.line(out, fixed(inner[0]), fixed(inner[1]), rim, thickness, cv2.LINE_AA, SHIFT)
    cv2.line(out, fixed(centres[0] - ux * radius), fixed(landmarks[0]), rim, thickness, cv2.LINE_AA, SHIFT)
    cv2.line(out, fixed(centres[1] + ux * radius), fixed(landmarks[16]), rim, thickness, cv2.LINE_AA, SHIFT)
    return out


def copy_image(source, target, frames, options):
    image = cv2.imread(source, cv2.IMREAD_COLOR)
    if image is None:
        sys.exit(f"draw_glasses: cannot read the image {source}")
    if frames and frames[0] is not None:
        image = draw(image, frames[0], options)
    if not cv2.imwrite(target, image):
        sys.exit(f"draw_glasses: cannot write {target}")


def copy_video(source, target, frames, options):
    capture = cv2.VideoCapture(source)
    width, height = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
    rate = capture.get(cv2.CAP_PROP_FPS) or 30
    encoder = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgr24", "-s",
                                f"{width}x{height}", "-r", f"{rate}", "-i", "-", "-c:v", "libx264", "-crf", "12",
                                "-pix_fmt", "yuv420p", target], stdin=subprocess.PIPE)
    index, last = 0, None
    while True:
        ok, image = capture.read()
        if not ok:
            break
        face = frames[index] if index < len(frames) else None
        last = face if face is not None else last
        if last is not None:
            image = draw(image, last, options)
        encoder.stdin.write(image.tobytes())
        index += 1
    encoder.stdin.close()
    if encoder.wait() != 0:
        sys.exit(f"draw_glasses: FFmpeg could not write {target}")
    if index != len(frames):
        print(f"draw_glasses: {source}: OpenCV read {index} frames, gazerec analysed {len(frames)}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("destination")
    parser.add_argument("--gazerec", default="gazerec", help="the gazerec binary whose landmarks place the glasses")
    parser.add_argument("--rim", type=float, default=0.06, help="rim thickness over the eyes' distance (default 0.06)")
    parser.add_argument("--radius", type=float, default=0.40, help="lens radius over the eyes' distance (default 0.40)")
    parser.add_argument("--reflection", type=float, default=0.45, help="opacity of the screen's reflection (default 0.45)")
    parser.add_argument("--haze", type=float, default=0.10, help="opacity of the lens's haze (default 0.10)")
    parser.add_argument("--glint", action="store_true", help="add a saturated glint on each lens")
    options = parser.parse_args()
    labels = os.path.join(options.source, "labels.csv")
    if not os.path.isfile(labels):
        sys.exit(f"draw_glasses: no labels.csv in {options.source} (layout: docs/Benchmarks.md)")
    if os.path.abspath(options.source) == os.path.abspath(options.destination):
        sys.exit("draw_glasses: the destination must be another folder than the source")
    os.makedirs(options.destination, exist_ok=True)
    with open(labels, newline="") as handle:
        files = sorted({row["file"] for row in csv.DictReader(handle)})
    for name in files:
        source, target = os.path.join(options.source, name), os.path.join(options.destination, name)
        if not os.path.isfile(source):
            sys.exit(f"draw_glasses: labels.csv names {name}, which is not in {options.source}")
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        frames = landmarks_per_frame(options.gazerec, source)
        if os.path.splitext(name)[1].lower() in IMAGE_EXTENSIONS:
            copy_image(source, target, frames, options)
        else:
            copy_video(source, target, frames, options)
        found = sum(face is not None for face in frames)
        print(f"draw_glasses: {name}: glasses on {found} of {len(frames)} frames", file=sys.stderr)
    shutil.copyfile(labels, os.path.join(options.destination, "labels.csv"))


if __name__ == "__main__":
    main()
