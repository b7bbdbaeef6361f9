#!/usr/bin/env python3
"""Blink detection on labelled clips: gazerec's per-frame blink flag, scored as events.

Takes a folder of Eyeblink8-style label files (`NAME.tag`: after `#start`, one line per frame
`frameID : blinkID : …`, blinkID >= 0 on the frames of a blink), directly or, in a folder with no
.tag file of its own, in one subfolder per condition (`looking-up/`, `thick-frames/`, …: figures are then also printed per condition), and,
beside them or in --videos (or its subfolder of the condition's name), the clips they label (`NAME.avi`, `.mp4`, `.mkv`, `.mov`, `.webm`, `.wmv`, `.mpg`, `.mpeg`). Every clip goes through
`gazerec analyze`; its `blink` column gives flagged runs of frames. A labelled blink counts as found
when a flagged run touches it (shares a frame), a flagged run is right when it touches a labelled
blink. Prints precision, recall and F1 per clip and overall, beside a naive per-clip threshold on
the same eye aspect ratios (both eyes' mean EAR below 0.8 x the clip's median), measured in the
same run. Then gazerec's blink events (`analyze --events`: blinks and long closures) matched to the
labelled blinks one to one, so two blinks reported as one event count one missed: what a blink
count or rate taken from the events rests on. Run through Scripts/bench-blinks.sh.

--rules round2,round3,… runs each candidate blink rule (GazeCore's BlinkRule, handed to
`gazerec analyze` through GAZEREC_BENCH_BLINK_RULE) on the same clips and prints each one's figures,
then one line per candidate and condition, so a labelled folder can rank them.
"""

import argparse
import concurrent.futures
import csv
import io
import json
import os
import statistics
import subprocess
import sys

VIDEO_EXTENSIONS = (".avi", ".mp4", ".mkv", ".mov", ".webm", ".wmv", ".mpg", ".mpeg")


def fail(message):
    print(f"bench-blinks: {message}", file=sys.stderr)
    sys.exit(1)


def read_tag(path):
    """Labelled events as (first, last) frame indices from the clip's first frame."""
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip().lower().startswith("#start"))
    except StopIteration:
        fail(f"{path}: no #start line (Eyeblink8 .tag format)")
    frames = []
    for number, line in enumerate(lines[start + 1:], start + 2):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(":")]
        try:
            frames.append((int(fields[0]), int(fields[1])))
        except (ValueError, IndexError):
            fail(f"{path}:{number}: expected 'frameID : blinkID : …', got '{line[:40]}'")
    if not frames:
        fail(f"{path}: no frames after #start")
    first = frames[0][0]  # the file's first frame is the clip's first (0- or 1-based alike)
    events, current = [], None
    for frame, blink in frames:
        index = frame - first
        if blink >= 0 and current and current[2] == blink and index == current[1] + 1:
            current[1] = index
        else:
            if current:
                events.append((current[0], current[1]))
            current = [index, index, blink] if blink >= 0 else None
    if current:
        events.append((current[0], current[1]))
    return events


def runs(flags):
    """Runs of consecutive True frames as (first, last)."""
    result, start = [], None
    for index, flag in enumerate(flags + [False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            result.append((start, index - 1))
            start = None
    return result


def score(labels, found):
    touches = lambda a, b: a[0] <= b[1] and b[0] <= a[1]
    hit_labels = sum(1 for label in labels if any(touches(label, run) for run in found))
    right_runs = sum(1 for run in found if any(touches(run, label) for label in labels))
    return {"labels": len(labels), "found": hit_labels, "runs": len(found), "rightRuns": right_runs}


def score_one_to_one(labels, events):
    """Events matched to labelled blinks one to one (a maximum matching of overlapping pairs), so
    two blinks reported as one event count one missed."""
    overlaps = lambda a, b: a[0] <= b[1] and b[0] <= a[1]
    matched_event_of_label = {}

    def augment(event, seen):
        for label in range(len(labels)):
            if overlaps(labels[label], events[event]) and label not in seen:
                seen.add(label)
                if label not in matched_event_of_label or augment(matched_event_of_label[label], seen):
                    matched_event_of_label[label] = event
                    return True
        return False

    found = sum(1 for event in range(len(events)) if augment(event, set()))
    return {"labels": len(labels), "found": found, "runs": len(events), "rightRuns": found}


def figures(counts):
    precision = counts["rightRuns"] / counts["runs"] if counts["runs"] else 1.0
    recall = counts["found"] / counts["labels"] if counts["labels"] else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def analyse(gazerec, video, rule=None):
    env = dict(os.environ)
    if rule:
        env["GAZEREC_BENCH_BLINK_RULE"] = rule
    out = subprocess.run([gazerec, "analyze", "--input", video, "--format", "csv", "--quiet"],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        fail(f"gazerec analyze {video}: {out.stderr.strip()}")
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    flags = [row["blink"] == "1" for row in rows]
    ears = [(float(row["earLeft"]) + float(row["earRight"])) / 2 if row["earLeft"] and row["earRight"] else None
            for row in rows]
    known = [e for e in ears if e is not None]
    median = statistics.median(known) if known else 0
    naive = [e is not None and e < 0.8 * median for e in ears]
    times = [float(row["timestamp"]) for row in rows]
    out = subprocess.run([gazerec, "analyze", "--input", video, "--events", "--quiet"], capture_output=True, text=True,
                         env=env)
    if out.returncode != 0:
        fail(f"gazerec analyze --events {video}: {out.stderr.strip()}")
    events = []
    for line in out.stdout.splitlines():
        event = json.loads(line)
        if event.get("kind") != "blink" and event.get("kind") != "longClosure":
            continue
        frames = [i for i, t in enumerate(times) if event["start"] - 1e-6 <= t <= event["end"] + 1e-6]
        if frames:
            events.append((frames[0], frames[-1]))
    return flags, naive, events


def find_work(labels_dir, videos_dir):
    """(clip, condition, tag path, clip path) for every NAME.tag in `labels_dir` (condition None) or,
    when it holds none, in its subfolders (the subfolder's name is the condition; a clip lies in the
    videos folder's subfolder of the same name, or in the videos folder itself)."""
    work = []
    flat = any(f.endswith(".tag") for f in os.listdir(labels_dir))
    folders = [(None, "")] if flat else sorted(
        (d, d) for d in os.listdir(labels_dir) if os.path.isdir(os.path.join(labels_dir, d)))
    for condition, sub in folders:
        tags = sorted(f for f in os.listdir(os.path.join(labels_dir, sub)) if f.endswith(".tag"))
        places = [os.path.join(videos_dir, sub), videos_dir] if sub else [videos_dir]
        for tag in tags:
            stem = tag[:-4]
            video = next((os.path.join(place, stem + e) for place in places for e in VIDEO_EXTENSIONS
                          if os.path.isfile(os.path.join(place, stem + e))), None)
            if video is None:
                fail(f"no clip for {os.path.join(sub, tag)} in {' or '.join(places)} ({', '.join(VIDEO_EXTENSIONS)})")
            work.append((stem, condition, os.path.join(labels_dir, sub, tag), video))
    if not work:
        fail(f"no .tag files in {labels_dir} or its subfolders")
    return work


RULES = ("round2", "round3", "capped", "squareRoot", "shutOrScaled", "held", "bothEyes",
         "bothEyesHeld")  # GazeCore's BlinkRule, shipped first
SCORERS = (("gazerec", "gazerec flags, touch-overlap"), ("naive", "naive 0.8×median, touch-overlap"),
           ("events", "gazerec events, one to one"))


def add(totals, counts):
    for key in counts:
        totals[key] += counts[key]


def summary_line(name, clips, counts):
    p, r, f = figures(counts)
    missed, wrong = counts["labels"] - counts["found"], counts["runs"] - counts["rightRuns"]
    return (f"{name:32} over {clips} clips, {counts['labels']} labelled blinks: precision {p:.3f}, "
            f"recall {r:.3f}, F1 {f:.3f} ({missed} missed, {wrong} false)")


def report(results, title):
    """Prints one rule's figures per clip, overall and per condition; returns its totals and conditions."""
    empty = lambda: {"labels": 0, "found": 0, "runs": 0, "rightRuns": 0}
    totals = {name: empty() for name, _ in SCORERS}
    by_condition = {}
    clips = []
    if title:
        print(f"== rule {title}")
    print(f"{'clip':40} {'blinks':>6}  {'gazerec P/R/F1':>20}  {'naive 0.8×median P/R/F1':>26}")
    for stem, condition, labels, (flags, naive, events) in results:
        row = {"clip": stem, "condition": condition}
        scores = {"gazerec": score(labels, runs(flags)), "naive": score(labels, runs(naive)),
                  "events": score_one_to_one(labels, events)}
        group = by_condition.setdefault(condition, {"clips": 0, **{name: empty() for name, _ in SCORERS}})
        group["clips"] += 1
        for name, counts in scores.items():
            add(totals[name], counts)
            add(group[name], counts)
            row[name] = counts
        clips.append(row)
        cells = ["{:.3f}/{:.3f}/{:.3f}".format(*figures(scores[name])) for name in ("gazerec", "naive")]
        name = f"{condition}/{stem}" if condition else stem
        print(f"{name:40} {len(labels):6d}  {cells[0]:>20}  {cells[1]:>26}")
    print()
    for name, label in SCORERS:
        print(summary_line(label, len(results), totals[name]))
    if len(by_condition) > 1 or None not in by_condition:
        for name, label in SCORERS:
            print(f"\nby condition, {label}:")
            for condition, group in sorted(by_condition.items(), key=lambda item: item[0] or ""):
                print("  " + summary_line(condition or "(top folder)", group["clips"], group[name]))
    print()
    return {"clips": clips, "totals": totals, "conditions": {c or "": g for c, g in by_condition.items()}}


def compare(reports):
    """One line per candidate rule and condition: flags (touch-overlap) and events (one to one)."""
    print("candidates: P/R/F1 of the flags (touch-overlap) | of the events (one to one), missed/false of the flags")
    for rule, result in reports.items():
        groups = [("all", result["totals"])] + ([] if list(result["conditions"]) == [""] else
                                                sorted(result["conditions"].items()))
        for condition, group in groups:
            flags, events = group["gazerec"], group["events"]
            print(f"  {rule:12} {condition or '(top folder)':16} "
                  + "{:.3f}/{:.3f}/{:.3f} | ".format(*figures(flags)) + "{:.3f}/{:.3f}/{:.3f}".format(*figures(events))
                  + f"  {flags['labels'] - flags['found']}/{flags['runs'] - flags['rightRuns']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", help="folder of NAME.tag files, or of condition folders holding them")
    parser.add_argument("--videos", help="folder of the clips (default: beside the labels)")
    parser.add_argument("--gazerec", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rules", help="comma-separated candidate blink rules (" + ", ".join(RULES) + "); "
                        "default: the shipped rule")
    parser.add_argument("--json", help="write every clip's counts here (per rule with --rules)")
    args = parser.parse_args()
    work = find_work(args.labels, args.videos or args.labels)
    rules = [r.strip() for r in args.rules.split(",") if r.strip()] if args.rules else [None]
    unknown = [r for r in rules if r and r not in RULES]
    if unknown:
        fail(f"--rules: no rule {', '.join(unknown)}; the candidates are {', '.join(RULES)}")
    reports = {}
    for rule in rules:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda w: (w[0], w[1], read_tag(w[2]), analyse(args.gazerec, w[3], rule)), work))
        reports[rule or "shipped"] = report(results, rule)
    if args.rules:
        compare(reports)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(reports if args.rules else reports["shipped"], out, indent=1)


if __name__ == "__main__":
    main()
