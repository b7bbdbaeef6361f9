#!/usr/bin/env bash
# Draws the pictures of docs/Analysis.md's "Stimuli" section from synthetic data only: FFmpeg's
# test sources make the stimulus (a white 40-pixel box crossing a black 320×180 picture at 40
# pixels a second for 6 s), and two constructed sessions watch it (gaze on the box's centre,
# the second 0.3 s late and 12 pixels low; happy from 2 s to 4.5 s). Writes
# docs/images/stimulus-overlay.png (the overlay's frame at 3.5 s, the box drawn as a keyframed area) and
# docs/images/stimulus-timeline.png (their timeline in 0.25 s bins, and the highlight found).
# usage: Scripts/stimulus-pictures.sh   (GAZEREC_BIN: the binary; default the debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${GAZEREC_BIN:-}
if [[ -z "$bin" ]]; then
    swift build --product gazerec >&2
    bin=.build/debug/gazerec
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GAZEREC_DATABASE="$work/db.sqlite"
mkdir -p docs/images
ffmpeg -v error -f lavfi -i color=black:s=320x180:r=30:d=6 -f lavfi -i color=white:s=40x40:r=30:d=6 \
    -filter_complex "[0][1]overlay=x='20+40*t':y=70" -c:v ffv1 "$work/box.mkv"
python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
begin = 1_790_000_000.0
start = begin + 1  # the marker "video": playback starts 1 s into each session
for number, (lag, low) in enumerate([(0.0, 0.0), (0.3, 12.0)], start=1):
    times = [begin + i / 60 for i in range(480)]
    def point(time):
        t = time - start - lag
        if t < 0 or t >= 6 - lag:
            return (5.0, 5.0)
        return (100 + 2 * (20 + 40 * t + 20), 50 + 2 * (90 + low))
    happy = lambda time: 0.7 if 2 <= time - start < 4.5 else 0.1
    document = {
        "id": "5A000000-0000-0000-0000-00000000000%d" % number, "appID": "pictures",
        "beginTime": begin, "endTime": begin + 8,
        "deviceInfo": {"model": "synthetic", "screenSize": [1280, 800], "systemName": "Linux", "systemVersion": "6"},
        "scanPath": [{"x": point(t)[0], "y": point(t)[1], "timestamp": t, "orientation": 3} for t in times],
        "blendShapes": {},
        "gazerec": {"expressions": [{"timestamp": t, "neutral": 0.9 - happy(t), "happy": happy(t), "surprise": 0.1, "sad": 0,
                                     "angry": 0, "disgust": 0, "fear": 0} for t in times],
                    "markers": [{"timestamp": start, "label": "video"}]}}
    json.dump(document, open(f"{work}/s{number}.json", "w"))
EOF
"$bin" import "$work/s1.json" "$work/s2.json" > /dev/null
stimulus=(--all --stimulus "$work/box.mkv" --rect 100,50,640,360 --start video)
echo '[{"name": "box", "keyframes": [{"t": 0, "rect": [20, 70, 40, 40]}, {"t": 6, "rect": [260, 70, 40, 40]}]}]' > "$work/aois.json"
"$bin" stimulus overlay "${stimulus[@]}" --aois "$work/aois.json" --output "$work/overlay.mkv"
ffmpeg -v error -y -ss 3.5 -i "$work/overlay.mkv" -frames:v 1 docs/images/stimulus-overlay.png
"$bin" stimulus timeline "${stimulus[@]}" --bin 0.25 > "$work/timeline.csv"
"$bin" stimulus highlights "${stimulus[@]}" > "$work/highlights.csv"
python3 - "$work" > "$work/timeline.svg" <<'EOF'
import csv, sys
work = sys.argv[1]
rows = list(csv.DictReader(open(f"{work}/timeline.csv")))
highlight = next(csv.DictReader(open(f"{work}/highlights.csv")))
colours = ["#E69F00", "#56B4E9"]  # the overlay's first two participant colours
sessions = sorted({row["session"] for row in rows})
width, height, left, right = 640, 300, 56, 16
x = lambda seconds: left + seconds / 6 * (width - left - right)
panels = [("gaze x, stimulus pixels", "gazeXPixels", 0, 320, 20, 150), ("happy probability", "expressionHappyProbability", 0, 1, 185, 265)]
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
       f'<rect width="{width}" height="{height}" fill="white"/>',
       f'<rect x="{x(float(highlight["startSeconds"])):.1f}" y="14" width="{x(float(highlight["endSeconds"])) - x(float(highlight["startSeconds"])):.1f}" '
       f'height="256" fill="#fde8c8"/>',
       f'<text x="{x(float(highlight["startSeconds"])) + 4:.1f}" y="26" fill="#a05a00">highlight {highlight["startSeconds"]}–{highlight["endSeconds"]} s</text>']
for label, column, low, high, top, bottom in panels:
    y = lambda value: bottom - (value - low) / (high - low) * (bottom - top)
    out.append(f'<line x1="{left}" y1="{bottom}" x2="{width - right}" y2="{bottom}" stroke="#444"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#444"/>')
    out.append(f'<text x="{left + 4}" y="{top + 10}">{label}</text>')
    for value in (low, high):
        out.append(f'<text x="{left - 4}" y="{y(value) + 4:.1f}" text-anchor="end">{value:g}</text>')
    for session, colour in zip(sessions, colours):
        points = [(x(float(r["stimulusSeconds"]) + 0.125), y(float(r[column]))) for r in rows if r["session"] == session and r[column]]
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in points)}"/>')
for second in range(7):
    out.append(f'<text x="{x(second):.1f}" y="282" text-anchor="middle">{second}</text>')
out.append(f'<text x="{width / 2}" y="296" text-anchor="middle">stimulus seconds (0.25 s bins; one line per session)</text></svg>')
print("\n".join(out))
EOF
rsvg-convert "$work/timeline.svg" -o docs/images/stimulus-timeline.png
echo "wrote docs/images/stimulus-overlay.png and docs/images/stimulus-timeline.png" >&2
