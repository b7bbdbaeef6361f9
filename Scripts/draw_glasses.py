#!/usr/bin/env python3
"""Copies a folder in Scripts/bench-gaze.sh's or Scripts/bench-blinks.sh's layout with glasses drawn on every face.

No lawful footage of people wearing glasses while they follow on-screen targets is known to us, so
this draws them on real frames, where gazerec's own landmarks (`gazerec analyze --landmarks`) put
the eyes: a round lens over each eye (radius `--radius` × the distance between the eyes' centres),
dark rims `--rim` × that distance thick, a bridge and temples to the face's sides, a faint haze on
the lens, a bright reflection of the screen across its upper half (`--reflection`, its opacity), and
with `--glint` a saturated spot on each lens. Every part keeps its place relative to the eyes, as
glasses do on a head: nothing follows the head's pose, so nothing here tells a fit where a target
was. A frame without a face keeps the last face's glasses (a video) or none (an image).
`--screen-reflection A` adds, on a folder with labels.csv, a bright patch on each lens (opacity A)
that moves with the target shown: the screen's brightest part mirrored on the lens, left on the
screen right on the lens, up on the screen down on it, held at the last target between windows (a
real lens reflecting a calibration screen shows the target's dot; it is information a fit can read
that is not the eye, so the stand-in then favours sets that read it). `--hand F` draws a hand at
the chin (palm under it, fingers up one cheek over the jaw line, in the cheek's colour, as
`Scripts/face_standins.py` draws it) on a share F of a video's frames, in runs of `--hand-run`
frames (default 50): a chin held on a hand, let go now and then. It can be given without glasses
(`--no-glasses`).
`--shape rectangle` draws thick black frames instead: a rectangular lens `--radius` × the eyes'
distance to each side and `--height` × it up and down from a point a little below the eye, so
its upper bar lies between the upper lid and the brow (where a heavy frame sits, above all seen from
below). `--steady N` places them on a video's frames from the eye corners averaged over N frames
either side, so they neither shake with the fit nor follow the lids in a blink.

    Scripts/draw_glasses.py SRC DST [--gazerec BIN] [--rim F] [--radius F] [--reflection A] [--haze A] [--glint]
                            [--screen-reflection A] [--hand F] [--hand-run N] [--no-glasses]
                            [--shape round|rectangle] [--height F] [--steady N] [--videos DIR]
    Scripts/bench-gaze.sh DST          (SRC holds labels.csv)
    Scripts/bench-blinks.sh DST        (SRC holds NAME.tag files; the clips beside them or in --videos)
    Scripts/bench_feature_robustness.py SRC   (SRC: any of these, or a folder of images and videos)

Needs NumPy and OpenCV (the GazeTracking environment Scripts/setup-peers.sh makes has both) and
FFmpeg. labels.csv (or the .tag files) is copied unchanged; videos are written again with H.264 at CRF 12, images in
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

from standin_landmarks import landmarks_per_frame  # noqa: E402 (after the import check above)
from face_standins import hand as gray_hand  # noqa: E402

IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
VIDEO_EXTENSIONS = (".avi", ".mp4", ".mkv", ".mov", ".webm", ".wmv", ".mpg", ".mpeg")
SHIFT = 3  # sub-pixel bits of OpenCV's drawing


def fixed(point):
    return (int(round(point[0] * (1 << SHIFT))), int(round(point[1] * (1 << SHIFT))))



def eye_centres(landmarks, options):
    """Where the glasses sit: each eye's contour mean, or with --steady its corners' midpoint (which
    the lids do not move)."""
    if options.steady > 0:
        return (landmarks[36] + landmarks[39]) / 2, (landmarks[42] + landmarks[45]) / 2
    return landmarks[36:42].mean(axis=0), landmarks[42:48].mean(axis=0)


def steadied(frames, count):
    """Each frame's landmarks as the mean of the found ones within `count` frames either side (glasses
    sit still on a head; the fit's jitter would shake them, and a blink's lids would pull them)."""
    if count <= 0:
        return frames
    result = []
    for index in range(len(frames)):
        near = [f for f in frames[max(0, index - count):index + count + 1] if f is not None]
        result.append(None if frames[index] is None or not near else np.mean(near, axis=0))
    return result


def outline(image, centre, ux, uy, radius, options, colour, thickness):
    """One lens's outline (thickness > 0) or area (-1): a circle, or a rectangle `radius` wide and
    `options.height` × radius / options.radius high to each side of `centre`."""
    if options.shape == "round":
        angle = math.degrees(math.atan2(ux[1], ux[0]))
        cv2.ellipse(image, fixed(centre), fixed((radius, radius)), angle, 0, 360, colour, thickness, cv2.LINE_AA, SHIFT)
        return
    half = radius * options.height / options.radius
    corners = [centre + sx * radius * ux + sy * half * uy for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    points = np.array([fixed(c) for c in corners], np.int32).reshape(-1, 1, 2)
    if thickness < 0:
        cv2.fillPoly(image, [points], colour, cv2.LINE_AA, SHIFT)
    else:
        cv2.polylines(image, [points], True, colour, thickness, cv2.LINE_AA, SHIFT)


def with_hand(image, landmarks):
    """`image` (BGR) with a hand at the chin, each channel in its own cheek's level."""
    return np.dstack([gray_hand(np.ascontiguousarray(image[..., channel]), landmarks) for channel in range(3)])


def draw(image, landmarks, options, target=None):
    """`image` (BGR) with glasses drawn where `landmarks` put the eyes; `target` (x, y as fractions of
    the screen) places the screen's reflection with --screen-reflection."""
    if options.no_glasses:
        return image
    height, width = image.shape[:2]
    right, left = eye_centres(landmarks, options)
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
        outline(lens, centre, ux, uy, radius, options, 255, -1)
        band = centre - uy * 0.1 * radius
        cv2.ellipse(reflection, fixed(band), fixed((0.55 * radius, 0.22 * radius)), angle - 15, 0, 360, 255, -1,
                    cv2.LINE_AA, SHIFT)
    on_lens = (lens / 255.0)[..., None]
    on_band = (reflection / 255.0)[..., None] * on_lens
    picture = image.astype(np.float32)
    picture = picture * (1 - options.haze * on_lens) + 255 * options.haze * on_lens
    picture = picture * (1 - options.reflection * on_band) + 235 * options.reflection * on_band
    if options.screen_reflection > 0 and target is not None:
        spot = np.zeros((height, width), np.uint8)
        for centre in centres:
            place = centre + ux * 0.55 * radius * (0.5 - target[0]) * 2 + uy * 0.45 * radius * (target[1] - 0.5) * 2
            cv2.ellipse(spot, fixed(place), fixed((0.22 * radius, 0.16 * radius)), angle, 0, 360, 255, -1,
                        cv2.LINE_AA, SHIFT)
        on_spot = (spot / 255.0)[..., None] * on_lens
        picture = picture * (1 - options.screen_reflection * on_spot) + 252 * options.screen_reflection * on_spot
    out = np.clip(picture, 0, 255).astype(np.uint8)
    if options.glint:
        for centre in centres:
            spot = centre + ux * 0.3 * radius - uy * 0.25 * radius
            cv2.circle(out, fixed(spot), int(max(1.0, 0.05 * distance) * (1 << SHIFT)), (255, 255, 255), -1,
                       cv2.LINE_AA, SHIFT)
    rim = (25, 25, 28)
    thickness = max(1, int(round(options.rim * distance)))
    for centre in centres:
        outline(out, centre, ux, uy, radius, options, rim, thickness)
    inner = [centres[0] + ux * radius - uy * 0.3 * radius, centres[1] - ux * radius - uy * 0.3 * radius]
    cv2.line(out, fixed(inner[0]), fixed(inner[1]), rim, thickness, cv2.LINE_AA, SHIFT)
    cv2.line(out, fixed(centres[0] - ux * radius), fixed(landmarks[0]), rim, thickness, cv2.LINE_AA, SHIFT)
    cv2.line(out, fixed(centres[1] + ux * radius), fixed(landmarks[16]), rim, thickness, cv2.LINE_AA, SHIFT)
    return out


def hand_on(index, options):
    """Whether frame `index` of a video gets a hand: the first `--hand` share of every five runs."""
    if options.hand <= 0:
        return False
    return (index // options.hand_run) % 5 < round(5 * options.hand)


def target_at(windows, time):
    """The target (fractions of the screen) shown at `time`: the window holding it, else the last
    one before it, else None."""
    shown = None
    for start, end, point in windows:
        if start <= time:
            shown = point
        if start <= time < end:
            break
    return shown


def copy_image(source, target, frames, options, windows=()):
    image = cv2.imread(source, cv2.IMREAD_COLOR)
    if image is None:
        sys.exit(f"draw_glasses: cannot read the image {source}")
    if frames and frames[0] is not None:
        if options.hand > 0:
            image = with_hand(image, frames[0])
        image = draw(image, frames[0], options, windows[0][2] if windows else None)
    if not cv2.imwrite(target, image):
        sys.exit(f"draw_glasses: cannot write {target}")


def copy_video(source, target, frames, options, windows=()):
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
            if hand_on(index, options) and face is not None:
                image = with_hand(image, face)
            image = draw(image, last, options, target_at(windows, index / rate))
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
    parser.add_argument("--screen-reflection", type=float, default=0.0,
                        help="opacity of a bright patch on each lens that moves with the target (labels.csv; default 0: none)")
    parser.add_argument("--hand", type=float, default=0.0,
                        help="share of a video's frames with a hand at the chin, in fifths (default 0: none)")
    parser.add_argument("--hand-run", type=int, default=50, help="frames per run of hand or no hand (default 50)")
    parser.add_argument("--no-glasses", action="store_true", help="draw no glasses (with --hand: the hand alone)")
    parser.add_argument("--shape", choices=("round", "rectangle"), default="round",
                        help="round lenses, or rectangular thick frames (default round)")
    parser.add_argument("--height", type=float, default=0.26,
                        help="a rectangle's half height over the eyes' distance (default 0.26)")
    parser.add_argument("--steady", type=int, default=0,
                        help="videos: place the glasses from the eye corners, averaged over N frames either side "
                             "(default 0: each frame's eye contours)")
    parser.add_argument("--videos", help="with .tag files: the folder of their clips (default: beside them)")
    options = parser.parse_args()
    if os.path.abspath(options.source) == os.path.abspath(options.destination):
        sys.exit("draw_glasses: the destination must be another folder than the source")
    sources, copied = layout(options)
    targets = screen_targets(options.source)
    os.makedirs(options.destination, exist_ok=True)
    for name, source in sources:
        target = os.path.join(options.destination, name)
        if not os.path.isfile(source):
            sys.exit(f"draw_glasses: labels.csv names {name}, which is not in {options.source}")
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        frames = landmarks_per_frame(options.gazerec, source, "draw_glasses")
        if os.path.splitext(name)[1].lower() not in IMAGE_EXTENSIONS:
            frames = steadied(frames, options.steady)
        windows = targets.get(name, [])
        if os.path.splitext(name)[1].lower() in IMAGE_EXTENSIONS:
            copy_image(source, target, frames, options, windows)
        else:
            copy_video(source, target, frames, options, windows)
        found = sum(face is not None for face in frames)
        print(f"draw_glasses: {name}: drawn on {found} of {len(frames)} frames (faces found)", file=sys.stderr)
    for name in copied:
        shutil.copyfile(os.path.join(options.source, name), os.path.join(options.destination, name))


def screen_targets(source):
    """Per file of labels.csv, its targets as (start, end, (x, y) as fractions of the screen) in
    time order (an image's window is the whole image); empty without labels.csv."""
    labels = os.path.join(source, "labels.csv")
    if not os.path.isfile(labels):
        return {}
    targets = {}
    with open(labels, newline="") as handle:
        for row in csv.DictReader(handle):
            point = (float(row["x"]) / float(row["screen_width"]), float(row["y"]) / float(row["screen_height"]))
            start, end = float(row.get("start") or 0), float(row.get("end") or math.inf)
            targets.setdefault(row["file"], []).append((start, end, point))
    return {name: sorted(windows, key=lambda w: w[0]) for name, windows in targets.items()}


def layout(options):
    """The files to draw on as (name in the destination, source path), and the label files to copy."""
    labels = os.path.join(options.source, "labels.csv")
    if os.path.isfile(labels):
        with open(labels, newline="") as handle:
            files = sorted({row["file"] for row in csv.DictReader(handle)})
        for name in files:
            if not os.path.isfile(os.path.join(options.source, name)):
                sys.exit(f"draw_glasses: labels.csv names {name}, which is not in {options.source}")
        return [(name, os.path.join(options.source, name)) for name in files], ["labels.csv"]
    tags = sorted(f for f in os.listdir(options.source) if f.endswith(".tag")) if os.path.isdir(options.source) else []
    if not tags:
        listed = os.listdir(options.source) if os.path.isdir(options.source) else []
        media = sorted(f for f in listed if os.path.splitext(f)[1].lower() in IMAGE_EXTENSIONS | set(VIDEO_EXTENSIONS))
        if not media:
            sys.exit(f"draw_glasses: no labels.csv, .tag files, images or videos in {options.source} "
                     "(layouts: docs/Benchmarks.md)")
        return [(name, os.path.join(options.source, name)) for name in media], []
    videos, sources = options.videos or options.source, []
    for tag in tags:
        clip = next((tag[:-4] + e for e in VIDEO_EXTENSIONS if os.path.isfile(os.path.join(videos, tag[:-4] + e))), None)
        if clip is None:
            sys.exit(f"draw_glasses: no clip for {tag} in {videos}")
        sources.append((os.path.splitext(clip)[0] + ".mp4", os.path.join(videos, clip)))
    return sources, tags


if __name__ == "__main__":
    main()
