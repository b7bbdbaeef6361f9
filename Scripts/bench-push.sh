#!/usr/bin/env bash
# Lab-server benchmark: a constructed one-hour 60 fps session (gaze, two blend shapes, per-frame
# features with eye appearance, as gazerec records them) imported into a station database, then
# pushed to a local PostgreSQL (Scripts/setup-postgres.sh) and exported back from it; prints wall
# time and peak memory of each step (release build), and the push as a multiple of the station's
# own export in the same run, best of ROUNDS (3) interleaved rounds, each step after a sync so none
# pays for the previous one's writes. Usage: [ROUNDS=N] Scripts/bench-push.sh [SECONDS] (3600).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-3600}"
postgres_environment="$(Scripts/setup-postgres.sh)"
eval "$postgres_environment"
swift build -c release --product gazerec >&2
gazerec="$(swift build -c release --show-bin-path)/gazerec"
work="$(mktemp -d)"
database="gazerec_bench_$$"
admin="$GAZEREC_TEST_POSTGRES_ADMIN"
role="bench-station-$$"
trap 'rm -rf "$work"; psql -q "$admin" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" -c "DROP ROLE IF EXISTS \"$role\"" > /dev/null 2>&1 || true' EXIT
lab="postgres://gazerec_admin@127.0.0.1:$GAZEREC_TEST_POSTGRES_PORT/$database"
server="postgres://$role@127.0.0.1:$GAZEREC_TEST_POSTGRES_PORT/$database"  # the station's own role (its password: lab-secret)
echo lab-secret > "$work/password"
export GAZEREC_DATABASE="$work/station.sqlite"
id=$(python3 Scripts/make_session.py "$seconds" 60 "$work/session.json")
rounds="${ROUNDS:-3}"
declare -A walls
measure() {  # LABEL COMMAND...: wall seconds and peak resident memory, the disks settled first
  sync
  /usr/bin/time -f "%e %M" -o "$work/time" "${@:2}" > "$work/out" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r wall kb < "$work/time"
  walls[$1]="${walls[$1]:-} $wall"
  printf '  %-34s %7.2f s  %6.0f MB peak\n' "$1" "$wall" "$((kb / 1024))"
}
echo "machine: $(nproc) cores, $(date -u +%Y-%m-%d); session: $seconds s at 60 fps, JSON $(du -m "$work/session.json" | cut -f1) MB"
measure "import into the station" "$gazerec" import "$work/session.json"
# Rounds interleave the push (into an empty server database each time) with the station's own
# export, so both see the same machine; each figure below is the best of the rounds.
for round in $(seq "$rounds"); do
  echo "round $round of $rounds"
  psql -q "$admin" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" \
    -c "DROP ROLE IF EXISTS \"$role\"" -c "CREATE DATABASE $database" > /dev/null
  "$gazerec" lab init --server "$lab" 2> /dev/null   # the schema and its rules, as the lab's admin does
  "$gazerec" lab add-station "$role" --server "$lab" --password-file "$work/password" > /dev/null 2>&1
  measure "push to the local server" "$gazerec" push "$server" "$id"
  measure "push again (unchanged)" "$gazerec" push "$server" "$id"
  measure "export from the station" "$gazerec" export "$id" --output "$work/station.json"
  measure "export from the server" "$gazerec" --database "$lab" export "$id" --output "$work/server.json"
  cmp -s "$work/station.json" "$work/server.json" && echo "  exports identical: yes" || echo "  exports identical: NO"
done
# This VM's speed varies 3-4x from machine to machine: the push beside the station's own export,
# measured in the same run (a push exports the session as it sends it).
best() { tr ' ' '\n' <<< "${walls[$1]}" | grep . | sort -g | head -1; }
python3 -c "
push, unchanged, export, server = $(best "push to the local server"), $(best "push again (unchanged)"), \
    $(best "export from the station"), $(best "export from the server")
print(f'best of $rounds: push {push:.2f} s, unchanged push {unchanged:.2f} s, export from the station {export:.2f} s, '
      f'from the server {server:.2f} s')
print(f'  push / station export: {push / export:.2f}x; unchanged push / export: {unchanged / export:.2f}x; '
      f'export from the server / from the station: {server / export:.2f}x')"
