#!/usr/bin/env bash
# Prints the path of a sample face video for recording without a camera, making it if needed.
#   1. ../shared/fixtures/video/cap13_blinks_20s.mp4 when that folder exists (a real webcam clip);
#   2. otherwise samples/astronaut.mp4, made once with FFmpeg from the public-domain NASA portrait
#      of Eileen Collins that scikit-image ships (downloaded from PyPI, only that image is kept).
set -euo pipefail
cd "$(dirname "$0")/.."
fixture="../shared/fixtures/video/cap13_blinks_20s.mp4"
if [ -f "$fixture" ]; then
  echo "$fixture"
  exit 0
fi
mkdir -p samples
out="samples/astronaut.mp4"
if [ ! -f "$out" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "gazerec: fetching the public-domain astronaut portrait (scikit-image wheel) for a sample clip" >&2
  python3 -m pip download --quiet --no-deps --only-binary=:all: scikit-image -d "$work" >&2
  python3 - "$work" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/scikit_image-*.whl")[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[1] + "/astronaut.png", "wb") as f:
    f.write(z.read("skimage/data/astronaut.png"))
PY
  # 12 s at 30 fps, 640×480, with a slow zoom so the face moves as it would in front of a webcam.
  ffmpeg -v error -y -loop 1 -i "$work/astronaut.png" -t 12 \
    -vf "scale=1280:1280,zoompan=z='1+0.15*sin(on/60)':x='iw/2-(iw/zoom/2)+40*sin(on/45)':y='ih/2-(ih/zoom/2)':d=1:s=640x480:fps=30,format=yuv420p" \
    -c:v libx264 -crf 20 "$out"
fi
echo "$out"
