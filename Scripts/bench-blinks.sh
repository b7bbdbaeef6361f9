#!/usr/bin/env bash
# Blink detection on labelled clips, scored as events: gazerec's per-frame blink flag beside a
# naive per-clip threshold on the same eye aspect ratios, in one run.
#   Scripts/bench-blinks.sh [LABEL_DIR [--videos VIDEO_DIR]] [--rules round2,round3,held,bothEyes,…] [--jobs N] [--json FILE]
# LABEL_DIR holds Eyeblink8-style NAME.tag files and, unless --videos says where, the clips
# NAME.avi/.mp4/.mpg/… beside them (docs/Benchmarks.md), directly or in one subfolder per condition
# (figures per condition too; Scripts/blink-standins.sh makes such a folder). Without arguments: the hand-labelled shared
# webcam clips (Tests/BlinkLabels, clips in ../shared/fixtures/video).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
Scripts/setup-models.sh
swift build -c release --product gazerec >&2
gazerec="$(swift build -c release --show-bin-path)/gazerec"
if [ $# -eq 0 ]; then
  [ -d ../shared/fixtures/video ] || { echo "bench-blinks: no ../shared/fixtures/video; give a labelled folder" >&2; exit 1; }
  set -- Tests/BlinkLabels --videos ../shared/fixtures/video
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
exec python3 Scripts/bench_blinks.py --gazerec "$gazerec" "$@"
