#!/usr/bin/env python3
"""What drawn glasses or a hand do to gazerec's landmarks and head pose, frame by frame.

For every file named in CLEAN/labels.csv (or every image and video in CLEAN) and its copy of the
same name in each DRAWN folder (made by Scripts/draw_glasses.py from CLEAN), runs `gazerec analyze
--landmarks` on both and compares each frame with a face in both. Printed per DRAWN folder (median
/ 90th percentile / largest over the frames):

- corners: the eye corners the patches are sampled on (36, 39, 42, 45), mean displacement, in % of
  the clean frame's outer-corner distance (36 to 45); `inner` the inner corners (39, 42) alone,
  `bridge` the nose bridge (27-30), `jaw` the jaw line (0-16), `mouth` (48-67);
- yaw, pitch, roll: the change of the head pose (degrees) the patches are read with;
- frames: with a face in the clean copy, in the drawn copy, and compared.

    Scripts/standin_displacement.py CLEAN DRAWN [DRAWN ...] [--gazerec BIN] [--json FILE]

NumPy and the gazerec binary only.
"""
import argparse
import csv
import json
import os

import numpy as np

from standin_landmarks import analysed_frames

GROUPS = {"corners": [36, 39, 42, 45], "inner": [39, 42], "bridge": [27, 28, 29, 30],
          "jaw": list(range(17)), "mouth": list(range(48, 68))}
MEDIA = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".mp4", ".avi", ".mkv", ".mov", ".webm")


def analysed(gazerec, path):
    """Per frame: (68 x 2 landmarks, (yaw, pitch, roll)) or None without a face."""
    return analysed_frames(gazerec, path, "standin_displacement")


def files_of(folder):
    labels = os.path.join(folder, "labels.csv")
    if os.path.isfile(labels):
        with open(labels, newline="") as handle:
            return sorted({row["file"] for row in csv.DictReader(handle)})
    return sorted(f for f in os.listdir(folder) if f.lower().endswith(MEDIA))


def summary(values):
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    return {"median": float(np.median(values)), "p90": float(np.percentile(values, 90)), "max": float(values.max())}


def compare(clean, drawn):
    """Per-frame displacements (% of outer-corner distance) and pose changes over the frames both found."""
    measures = {name: [] for name in list(GROUPS) + ["yaw", "pitch", "roll"]}
    for a, b in zip(clean, drawn):
        if a is None or b is None:
            continue
        scale = np.linalg.norm(a[0][45] - a[0][36])
        for name, indices in GROUPS.items():
            measures[name].append(100 * np.linalg.norm(b[0][indices] - a[0][indices], axis=1).mean() / scale)
        for k, name in enumerate(("yaw", "pitch", "roll")):
            measures[name].append(abs(b[1][k] - a[1][k]))
    return measures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clean")
    parser.add_argument("drawn", nargs="+")
    parser.add_argument("--gazerec", default="gazerec")
    parser.add_argument("--json")
    options = parser.parse_args()
    files = files_of(options.clean)
    clean = {name: analysed(options.gazerec, os.path.join(options.clean, name)) for name in files}
    report = {}
    for folder in options.drawn:
        measures, counts = {}, [0, 0, 0]
        for name in files:
            drawn = analysed(options.gazerec, os.path.join(folder, name))
            counts[0] += sum(f is not None for f in clean[name])
            counts[1] += sum(f is not None for f in drawn)
            counts[2] += sum(a is not None and b is not None for a, b in zip(clean[name], drawn))
            for key, values in compare(clean[name], drawn).items():
                measures.setdefault(key, []).extend(values)
        report[folder] = {"frames": {"clean": counts[0], "drawn": counts[1], "compared": counts[2]},
                          **{key: summary(values) for key, values in measures.items()}}
        line = [f"{os.path.basename(os.path.normpath(folder))}: frames with a face {counts[0]} clean, {counts[1]} drawn,"
                f" {counts[2]} compared"]
        for key, unit in [(k, "%") for k in GROUPS] + [(k, "°") for k in ("yaw", "pitch", "roll")]:
            s = report[folder][key]
            if s:
                line.append(f"{key} {s['median']:.2f} / {s['p90']:.2f} / {s['max']:.2f}{unit}")
        print(";  ".join(line))
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(report, handle, indent=1)


if __name__ == "__main__":
    main()
