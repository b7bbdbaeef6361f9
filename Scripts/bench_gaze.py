#!/usr/bin/env python3
"""Calibrated gaze accuracy on real frames with known targets: gazerec beside EyeTrax.

Reads DIR/labels.csv (layout in docs/Benchmarks.md), splits every session's targets twice in a
checkerboard (half calibrate, half validate, then the other way round), builds one clip and one
calibration script per fold, runs the real `gazerec calibrate --input CLIP --script SCRIPT`, and,
when a Python with EyeTrax is given, EyeTrax on the same frames and windows. Prints per-session and
overall validation error in screen points, % of screen width and, where the geometry is known,
degrees of visual angle: failed folds, mean, median, 75th and 90th percentile, per session, per
target column and row (quarters of the screen's width and height), and gazerec's folds grouped by
the feature set each chose and by how many targets it skipped; with --bench, every rule for
choosing the feature set (and each candidate set) refitted on the same frames, and each beside the
shipped rule with the noise of the folds. Run through Scripts/bench-gaze.sh.
"""

import argparse
import concurrent.futures
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def fail(message):
    print(f"bench-gaze: {message}", file=sys.stderr)
    sys.exit(1)


class Target:
    def __init__(self, row, line, directory):
        def number(name, required=True):
            text = (row.get(name) or "").strip()
            if not text:
                if required:
                    fail(f"labels.csv line {line}: no {name}. Every row needs session, file, x, y, screen_width, screen_height.")
                return None
            try:
                return float(text)
            except ValueError:
                fail(f"labels.csv line {line}: {name} '{text}' is not a number.")

        self.session = (row.get("session") or "").strip()
        if not self.session:
            fail(f"labels.csv line {line}: no session.")
        file = (row.get("file") or "").strip()
        self.path = os.path.join(directory, file)
        if not os.path.isfile(self.path):
            fail(f"labels.csv line {line}: no file {file} under {directory}.")
        self.x, self.y = number("x"), number("y")
        self.screen = (number("screen_width"), number("screen_height"))
        self.start, self.end = number("start", False), number("end", False)
        self.is_image = self.path.lower().endswith(IMAGE_EXTENSIONS)
        if not self.is_image and (self.start is None or self.end is None or self.end <= self.start):
            fail(f"labels.csv line {line}: {file} is a video: give start and end (seconds, end > start).")
        mm = [number(n, False) for n in ("screen_width_mm", "screen_height_mm", "distance_mm")]
        self.geometry = tuple(mm) if all(v is not None for v in mm) else None


def read_labels(directory):
    path = os.path.join(directory, "labels.csv")
    if not os.path.isfile(path):
        fail(f"no labels.csv in {directory} (layout: docs/Benchmarks.md).")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        sessions = {}
        for line, row in enumerate(reader, start=2):
            target = Target(row, line, directory)
            sessions.setdefault(target.session, []).append(target)
    if not sessions:
        fail(f"{path} has no rows.")
    return sessions


def checkerboard_folds(targets):
    """Two folds: targets whose grid cell (rank of x, rank of y) has even parity calibrate, the rest validate; then swapped."""
    xs = sorted({t.x for t in targets})
    ys = sorted({t.y for t in targets})
    parity = [(xs.index(t.x) + ys.index(t.y)) % 2 for t in targets]
    even = [t for t, p in zip(targets, parity) if p == 0]
    odd = [t for t, p in zip(targets, parity) if p == 1]
    return [("even", even, odd), ("odd", odd, even)]


def random_draws(targets, count, size, seed):
    """`count` small calibrations drawn from one session: `size` random targets calibrate and
    `size` others validate (in labels.csv order within each), as a short calibration would."""
    import random
    generator = random.Random(seed)
    draws = []
    for index in range(count):
        chosen = generator.sample(range(len(targets)), 2 * size)
        calibration = [targets[i] for i in sorted(chosen[:size])]
        validation = [targets[i] for i in sorted(chosen[size:])]
        draws.append((f"d{index:02d}", calibration, validation))
    return draws


def build_fold(work, name, calibration, validation, hold, fps, settle):
    """Writes the fold's clip (every target's frames, calibration targets first) and its script."""
    screen = calibration[0].screen
    segments = []
    lines = ["# bench-gaze fold", f"screen {int(screen[0])}x{int(screen[1])}", f"settle {settle:g}"]
    frames_per_target = max(1, round(hold * fps))
    half_frame = 0.5 / fps
    time = 0.0
    for kind, targets in (("calibrate", calibration), ("validate", validation)):
        for target in targets:
            segment = os.path.join(work, f"{name}-{len(segments):03d}.mkv")
            if target.is_image:
                source = ["-loop", "1", "-framerate", str(fps), "-i", target.path, "-frames:v", str(frames_per_target)]
                duration = frames_per_target / fps
            else:
                source = ["-ss", str(target.start), "-to", str(target.end), "-i", target.path, "-r", str(fps)]
                duration = None
            subprocess.run(["ffmpeg", "-v", "error", "-y", *source, "-c:v", "ffv1", "-pix_fmt", "bgr0", segment], check=True)
            if duration is None:
                probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                        "stream=nb_read_frames", "-of", "csv=p=0", segment],
                                       check=True, capture_output=True, text=True)
                duration = int(probe.stdout.strip()) / fps
            segments.append(segment)
            lines.append(f"{kind} {target.x:g} {target.y:g} {time:.4f} {time + duration - half_frame:.4f}")
            time += duration
    listing = os.path.join(work, f"{name}.txt")
    with open(listing, "w") as f:
        f.writelines(f"file '{s}'\n" for s in segments)
    clip = os.path.join(work, f"{name}.mkv")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", listing, "-c", "copy", clip], check=True)
    for s in segments:
        os.remove(s)
    script = os.path.join(work, f"{name}.script")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    return clip, script


def visual_angle(geometry, screen, a, b):
    """Degrees between two screen points seen from an eye facing the screen's centre."""
    width_mm, height_mm, distance = geometry

    def direction(p):
        return ((p[0] / screen[0] - 0.5) * width_mm, (p[1] / screen[1] - 0.5) * height_mm, distance)

    u, v = direction(a), direction(b)
    dot = sum(i * j for i, j in zip(u, v))
    norm = math.sqrt(sum(i * i for i in u)) * math.sqrt(sum(i * i for i in v))
    return math.degrees(math.acos(max(-1.0, min(1.0, dot / norm))))


def run_gazerec(gazerec, clip, script, work, name, minimum_samples, extra, bench=None):
    database = os.path.join(work, f"{name}.sqlite")
    command = [gazerec, "calibrate", "--database", database, "--input", clip, "--script", script,
               "--minimum-samples", str(minimum_samples), *extra]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        lines = [line for line in result.stderr.strip().splitlines() if line.strip()]
        return {"error": lines[-1] if lines else f"exit {result.returncode}"}
    identifier = result.stdout.strip()
    shown = subprocess.run([gazerec, "calibrations", "show", "--database", database, identifier, "--json"],
                           capture_output=True, text=True, check=True)
    document = json.loads(shown.stdout)
    model = document.get("model", {})
    feature_set = model.get("featureSet") or ("pupilPolynomial" if model.get("kind") == "ridgePolynomial2" else "?")
    skipped = sum(1 for t in document["targets"] if t["kind"] == "calibration" and t.get("skipped"))
    targets = []
    for target in document["targets"]:
        if target["kind"] != "validation":
            continue
        if target.get("samples", 0) == 0 or target.get("meanGazeX") is None:
            targets.append({"x": target["x"], "y": target["y"], "samples": 0})
        else:
            targets.append({"x": target["x"], "y": target["y"], "samples": target["samples"],
                            "accuracyPoints": target["accuracyPoints"]})
    result = {"targets": targets, "featureSet": feature_set, "skipped": skipped}
    if model.get("blend"):
        result["blend"] = model["blend"]
    if bench:
        rules = run_rules(gazerec, bench, database, identifier, work, name, minimum_samples)
        if rules is not None:
            result["rules"] = rules
    return result


def run_rules(gazerec, bench, database, identifier, work, name, minimum_samples):
    """Every rule for choosing among the feature sets refitted on this fold's stored frames
    (`gazerec-bench choice`): each rule's validation targets, or its error."""
    document = os.path.join(work, f"{name}.calibration.json")
    try:
        subprocess.run([gazerec, "calibrations", "export", "--database", database, identifier, "--output", document],
                       check=True, capture_output=True, text=True)
        refitted = subprocess.run([bench, "choice", "--minimum-samples", str(minimum_samples), document],
                                  check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as error:
        print(f"bench-gaze: {name}: the rules could not be refitted: {(error.stderr or '').strip()[-200:]}",
              file=sys.stderr)
        return None
    finally:
        if os.path.exists(document):
            os.remove(document)
    lines = refitted.stdout.splitlines()
    if not lines:
        print(f"bench-gaze: {name}: gazerec-bench choice printed nothing", file=sys.stderr)
        return None
    return json.loads(lines[0])["rules"]


def run_peer(python, runner, clip, script):
    result = subprocess.run([python, runner, clip, script], capture_output=True, text=True)
    if result.returncode != 0:
        lines = [line for line in result.stderr.strip().splitlines() if line.strip()]
        return {"error": lines[-1] if lines else f"exit {result.returncode}"}
    return json.loads(result.stdout)


def summarise(label, folds):
    """Mean and median over validation targets (points, % of width, degrees), folds calibrated."""
    errors_pct, errors_pt, errors_deg = [], [], []
    calibrated = 0
    unsampled = 0
    for fold in folds:
        result = fold[label]
        if "error" in result:
            continue
        calibrated += 1
        for target in result["targets"]:
            if target["samples"] == 0:
                unsampled += 1
                continue
            errors_pt.append(target["accuracyPoints"])
            errors_pct.append(100 * target["accuracyPoints"] / fold["screen"][0])
            if "accuracyDegrees" in target:
                errors_deg.append(target["accuracyDegrees"])
    return calibrated, errors_pt, errors_pct, errors_deg, unsampled


def percentile(values, fraction):
    """Linear interpolation between order statistics (numpy's default)."""
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = int(math.floor(position))
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def errors_pct(fold, label, keep=lambda target: True):
    """Validation errors (% of screen width) of one fold's targets with samples."""
    result = fold[label]
    if "error" in result:
        return []
    return [100 * t["accuracyPoints"] / fold["screen"][0] for t in result["targets"] if t["samples"] and keep(t)]


def row_of(fold, target):
    """Which quarter of the screen's height a target lies in (0 = top)."""
    return min(3, max(0, int(4 * target["y"] / fold["screen"][1])))


def column_of(fold, target):
    """Which quarter of the screen's width a target lies in (0 = left)."""
    return min(3, max(0, int(4 * target["x"] / fold["screen"][0])))


QUARTERS = (("column", column_of, ["left quarter", "second", "third", "right quarter"]),
            ("row", row_of, ["top quarter", "second", "third", "bottom quarter"]))


def distribution(values):
    if not values:
        return "—"
    return (f"mean {statistics.mean(values):.2f}, median {statistics.median(values):.2f}, "
            f"75th {percentile(values, 0.75):.2f}, 90th {percentile(values, 0.9):.2f}")


def report_common_folds(folds, labels):
    """The headline comparison: both systems over the folds both calibrate, and the ratio."""
    common = [fold for fold in folds if all("error" not in fold[label] for label in labels)]
    a, b = ([e for fold in common for e in errors_pct(fold, label)] for label in labels)
    print(f"  over the {len(common)} folds both calibrate:")
    for label, values in zip(labels, (a, b)):
        print(f"    {label:<8} {distribution(values)}")
    if a and b:
        print(f"    {labels[0]} ÷ {labels[1]}: mean {statistics.mean(a) / statistics.mean(b):.2f}, "
              f"median {statistics.median(a) / statistics.median(b):.2f}, "
              f"90th {percentile(a, 0.9) / percentile(b, 0.9):.2f}")


def report_breakdowns(folds, labels):
    """The issue's table: per label the distribution, then per session, per target row and per feature set."""
    pooled = {label: [e for fold in folds for e in errors_pct(fold, label)] for label in labels}
    print()
    print("validation error, % of screen width, over validation targets with samples")
    for label in labels:
        failed = sum(1 for fold in folds if "error" in fold[label])
        print(f"  {label:<8} {len(folds) - failed} of {len(folds)} folds calibrate; {distribution(pooled[label])}")
    if len(labels) == 2:
        report_common_folds(folds, labels)
    print()
    print(f"{'per session (mean %W)':<28}" + "".join(f" {label:>9}" for label in labels))
    for session in sorted({fold["session"] for fold in folds}):
        cells = []
        for label in labels:
            values = [e for fold in folds if fold["session"] == session for e in errors_pct(fold, label)]
            cells.append(f" {statistics.mean(values):>9.2f}" if values else f" {'—':>9}")
        print(f"{session:<28}" + "".join(cells))
    for kind, quarter_of, names in QUARTERS:
        print()
        print(f"{f'per target {kind} (mean %W)':<28}" + "".join(f" {label:>9}" for label in labels))
        for quarter, name in enumerate(names):
            cells = []
            for label in labels:
                values = [e for fold in folds
                          for e in errors_pct(fold, label, lambda t, f=fold, q=quarter: quarter_of(f, t) == q)]
                cells.append(f" {statistics.mean(values):>9.2f}" if values else f" {'—':>9}")
            print(f"{name:<28}" + "".join(cells))
    print()
    print("gazerec's folds by the feature set each chose (mean, worst fold mean, % of width)")
    by_set = {}
    for fold in folds:
        result = fold["gazerec"]
        if "error" in result:
            continue
        values = errors_pct(fold, "gazerec")
        if values:
            by_set.setdefault(result.get("featureSet", "?"), []).append(statistics.mean(values))
    for name, means in sorted(by_set.items(), key=lambda item: -len(item[1])):
        print(f"  {name:<18} {len(means):>3} folds, mean {statistics.mean(means):.2f}, worst {max(means):.2f}")
    skipped = [fold["gazerec"].get("skipped", 0) for fold in folds if "error" not in fold["gazerec"]]
    if any(skipped):
        print(f"  folds that skipped targets: {sum(1 for n in skipped if n)} ({sum(skipped)} targets)")


def report_rules(folds):
    """Each rule for choosing among the feature sets, refitted on the same frames of every fold
    gazerec calibrated: its error over the validation targets, and per fold its error over the
    best single set's (the best that was available to that fold)."""
    folds = [fold for fold in folds if "rules" in fold["gazerec"]]
    if not folds:
        return
    names = list(folds[0]["gazerec"]["rules"].keys())

    def fold_errors(fold, name):
        result = fold["gazerec"]["rules"][name]
        if "error" in result:
            return None
        return [100 * t["accuracyPoints"] / fold["screen"][0] for t in result["targets"] if t["samples"]]

    print()
    print(f"rules for choosing the feature set, refitted on the frames of the {len(folds)} folds gazerec calibrated "
          "(% of screen width; 'vs best' = the fold's mean over that of the best single set for it; a rule that "
          "fails a fold is measured over the others)")
    print(f"  {'rule':<22} {'folds':>5} {'mean':>6} {'median':>6} {'75th':>6} {'90th':>6} {'worst fold':>10} "
          f"{'vs best: median':>15} {'90th':>5} {'worst':>6}  sets chosen")
    for name in names:
        pooled, means, ratios, sets = [], [], [], {}
        for fold in folds:
            errors = fold_errors(fold, name)
            if not errors:
                continue
            pooled += errors
            means.append(statistics.mean(errors))
            single = [statistics.mean(e) for e in (fold_errors(fold, n) for n in names if n.startswith("only.")) if e]
            if single and min(single) > 0:
                ratios.append(statistics.mean(errors) / min(single))
            result = fold["gazerec"]["rules"][name]
            chosen = "blend" if result.get("blend") else result["set"]
            sets[chosen] = sets.get(chosen, 0) + 1
        failed = sum(1 for fold in folds if "error" in fold["gazerec"]["rules"][name])
        if not pooled:
            print(f"  {name:<22} {0:>5}  ({failed} failed)")
            continue
        chosen = ", ".join(f"{k} {v}" for k, v in sorted(sets.items(), key=lambda item: -item[1]))
        print(f"  {name:<22} {len(means):>5} {statistics.mean(pooled):>6.2f} {statistics.median(pooled):>6.2f} "
              f"{percentile(pooled, 0.75):>6.2f} {percentile(pooled, 0.9):>6.2f} {max(means):>10.2f} "
              f"{statistics.median(ratios) if ratios else float('nan'):>15.2f} "
              f"{percentile(ratios, 0.9) if ratios else float('nan'):>5.2f} {max(ratios) if ratios else float('nan'):>6.2f}  {chosen}"
              + (f"; fails {failed}" if failed else ""))
    report_rules_against_shipped(folds, names)


def report_rules_against_shipped(folds, names):
    """Each rule beside `shipped` on the folds both calibrate: the mean of the per-fold
    differences of their mean errors with twice its standard error (the noise of the folds), the
    folds it wins and loses, and its mean per target column quarter (the screen's edges)."""
    if "shipped" not in names:
        return

    def fold_mean(fold, name):
        result = fold["gazerec"]["rules"][name]
        if "error" in result:
            return None
        values = [100 * t["accuracyPoints"] / fold["screen"][0] for t in result["targets"] if t["samples"]]
        return statistics.mean(values) if values else None

    print()
    print("each rule against 'shipped' on the folds both calibrate (% of screen width): the mean per-fold "
          "difference ± twice its standard error, folds better / worse, and the mean per target column quarter")
    print(f"  {'rule':<22} {'folds':>5} {'difference':>16} {'better':>6} {'worse':>6}   "
          f"{'left':>6} {'second':>6} {'third':>6} {'right':>6}")
    for name in names:
        pairs = [(fold_mean(f, name), fold_mean(f, "shipped")) for f in folds]
        pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
        if not pairs:
            continue
        differences = [a - b for a, b in pairs]
        spread = 2 * statistics.stdev(differences) / math.sqrt(len(differences)) if len(differences) > 1 else float("nan")
        quarters = []
        for quarter in range(4):
            values = [e for fold in folds if "error" not in fold["gazerec"]["rules"][name]
                      for e in (100 * t["accuracyPoints"] / fold["screen"][0] for t in fold["gazerec"]["rules"][name]["targets"]
                                if t["samples"] and column_of(fold, t) == quarter)]
            quarters.append(f" {statistics.mean(values):>6.2f}" if values else f" {'—':>6}")
        band = f"{spread:<6.2f}" if not math.isnan(spread) else f"{'—':<6}"
        print(f"  {name:<22} {len(pairs):>5} {statistics.mean(differences):>+7.2f} ± {band} "
              f"{sum(1 for d in differences if d < 0):>6} {sum(1 for d in differences if d > 0):>6}  " + "".join(quarters))


def describe(values, unit, digits=1):
    if not values:
        return "—"
    return f"{statistics.mean(values):.{digits}f} {unit} ({statistics.median(values):.{digits}f})"


def add_degrees(fold, label):
    """Degrees per validation target from its accuracy in points is not exact (the error has a
    direction); with a geometry the runners' mean gaze is used instead when present."""
    if fold["geometry"] is None or "error" in fold[label]:
        return
    for target in fold[label]["targets"]:
        if target["samples"] and "meanGazeX" in target:
            target["accuracyDegrees"] = visual_angle(fold["geometry"], fold["screen"], (target["x"], target["y"]),
                                                     (target["meanGazeX"], target["meanGazeY"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("--gazerec", required=True)
    parser.add_argument("--peer-python", help="a Python with eyetrax and mediapipe (runs EyeTrax beside gazerec)")
    parser.add_argument("--bench", help="gazerec-bench: also refit every fold with each rule for choosing the feature set")
    parser.add_argument("--hold", type=float, default=0.6, help="seconds each image is shown (default 0.6)")
    parser.add_argument("--fps", type=int, default=30, help="clip frame rate (default 30)")
    parser.add_argument("--settle", type=float, default=0, help="seconds at the start of each target not collected (default 0)")
    parser.add_argument("--minimum-samples", type=int, default=4)
    parser.add_argument("--sessions", default="", help="only sessions whose name matches this regular expression")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", help="also write every fold's result to this file")
    parser.add_argument("--keep", help="keep every fold's clip, script and database in this folder")
    parser.add_argument("--gazerec-arg", action="append", default=[], help="an extra argument for gazerec calibrate")
    parser.add_argument("--draws", type=int, default=0,
                        help="instead of the checkerboard halves, this many random small calibrations per session "
                             "(--draw-targets calibrate, as many others validate)")
    parser.add_argument("--draw-targets", type=int, default=8, help="targets per side of a random draw (default 8)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random draws (default 1)")
    args = parser.parse_args()

    sessions = read_labels(args.directory)
    if args.sessions:
        sessions = {k: v for k, v in sessions.items() if re.search(args.sessions, k)}
        if not sessions:
            fail(f"no session matches '{args.sessions}'.")
    runner = os.path.join(HERE, "peers", "eyetrax_calibrate.py")

    with tempfile.TemporaryDirectory(prefix="bench-gaze-") as temporary:
        work = temporary
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            work = args.keep
        jobs = []
        for session, targets in sorted(sessions.items()):
            if len({t.screen for t in targets}) != 1:
                fail(f"session {session}: rows disagree on the screen size.")
            if args.draws:
                if len(targets) < 2 * args.draw_targets:
                    print(f"bench-gaze: session {session} has {len(targets)} targets, fewer than 2 × {args.draw_targets}: "
                          "left out of the draws", file=sys.stderr)
                    continue
                folds_of_session = random_draws(targets, args.draws, args.draw_targets, f"{args.seed}/{session}")
            else:
                folds_of_session = checkerboard_folds(targets)
            for fold_name, calibration, validation in folds_of_session:
                jobs.append((session, fold_name, calibration, validation))

        def run(job):
            session, fold_name, calibration, validation = job
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{session}-{fold_name}")
            clip, script = build_fold(work, name, calibration, validation, args.hold, args.fps, args.settle)
            fold = {"session": session, "fold": fold_name, "screen": calibration[0].screen,
                    "geometry": calibration[0].geometry,
                    "calibrationTargets": len(calibration), "validationTargets": len(validation)}
            fold["gazerec"] = run_gazerec(args.gazerec, clip, script, work, name, args.minimum_samples, args.gazerec_arg,
                                          args.bench)
            if args.peer_python:
                fold["eyetrax"] = run_peer(args.peer_python, runner, clip, script)
            if not args.keep:
                os.remove(clip)
            return fold

        folds = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for done, fold in enumerate(pool.map(run, jobs), start=1):
                folds.append(fold)
                print(f"\rbench-gaze: {done}/{len(jobs)} folds", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)

    labels = ["gazerec"] + (["eyetrax"] if args.peer_python else [])
    for fold in folds:
        for label in labels:
            add_degrees(fold, label)

    split = (f"{args.draws} random draws of {args.draw_targets} + {args.draw_targets} targets per session, seed {args.seed}"
             if args.draws else "checkerboard halves")
    print(f"gaze benchmark: {args.directory}, {len(sessions)} sessions, {len(folds)} folds "
          f"({split}), each image held {args.hold} s at {args.fps} fps, minimum {args.minimum_samples} samples")
    header = f"{'session':<24} {'fold':<5}" + "".join(f" {label + ' %W':>12}" for label in labels) + "  gazerec set (skipped)"
    print(header)
    for fold in folds:
        cells = []
        for label in labels:
            result = fold[label]
            if "error" in result:
                cells.append(f" {'failed':>12}")
            else:
                values = errors_pct(fold, label)
                cells.append(f" {statistics.mean(values) if values else float('nan'):>12.1f}")
        chosen = fold["gazerec"]
        choice = "" if "error" in chosen else f"  {chosen.get('featureSet', '?')} ({chosen.get('skipped', 0)})"
        print(f"{fold['session']:<24} {fold['fold']:<5}" + "".join(cells) + choice)
    print()
    summary = {}
    for label in labels:
        calibrated, pt, pct, deg, unsampled = summarise(label, folds)
        summary[label] = statistics.mean(pct) if pct else None
        print(f"{label}: {calibrated} of {len(folds)} folds calibrate; validation error over {len(pct)} targets "
              f"(mean (median)): {describe(pct, '% of width')}, {describe(pt, 'pt')}"
              + (f", {describe(deg, '°', 2)}" if deg else "")
              + (f"; {unsampled} validation targets without samples" if unsampled else ""))
    if args.peer_python and summary.get("eyetrax") and summary.get("gazerec"):
        print(f"gazerec ÷ eyetrax (mean % of width): {summary['gazerec'] / summary['eyetrax']:.2f}")
    report_breakdowns(folds, labels)
    report_rules(folds)
    failures = {}
    for fold in folds:
        for label in labels:
            if "error" in fold[label]:
                failures.setdefault((label, fold[label]["error"][:160]), []).append(f"{fold['session']}/{fold['fold']}")
    for (label, error), where in sorted(failures.items()):
        print(f"{label} failed {len(where)}×: {error}  [{', '.join(where[:4])}{' …' if len(where) > 4 else ''}]")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(folds, f, indent=1)


if __name__ == "__main__":
    main()
