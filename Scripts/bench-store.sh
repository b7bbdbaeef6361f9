#!/usr/bin/env bash
# Session-store benchmark: a synthetic one-hour 60 fps session (216,000 gaze and 432,000
# blend-shape samples) through `gazerec import` and `gazerec export`, with Foundation's
# JSONEncoder on the same session in the same run. Release build; prints its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
swift build -c release --product gazerec >&2
swift build -c release --product gazerec-bench >&2
bin="$(swift build -c release --show-bin-path)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d)"
"$bin/gazerec-bench" store "$bin/gazerec" "$work/store"
