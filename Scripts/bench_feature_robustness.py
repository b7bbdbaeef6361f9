#!/usr/bin/env python3
"""How much drawn rims or a hand disturb each gaze feature set, against the feature's own spread.

For every image and video of DIR (the files named in labels.csv, the clips of NAME.tag files, or
every image and video in the folder: docs/Benchmarks.md) and its copy of the same name in each
disturbed folder, `gazerec-bench robustness` runs the real vision pipeline on both and compares
them frame by frame: per linear feature set and feature, the feature's standard deviation over the
clean frames (its spread across the clip), and over the frames both copies read the mean
(`offset`, what a calibration made with the disturbance present learns away) and the standard
deviation (`varying`, what it cannot) of drawn − clean; per landmark group the same in pixels.

Printed per disturbed copy:
- per feature set and part (eyeLine: roll, the eyes' distance and midpoint; pose: yaw and pitch;
  shape; patches; detail; the nose-frame candidates' noseLine and nosePose), the varying part
  over the spread, as the root mean square over the part's features (what a ridge map on
  standardised features sees), and the signal-to-disturbance ratio SDR = spread ÷ varying (its
  inverse) for the whole set; the offset over the spread beside it;
- the landmark groups an eye patch could be aligned to (the corners it is aligned to now, their
  midpoints, the corners steadied over ±5 frames, the brows, nose bridge, nose base, jaw, mouth):
  offset and varying part in % of the clean eye's width (corner to corner: one patch column is
  6.25 %), the group's spread across the clip in the same unit, and spread ÷ varying;
- the `patches` set's varying ÷ spread per patch pixel (both eyes, 16 × 8), where the disturbance sits.

Beside the RMS figures, `robust` gives the set's SDR from median absolute deviations (the typical
frame, not the few where the fit slides off), and with a copy named `none` (re-encoded, nothing
drawn: the floor every drawn copy shares) `beyond` the varying part beyond that floor.

Images count for the landmarks only (one frame has no spread). Without --copy NAME=DIR it draws
three copies itself with Scripts/draw_glasses.py (needs a Python with NumPy and OpenCV: --draw-python):
`none` (nothing drawn, written again as the others are), `rims` (round rims, haze, the fixed
reflection and a glint, placed from corners steadied over 5 frames, and with labels.csv a bright
patch that moves with the target, opacity 0.8) and `hand` (a hand at the chin on 4 of every 5 runs
of 50 frames, no glasses).

    Scripts/bench_feature_robustness.py DIR --gazerec BIN --bench BENCH [--model DAT]
        [--copy NAME=DIR ...] [--draw-python PY] [--keep DIR] [--json FILE] [--sets REGEX]
    Scripts/bench-feature-robustness.sh DIR [options]   (builds both binaries, release)
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")
VIDEOS = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".wmv", ".mpg", ".mpeg")
GROUPS = ("corners", "cornerMidpoints", "steadiedCorners", "eyeContours", "brows", "noseBridge", "noseBase", "jaw", "mouth")


def fail(message, status=1):
    print(f"bench_feature_robustness: {message}", file=sys.stderr)
    sys.exit(status)


def files_of(folder):
    """The files to compare, relative to `folder`, in its layout."""
    labels = os.path.join(folder, "labels.csv")
    if os.path.isfile(labels):
        with open(labels, newline="") as handle:
            return sorted({row["file"] for row in csv.DictReader(handle)})
    listed = os.listdir(folder)
    tags = [f[:-4] for f in listed if f.endswith(".tag")]
    if tags:
        return sorted(next(t + e for e in VIDEOS if os.path.isfile(os.path.join(folder, t + e))) for t in tags
                      if any(os.path.isfile(os.path.join(folder, t + e)) for e in VIDEOS))
    return sorted(f for f in listed if f.lower().endswith(IMAGES + VIDEOS))


def drawn_copies(options, work):
    """The disturbed copies as (name, folder): given, or drawn here."""
    if options.copy:
        copies = []
        for item in options.copy:
            name, _, folder = item.partition("=")
            if not name or not os.path.isdir(folder):
                fail(f"--copy {item}: give NAME=FOLDER with an existing folder", 64)
            copies.append((name, folder))
        return copies
    if not options.draw_python:
        fail("no --copy NAME=DIR given, and no --draw-python (a Python with NumPy and OpenCV) to draw them", 64)
    labelled = os.path.isfile(os.path.join(options.directory, "labels.csv"))
    recipes = [("none", ["--no-glasses"]),
               ("rims", ["--glint", "--steady", "5"] + (["--screen-reflection", "0.8"] if labelled else [])),
               ("hand", ["--no-glasses", "--hand", "0.8"])]
    copies = []
    for name, arguments in recipes:
        target = os.path.join(work, name)
        subprocess.run([options.draw_python, os.path.join(HERE, "draw_glasses.py"), options.directory, target,
                        "--gazerec", options.gazerec, *arguments], check=True)
        copies.append((name, target))
    return copies


def measured(options, clean, drawn):
    """`gazerec-bench robustness` on one clean file and its copies: one report per copy."""
    result = subprocess.run([options.bench, "robustness", options.model, clean, *drawn], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"gazerec-bench robustness failed on {clean}: {result.stderr.strip()[-300:]}")
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def pooled_ratios(reports, name, key, over="spread"):
    """Per feature of set `name`: the root of the paired-frame-weighted mean over videos of
    (key ÷ over)²; None where no video had both."""
    weights, sums = 0, None
    for report in reports:
        entry = report["sets"][name]
        frames = entry["pairedFrames"]
        if frames < 2 or entry["cleanFrames"] < 2:
            continue
        ratios = [(v / s) ** 2 if s > 1e-9 else None for v, s in zip(entry[key], entry[over])]
        if sums is None:
            sums = [0.0] * len(ratios)
            counts = [0] * len(ratios)
        for k, r in enumerate(ratios):
            if r is not None:
                sums[k] += frames * r
                counts[k] += frames
        weights += frames
    if not weights:
        return None
    return [math.sqrt(s / c) if c else None for s, c in zip(sums, counts)]


def robust_ratios(reports, name):
    """Per feature of set `name`: robustVarying ÷ robustSpread (median absolute deviations), pooled
    as pooled_ratios does."""
    for report in reports:
        entry = report["sets"][name]
        entry["robustRatio"] = [v / s if s > 1e-9 else 0.0 for v, s in zip(entry["robustVarying"], entry["robustSpread"])]
        entry["unit"] = [1.0] * len(entry["robustRatio"])
    return pooled_ratios(reports, name, "robustRatio", "unit")


def rms(values):
    values = [v for v in values if v is not None]
    return math.sqrt(sum(v * v for v in values) / len(values)) if values else float("nan")


def set_table(copy, reports, pattern, floor=None):
    print(f"\n{copy}: feature sets, varying part of drawn − clean over the clean spread (root mean square over "
          "the part's features; lower is steadier), SDR = spread ÷ varying over the whole set, offset ÷ spread, "
          "robust = the SDR from median absolute deviations (the typical frame)"
          + ("; beyond = the varying part beyond the copy `none`'s (re-encoding alone): √(varying² − none²)" if floor else ""))
    names = [n for n in reports[0]["sets"] if re.search(pattern, n)]
    frames = sum(r["sets"][names[0]]["pairedFrames"] for r in reports) if names else 0
    clean = sum(r["sets"][names[0]]["cleanFrames"] for r in reports) if names else 0
    print(f"  {frames} frames compared over {len(reports)} videos, of {clean} clean frames `{names[0] if names else '—'}` "
          "reads (the rest the copy lost: no face, eyes judged shut, tracking not steady)")
    print(f"  {'set':<22} {'SDR':>6} {'varying':>8} {'offset':>7} {'robust':>7}" + (f" {'beyond':>7}" if floor else "")
          + "   parts (varying ÷ spread)")
    rows = {}
    for name in names:
        varying, offset = pooled_ratios(reports, name, "varying"), pooled_ratios(reports, name, "offset")
        if varying is None:
            continue
        parts, start = [], 0
        for part, count in reports[0]["sets"][name]["parts"]:
            parts.append(f"{part} {rms(varying[start:start + int(count)]):.2f}")
            start += int(count)
        total = rms(varying)
        typical = robust_ratios(reports, name)
        robust = rms(typical)
        rows[name] = {"sdr": 1 / total if total > 0 else float("inf"), "varying": total, "offset": rms(offset),
                      "robustSdr": 1 / robust if robust > 0 else float("inf"), "parts": parts}
        beyond = ""
        if floor and name in floor:
            excess = math.sqrt(max(0.0, total ** 2 - floor[name]["varying"] ** 2))
            rows[name]["beyondNone"] = excess
            beyond = f" {excess:>7.3f}"
        print(f"  {name:<22} {rows[name]['sdr']:>6.2f} {total:>8.3f} {rms(offset):>7.3f} {rows[name]['robustSdr']:>7.2f}{beyond}   "
              + ", ".join(parts))
    return rows


def point_table(copy, reports):
    print(f"\n{copy}: landmarks, % of the clean eye's width (one patch column = 6.25 %): offset, varying part "
          "(root mean square, and its median), spread across the clip, spread ÷ varying")
    print(f"  {'group':<16} {'offset':>7} {'varying':>8} {'median':>7} {'spread':>7} {'ratio':>6}")
    rows = {}
    for group in GROUPS:
        weight = offset = varying = spread = typical = 0.0
        for report in reports:
            points, width = report["points"], report["points"]["eyeWidthPixels"]
            frames = points[group]["pairedFrames"]
            if not frames or width <= 0:
                continue
            weight += frames
            offset += frames * 100 * points[group]["offsetPixels"] / width
            varying += frames * 100 * points[group]["varyingPixels"] / width
            spread += frames * 100 * points[group]["spreadPixels"] / width
            typical += frames * 100 * points[group]["medianVaryingPixels"] / width
        if not weight:
            continue
        offset, varying, spread, typical = offset / weight, varying / weight, spread / weight, typical / weight
        rows[group] = {"offset": offset, "varying": varying, "medianVarying": typical, "spread": spread}
        ratio = spread / varying if varying > 0 else float("inf")
        print(f"  {group:<16} {offset:>7.1f} {varying:>8.1f} {typical:>7.1f} {spread:>7.1f} {ratio:>6.1f}")
    return rows


def pixel_map(copy, reports):
    varying = pooled_ratios(reports, "patches", "varying")
    if varying is None:
        return
    print(f"\n{copy}: `patches`, varying ÷ spread per pixel (participant's left eye, then right; rows top to bottom)")
    for eye, label in ((0, "left"), (1, "right")):
        for row in range(8):
            cells = varying[6 + eye * 128 + row * 16:6 + eye * 128 + row * 16 + 16]
            print(f"  {label if row == 0 else '':<6}" + " ".join(f"{c:4.2f}" if c is not None else "   —" for c in cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--gazerec", default="gazerec", help="the gazerec binary (places the drawn glasses)")
    parser.add_argument("--bench", required=True, help="the gazerec-bench binary")
    parser.add_argument("--model", default=os.environ.get("GAZEREC_MODEL", "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"))
    parser.add_argument("--copy", action="append", default=[], help="NAME=FOLDER: a disturbed copy of DIR (same file names)")
    parser.add_argument("--draw-python", help="a Python with NumPy and OpenCV, to draw the copies with draw_glasses.py")
    parser.add_argument("--keep", help="keep the drawn copies in this folder")
    parser.add_argument("--json", help="also write every comparison and the tables to this file")
    parser.add_argument("--sets", default=".", help="only feature sets whose name matches this regular expression")
    options = parser.parse_args()
    if not os.path.isdir(options.directory):
        fail(f"no folder {options.directory}", 64)
    files = files_of(options.directory)
    if not files:
        fail(f"no images or videos in {options.directory} (layouts: docs/Benchmarks.md)")
    with tempfile.TemporaryDirectory(prefix="feature-robustness-") as temporary:
        work = options.keep or temporary
        os.makedirs(work, exist_ok=True)
        copies = drawn_copies(options, work)
        for name, folder in copies:
            missing = [f for f in files if not os.path.isfile(os.path.join(folder, f))]
            if missing:
                fail(f"the copy {name} ({folder}) has no {missing[0]}")
        by_copy = {name: [] for name, _ in copies}
        for index, file in enumerate(files, start=1):
            print(f"\rbench_feature_robustness: {index}/{len(files)} files", end="", file=sys.stderr, flush=True)
            reports = measured(options, os.path.join(options.directory, file), [os.path.join(f, file) for _, f in copies])
            for (name, _), report in zip(copies, reports):
                by_copy[name].append(report)
        print(file=sys.stderr)
    print(f"feature robustness: {options.directory}, {len(files)} files, copies: {', '.join(n for n, _ in copies)}")
    tables = {}
    order = sorted(by_copy, key=lambda n: n != "none")
    for name in order:
        reports = by_copy[name]
        videos = [r for r in reports if r["frames"] > 1]
        tables[name] = {"points": point_table(name, reports)}
        if videos:
            floor = tables.get("none", {}).get("sets") if name != "none" else None
            tables[name]["sets"] = set_table(name, videos, options.sets, floor)
            pixel_map(name, videos)
    if options.json:
        with open(options.json, "w") as handle:
            json.dump({"files": files, "reports": by_copy, "tables": tables}, handle)


if __name__ == "__main__":
    main()
