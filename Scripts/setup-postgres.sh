#!/usr/bin/env bash
# Starts a private PostgreSQL server for gazerec's lab-server tests and benchmarks (or for trying
# `gazerec push` on one machine): a cluster in a folder of its own, on 127.0.0.1 at a port of its
# own, with passwords in a PGPASSFILE: the administrator gazerec_admin, the two shared roles of
# schema 2 (gazerec_analysis, gazerec_station: the migration tests' old lab) and, for every other
# role, 'lab-secret' (the station and analyst roles tests make with `gazerec lab add-station` and
# `add-analyst`, reading that password from a file). Idempotent: a running cluster is reused. Prints the environment to use, as `export` lines:
#   eval "$(Scripts/setup-postgres.sh)"
# `Scripts/setup-postgres.sh stop` stops that cluster (tests of a server going away).
# Installs Debian's postgresql when missing (Scripts/setup-system.sh lists it).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-system.sh
port="${GAZEREC_TEST_POSTGRES_PORT:-54329}"
base="${TMPDIR:-/tmp}/gazerec-postgres-$port"
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
run_as=()
if [ "$(id -u)" -eq 0 ]; then run_as=(runuser -u postgres --); fi
if [ "${1:-}" = stop ]; then
  "${run_as[@]}" "$bin/pg_ctl" -D "$base/data" -m immediate stop > /dev/null
  exit 0
fi
mkdir -p "$base"
[ "$(id -u)" -eq 0 ] && chown postgres: "$base"
if [ ! -f "$base/data/PG_VERSION" ]; then
  echo "gazerec-superuser" > "$base/superuser-password"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$base/superuser-password"
  "${run_as[@]}" "$bin/initdb" -D "$base/data" -A scram-sha-256 --pwfile="$base/superuser-password" -U gazerec_admin \
    > "$base/initdb.log" 2>&1 || { cat "$base/initdb.log" >&2; exit 1; }
  rm -f "$base/superuser-password"
  cat >> "$base/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$base'
fsync = off
CONF
  # TCP with passwords only: the lines docs/Lab.md gives for a lab's server.
  cat > "$base/data/pg_hba.conf" <<HBA
host    all    all    127.0.0.1/32    scram-sha-256
HBA
fi
if ! "${run_as[@]}" "$bin/pg_ctl" -D "$base/data" status > /dev/null 2>&1; then
  # The server outlives this script: it must not hold any descriptor of whoever ran it (a caller
  # waiting for the end of this script's output would wait for the server's end).
  for fd in /proc/$$/fd/*; do
    fd="${fd##*/}"
    if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
  if ! "${run_as[@]}" "$bin/pg_ctl" -D "$base/data" -l "$base/server.log" -w start > /dev/null 2>&1 < /dev/null; then
    echo "setup-postgres: the test server did not start on 127.0.0.1:$port ($(grep -E "FATAL|could not" "$base/server.log" 2>/dev/null | tail -n 1 | sed -E "s/^.*(FATAL|LOG): *//")); if another server holds the port, set GAZEREC_TEST_POSTGRES_PORT to a free one" >&2
    exit 1
  fi
fi
pgpass="$base/pgpass"
cat > "$pgpass" <<PASS
127.0.0.1:$port:*:gazerec_admin:gazerec-superuser
127.0.0.1:$port:*:gazerec_analysis:analysis-secret
127.0.0.1:$port:*:gazerec_station:station-secret
127.0.0.1:$port:*:*:lab-secret
PASS
chmod 600 "$pgpass"
export PGPASSFILE="$pgpass"
admin="postgres://gazerec_admin@127.0.0.1:$port/postgres"
psql -q -v ON_ERROR_STOP=1 "$admin" > /dev/null <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'gazerec_analysis') THEN
    CREATE ROLE gazerec_analysis LOGIN PASSWORD 'analysis-secret';
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'gazerec_station') THEN
    CREATE ROLE gazerec_station LOGIN PASSWORD 'station-secret';
  END IF;
END \$\$;
SQL
echo "export PGPASSFILE='$pgpass'"
echo "export GAZEREC_TEST_POSTGRES_ADMIN='$admin'"
echo "export GAZEREC_TEST_POSTGRES_PORT='$port'"
