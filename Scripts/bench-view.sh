#!/usr/bin/env bash
# Review-page benchmark (headless Chromium, chromium-driver): a constructed one-hour 60 fps session
# (Scripts/make_session.py, eye appearance included, as a recording stores it) imported SESSIONS
# (20) times under other ids, a 720p stimulus video (VP9, FFmpeg's test pattern), `gazerec view`
# serving them; prints the time to first paint of one session (from asking for its series to the
# first frame drawn with them, with the server's and the page's parts) and the frames per second
# the page draws while every session plays over the stimulus.
#
# Release build unless GAZEREC names a binary. BEFORE=PATH names a second binary (an earlier
# revision's) that serves the same database on a second port: the first paint is then measured on
# both, alternating, ROUNDS (3) times each, in one run.
# Usage: [SESSIONS=N] [GAZEREC=PATH] [BEFORE=PATH] [ROUNDS=N] Scripts/bench-view.sh [SECONDS] (3600).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-3600}"
sessions="${SESSIONS:-20}"
if [ -z "${GAZEREC:-}" ]; then
  swift build -c release --product gazerec >&2
  GAZEREC="$(swift build -c release --show-bin-path)/gazerec"
fi
work="$(mktemp -d)"
servers=()
served=""
cleanup() {
  for pid in "${servers[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
export GAZEREC_DATABASE="$work/db.sqlite"
mkdir "$work/stimuli"
ffmpeg -v error -f lavfi -i "testsrc2=s=1280x720:r=30:d=60" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 2M "$work/stimuli/720p.webm"
# One session written once; each copy streams it into `gazerec import -` with its own id in place of
# the first (the document begins {"id":"<36 characters>"), so no copy of the file is written.
first=$(python3 Scripts/make_session.py "$seconds" 60 "$work/session.json")
head -c 45 "$work/session.json" | grep -q "^{\"id\":\"$first\"," || { echo "bench-view: unexpected session document start" >&2; exit 1; }
ids=()
start=$(date +%s.%N)
for n in $(seq "$sessions"); do
  id=$(printf '%08X-0000-4000-8000-%012X' "$n" "$n")
  if ! { printf '{"id":"%s"' "$id"; tail -c +45 "$work/session.json"; } | "$GAZEREC" import - > /dev/null 2> "$work/import.err"; then
    cat "$work/import.err" >&2
    exit 1
  fi
  ids+=("$id")
done
imported=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$start")
rm -f "$work/session.json"

# Starts `gazerec view` (binary $1) and sets `served` to the address it gives.
serve() {
  local out="$work/address.${#servers[@]}"
  "$1" view --stimuli "$work/stimuli" > "$out" 2>> "$work/err" &
  servers+=($!)
  for _ in $(seq 300); do [ -s "$out" ] && break; sleep 0.1; done
  [ -s "$out" ] || { echo "bench-view: $1 view did not start: $(cat "$work/err")" >&2; exit 1; }
  served=$(head -1 "$out")
}
serve "$GAZEREC"
address=$served
before=""
if [ -n "${BEFORE:-}" ]; then serve "$BEFORE"; before=$served; fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(chromium --version 2>/dev/null | head -1), $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binary: $GAZEREC${BEFORE:+ (before: $BEFORE)}"
echo "sessions: $sessions × $seconds s at 60 fps imported in $imported s ($(du -m "$work/db.sqlite" | cut -f1) MB); stimulus 1280×720 VP9 at 30 fps"
python3 Scripts/bench_view.py --rounds "${ROUNDS:-3}" ${before:+--before "$before"} "$address" "0/720p.webm" "${ids[@]}"
