#!/usr/bin/env python3
"""Measurements behind the seating thresholds of `gazerec position` (docs/Recording.md,
"Seating the participant").

    python3 Scripts/bench_seating.py scaled LAYOUT OUT [--scales 100,85,70,55,40]
        Copies a Scripts/bench-gaze.sh layout (labels.csv and its videos) with every video shrunk
        to each scale (percent) and padded with black to its own frame size: the same person
        farther from the camera. Run Scripts/bench_gaze.py on each OUT/scaleN, and this script's
        `eyes` on it for the eye widths.
    python3 Scripts/bench_seating.py eyes --gazerec BIN DIR...
        Median eye width (px) that `gazerec position --json` reports on each video of each DIR.
    python3 Scripts/bench_seating.py light --gazerec BIN CLIP OUT
        Darkened and backlit copies of CLIP (FFmpeg filters, sensor noise added after darkening);
        per copy: the face's brightness and contrast (`position`), the share of frames with a face,
        their median landmark confidence, and the median distance of the landmarks from those found
        on CLIP itself, in percent of the distance between the eyes (`analyze --landmarks`).
    python3 Scripts/bench_seating.py pose --gazerec BIN CLIP...
        Frames of the clips by head yaw and by pitch (`analyze`): how many, their median landmark
        confidence and the share below the 0.35 of `lowConfidence`.
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess

# Exposure scaled by the factor, then noise of a fixed amplitude (a darker picture is noisier).
DARK = [1.0, 0.6, 0.4, 0.3, 0.25, 0.2, 0.15]
# The face (centre) darkened to the factor while the picture brightens towards its edges: a
# window behind the participant with the camera exposing for it.
BACKLIT = [0.8, 0.6, 0.45, 0.3]
# Exposure raised by the factor (clipping at white).
BRIGHT = [1.5, 2.0, 2.5]


def background_minus_face(video, frames):
    """Median over frames with a face of the mean luma around the landmarks' box minus the mean
    inside it (0..1), sampled as gazerec samples it (32 x 24 points over the picture, 32 x 32 in the box)."""
    import numpy
    width, height = size(video)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", video, "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         check=True, capture_output=True).stdout
    pictures = numpy.frombuffer(raw, dtype=numpy.uint8).reshape(-1, height, width)
    differences = []
    for picture, frame in zip(pictures, frames):
        if not frame.get("face"):
            continue
        xs = [frame[f"x{i}"] for i in range(68)]
        ys = [frame[f"y{i}"] for i in range(68)]
        x0, x1 = max(0, int(min(xs))), min(width - 1, int(max(xs)))
        y0, y1 = max(0, int(min(ys))), min(height - 1, int(max(ys)))
        inside = picture[y0:y1 + 1:max(1, (y1 - y0) // 32), x0:x1 + 1:max(1, (x1 - x0) // 32)]
        step_x, step_y = max(1, width // 32), max(1, height // 24)
        grid_y, grid_x = numpy.mgrid[step_y // 2:height:step_y, step_x // 2:width:step_x]
        outside = ~((grid_x >= x0) & (grid_x <= x1) & (grid_y >= y0) & (grid_y <= y1))
        differences.append((picture[grid_y, grid_x][outside].mean() - inside.mean()) / 255)
    return statistics.median(differences) if differences else None


def ffmpeg(source, target, vf):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", source, "-vf", vf, "-c:v", "libx264", "-crf", "10",
                    "-pix_fmt", "yuv420p", target], check=True)


def size(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                          "-of", "csv=p=0", path], check=True, capture_output=True, text=True).stdout
    width, height = out.strip().split(",")[:2]
    return int(width), int(height)


def position(gazerec, video):
    out = subprocess.run([gazerec, "position", "--json", "--input", video, "--hold", "100000"],
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def median_of(lines, key):
    values = [line[key] for line in lines if line.get(key) is not None]
    return statistics.median(values) if values else None


def scaled(args):
    with open(os.path.join(args.layout, "labels.csv")) as handle:
        files = sorted({row["file"] for row in csv.DictReader(handle)})
    for scale in [int(s) for s in args.scales.split(",")]:
        folder = os.path.join(args.out, f"scale{scale}")
        os.makedirs(folder, exist_ok=True)
        shutil.copy(os.path.join(args.layout, "labels.csv"), folder)
        for name in files:
            source = os.path.join(args.layout, name)
            width, height = size(source)
            ffmpeg(source, os.path.join(folder, name),
                   f"scale=trunc(iw*{scale}/200)*2:trunc(ih*{scale}/200)*2,pad={width}:{height}:(ow-iw)/2:(oh-ih)/2:black")
        print(folder)


def eyes(args):
    for folder in args.dirs:
        for name in sorted(os.listdir(folder)):
            if name.endswith((".mp4", ".mkv", ".avi", ".mov")):
                lines = position(args.gazerec, os.path.join(folder, name))
                print(f"{folder}/{name}: eye width median {median_of(lines, 'eyeWidthPixels')} px, "
                      f"face in {sum(l['face'] for l in lines)} of {len(lines)} s")


def analyzed(gazerec, video):
    out = subprocess.run([gazerec, "analyze", "--input", video, "--landmarks", "--quiet"], capture_output=True,
                         text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def landmark_shift(frame, reference):
    """Mean distance of the 68 landmarks from the reference frame's, over its eyes' distance, %."""
    def points(f):
        return [(f[f"x{i}"], f[f"y{i}"]) for i in range(68)]
    ours, theirs = points(frame), points(reference)
    left = [sum(theirs[i][k] for i in range(42, 48)) / 6 for k in (0, 1)]
    right = [sum(theirs[i][k] for i in range(36, 42)) / 6 for k in (0, 1)]
    eyes = ((left[0] - right[0]) ** 2 + (left[1] - right[1]) ** 2) ** 0.5
    shift = sum(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 for a, b in zip(ours, theirs)) / 68
    return 100 * shift / eyes


def light(args):
    os.makedirs(args.out, exist_ok=True)
    reference = analyzed(args.gazerec, args.clip)
    copies = [(f"dark{int(f * 100)}", f"lutyuv=y=val*{f},noise=alls=4:allf=t") for f in DARK]
    copies += [(f"backlit{int(f * 100)}", "geq=lum='clip(" + str(f) + "*p(X,Y)+255*min(1,pow(hypot(X-W/2,Y-H/2)/(0.5*W),2)),0,255)'"
                + ":cb=128:cr=128") for f in BACKLIT]
    copies += [(f"bright{int(f * 100)}", f"lutyuv=y=val*{f}") for f in BRIGHT]
    print("copy | brightness | contrast | backlight | frames with a face | median confidence | landmark shift % | advice")
    for name, vf in copies:
        target = os.path.join(args.out, name + ".mp4")
        ffmpeg(args.clip, target, vf)
        lines = position(args.gazerec, target)
        frames = analyzed(args.gazerec, target)
        with_face = [f for f in frames if f.get("face")]
        confidence = statistics.median(f["confidence"] for f in with_face) if with_face else 0
        shifts = [landmark_shift(f, r) for f, r in zip(frames, reference) if f.get("face") and r.get("face")]
        shift = f"{statistics.median(shifts):.1f}" if shifts else "-"
        backlight = background_minus_face(target, frames)
        backlight = f"{backlight:.3f}" if backlight is not None else "-"
        advice = sorted({l["advice"].split(":")[0] for l in lines if l["advice"]})
        print(f"{name} | {median_of(lines, 'brightness')} | {median_of(lines, 'contrast')} | {backlight} | "
              f"{len(with_face)}/{len(frames)} | {confidence:.3f} | {shift} | {', '.join(advice) or 'ok'}")


def pose(args):
    frames = [f for clip in args.clips for f in analyzed(args.gazerec, clip) if f.get("yawDegrees") is not None]
    for key, edges in (("yawDegrees", [0, 5, 10, 15, 20, 90]), ("pitchDegrees", [-90, 0, 10, 15, 20, 25, 30, 90])):
        print(f"{key} | frames | median confidence | below 0.35")
        for low, high in zip(edges, edges[1:]):
            values = [f["confidence"] for f in frames
                      if low <= (abs(f[key]) if key == "yawDegrees" else f[key]) < high]
            if values:
                below = sum(v < 0.35 for v in values) / len(values)
                print(f"{low}..{high} | {len(values)} | {statistics.median(values):.3f} | {100 * below:.0f} %")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("scaled")
    p.add_argument("layout")
    p.add_argument("out")
    p.add_argument("--scales", default="100,85,70,55,40")
    p = commands.add_parser("eyes")
    p.add_argument("--gazerec", required=True)
    p.add_argument("dirs", nargs="+")
    p = commands.add_parser("light")
    p.add_argument("--gazerec", required=True)
    p.add_argument("clip")
    p.add_argument("out")
    p = commands.add_parser("pose")
    p.add_argument("--gazerec", required=True)
    p.add_argument("clips", nargs="+")
    args = parser.parse_args()
    {"scaled": scaled, "eyes": eyes, "light": light, "pose": pose}[args.command](args)


if __name__ == "__main__":
    main()
