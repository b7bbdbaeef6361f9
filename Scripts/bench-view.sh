#!/usr/bin/env bash
# Review-page benchmark (headless Chromium, chromium-driver): a constructed one-hour 60 fps session
# (Scripts/make_session.py) imported SESSIONS (20) times under other ids, a 720p stimulus video
# (VP9, FFmpeg's test pattern), `gazerec view` serving them; prints the time to first paint of one
# session (from asking for its series to the first frame drawn with them) and the frames per second
# the page draws while every session plays over the stimulus. Release build unless GAZEREC names a
# binary. Usage: [SESSIONS=N] [GAZEREC=PATH] Scripts/bench-view.sh [SECONDS] (3600).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-3600}"
sessions="${SESSIONS:-20}"
if [ -z "${GAZEREC:-}" ]; then
  swift build -c release --product gazerec >&2
  GAZEREC="$(swift build -c release --show-bin-path)/gazerec"
fi
work="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill -INT "$server" 2>/dev/null; rm -rf "$work"' EXIT
export GAZEREC_DATABASE="$work/db.sqlite"
mkdir "$work/stimuli"
ffmpeg -v error -f lavfi -i "testsrc2=s=1280x720:r=30:d=60" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 2M "$work/stimuli/720p.webm"
first=$(python3 Scripts/make_session.py "$seconds" 60 "$work/session.json")
ids=()
for n in $(seq "$sessions"); do
  id=$(printf '%08X-0000-4000-8000-%012X' "$n" "$n")
  sed "0,/\"id\":\"$first\"/s//\"id\":\"$id\"/" "$work/session.json" > "$work/one.json"
  "$GAZEREC" import "$work/one.json" > /dev/null
  ids+=("$id")
done
rm -f "$work/one.json" "$work/session.json"
"$GAZEREC" view --stimuli "$work/stimuli" > "$work/address" 2> "$work/err" &
server=$!
for _ in $(seq 100); do [ -s "$work/address" ] && break; sleep 0.1; done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(chromium --version 2>/dev/null | head -1), $(date -u +%Y-%m-%d)"
echo "sessions: $sessions × $seconds s at 60 fps; stimulus 1280×720 VP9 at 30 fps"
python3 Scripts/bench_view.py "$(head -1 "$work/address")" "${ids[0]}" "0/720p.webm" "${ids[@]}"
