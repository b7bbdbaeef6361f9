#!/usr/bin/env bash
# Corruption benchmark (docs/Recording.md, "Damage"): records sessions from the shared clips (a
# scripted calibration, then `start --input` with blend shapes), then damages seeded copies of
# that database — random bytes over part of a page of each kind (leaf and interior pages of every
# table and index, found with SQLite's dbstat), pages zeroed, rows deleted from the middle and the
# end of each series — and runs every reading command on each (Scripts/bench_damage.py says how
# runs are counted). Prints how many runs crashed (want 0), gave partial data with exit 0 (want 0),
# or named the damage. Pushes to a local PostgreSQL (Scripts/setup-postgres.sh) unless NO_PUSH=1.
# Usage: [CASES=96] [SEED=45] [CONFIGURATION=debug|release] [GAZEREC=binary] Scripts/bench-damage.sh
# (GAZEREC: an already built gazerec, e.g. an earlier revision's, instead of building this one).
set -euo pipefail
cd "$(dirname "$0")/.."
configuration="${CONFIGURATION:-debug}"
if [ -n "${GAZEREC:-}" ]; then
  gazerec="$GAZEREC"
else
  swift build -c "$configuration" --product gazerec >&2
  gazerec="$(swift build -c "$configuration" --show-bin-path)/gazerec"
fi
clips=../shared/fixtures/video
[ -f "$clips/cap12_headturns_20s.mp4" ] || { echo "bench-damage: needs ../shared/fixtures (the shared clips)" >&2; exit 1; }
work="$(mktemp -d)"
database_name="gazerec_damage_$$"
role="damage-station-$$"
cleanup() {
  rm -rf "$work"
  if [ -n "${GAZEREC_TEST_POSTGRES_ADMIN:-}" ]; then
    psql -q "$GAZEREC_TEST_POSTGRES_ADMIN" -c "DROP DATABASE IF EXISTS $database_name WITH (FORCE)" \
      -c "DROP ROLE IF EXISTS \"$role\"" > /dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
export GAZEREC_DATABASE="$work/recorded.sqlite"
"$gazerec" calibrate --input "$clips/cap12_headturns_20s.mp4" --script Scripts/calibration-headturns-20s.txt > /dev/null 2>&1
for clip in cap12_headturns_20s.mp4 cap13_blinks_20s.mp4; do
  "$gazerec" start --input "$clips/$clip" --as-fast-as-possible --blend-shapes eyeBlink_L,eyeBlink_R,jawOpen \
    > /dev/null 2> "$work/start.log" || { cat "$work/start.log" >&2; exit 1; }
done
"$gazerec" check > /dev/null
push=()
if [ "${NO_PUSH:-0}" != 1 ]; then
  eval "$(Scripts/setup-postgres.sh)"
  lab="postgres://gazerec_admin@127.0.0.1:$GAZEREC_TEST_POSTGRES_PORT/$database_name"
  psql -q "$GAZEREC_TEST_POSTGRES_ADMIN" -c "CREATE DATABASE $database_name" > /dev/null
  "$gazerec" lab init --server "$lab" 2> /dev/null
  echo lab-secret > "$work/password"
  "$gazerec" lab add-station "$role" --server "$lab" --password-file "$work/password" > /dev/null 2>&1
  push=(--server "postgres://$role@127.0.0.1:$GAZEREC_TEST_POSTGRES_PORT/$database_name" --admin "$lab")
fi
echo "machine: $(nproc) cores, $(date -u +%Y-%m-%d); $gazerec"
python3 Scripts/bench_damage.py "$gazerec" "$GAZEREC_DATABASE" "$work" --cases "${CASES:-96}" --seed "${SEED:-45}" "${push[@]}"
