#!/usr/bin/env bash
# Stand-ins for the blink conditions the shared clips lack, made from their real frames: a camera
# below the face looking up, thick black frames, round glasses. Writes OUT/plain, OUT/looking-up,
# OUT/thick-frames and OUT/round-glasses (clips and their NAME.tag labels) for
# Scripts/bench-blinks.sh OUT.
#   Scripts/blink-standins.sh OUT [--gazerec BIN] [--python PY]
# looking-up: the frame seen from below (FFmpeg's perspective filter narrows its top by 10 % a side)
# and squashed to 70 % and 55 % of its height, so the eyes' aperture and the lids are foreshortened.
# thick-frames: Scripts/draw_glasses.py's rectangular frames, rims 0.10 and 0.14 of the eyes'
# distance, their upper bar between the upper lid and the brow, held steady on the face (--steady 5).
# round-glasses: draw_glasses.py's round glasses as they are by default, and with rims 0.10 and a
# glint on each lens (held steady too). The labels are the clips' own
# (Tests/BlinkLabels): neither changes a frame's time. PY needs NumPy and OpenCV (default: the
# GazeTracking environment of Scripts/setup-peers.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: Scripts/blink-standins.sh OUT [--gazerec BIN] [--python PY]" >&2; exit 64; }
out=$1; shift
gazerec="" python=.build-peers/gazetracking/bin/python
while [ $# -gt 0 ]; do
  case $1 in
    --gazerec) gazerec=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    *) echo "blink-standins: unknown option $1" >&2; exit 64 ;;
  esac
done
videos=../shared/fixtures/video
[ -d "$videos" ] || { echo "blink-standins: no $videos (the shared clips)" >&2; exit 1; }
"$python" -c "import cv2, numpy" 2>/dev/null || { echo "blink-standins: $python lacks NumPy or OpenCV (run Scripts/setup-peers.sh or give --python)" >&2; exit 1; }
if [ -z "$gazerec" ]; then
  swift build -c release --product gazerec >&2
  gazerec="$(swift build -c release --show-bin-path)/gazerec"
fi
clips="cap13_blinks_20s cap12_headturns_20s"
mkdir -p "$out/plain" "$out/looking-up" "$out/thick-frames" "$out/round-glasses" "$out/.source"
for clip in $clips; do
  cp Tests/BlinkLabels/$clip.tag "$out/plain/"
  cp "$videos/$clip.mp4" "$out/plain/"
  cp Tests/BlinkLabels/$clip.tag "$out/.source/"
  cp "$videos/$clip.mp4" "$out/.source/"
  for squash in 70 55; do
    cp Tests/BlinkLabels/$clip.tag "$out/looking-up/$clip-up$squash.tag"
    ffmpeg -v error -y -i "$videos/$clip.mp4" \
      -vf "perspective=x0=W*0.1:y0=0:x1=W*0.9:y1=0:x2=0:y2=H:x3=W:y3=H:sense=destination,scale=iw:trunc(ih*$squash/200)*2" \
      -c:v libx264 -qp 0 -pix_fmt yuv420p "$out/looking-up/$clip-up$squash.mp4"
  done
done
for rim in 07 09; do
  "$python" Scripts/draw_glasses.py "$out/.source" "$out/.frames$rim" --gazerec "$gazerec" --shape rectangle \
    --rim 0.$rim --radius 0.45 --height 0.34 --reflection 0.15 --haze 0.06 --steady 5
  for clip in $clips; do
    mv "$out/.frames$rim/$clip.mp4" "$out/thick-frames/$clip-frames$rim.mp4"
    mv "$out/.frames$rim/$clip.tag" "$out/thick-frames/$clip-frames$rim.tag"
  done
  rm -r "$out/.frames$rim"
done
for style in round round-heavy; do
  options="--steady 5"
  [ $style = round-heavy ] && options="--steady 5 --rim 0.10 --glint"
  "$python" Scripts/draw_glasses.py "$out/.source" "$out/.$style" --gazerec "$gazerec" $options
  for clip in $clips; do
    mv "$out/.$style/$clip.mp4" "$out/round-glasses/$clip-$style.mp4"
    mv "$out/.$style/$clip.tag" "$out/round-glasses/$clip-$style.tag"
  done
  rm -r "$out/.$style"
done
rm -r "$out/.source"
echo "blink-standins: $(ls "$out"/*/*.tag | wc -l) labelled clips in $out (plain, looking-up, thick-frames, round-glasses)" >&2
