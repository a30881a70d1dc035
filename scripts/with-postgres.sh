#!/usr/bin/env bash
# Runs a command beside a throw-away PostgreSQL cluster: Debian's
# `postgresql` binaries, a fresh data directory under a temp dir, listening
# on 127.0.0.1 only (trust authentication: nothing but loopback reaches it),
# stopped and deleted when the command ends, whatever its outcome.
#
#   scripts/with-postgres.sh cargo test -p server --test api
#
# The command sees MESHWATCH_TEST_POSTGRES_URL (the cluster's admin URL:
# the tests create one database each), MESHWATCH_TEST_POSTGRES_LOG (the
# server log, for a failing statement) and PGHOST/PGPORT/PGUSER for psql.
# PostgreSQL refuses to run as root, so under root (CI) the cluster belongs
# to the unprivileged `postgres` user the package creates.
#
# MESHWATCH_PG_DURABLE=1 keeps fsync and synchronous commit on (benchmarks);
# tests turn them off: the cluster is thrown away anyway.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 command [args...]" >&2
  exit 2
fi

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "with-postgres: no PostgreSQL server here; run scripts/setup.sh --with-postgres (apt-get install postgresql)" >&2
  exit 1
fi

as_owner=()
if [ "$(id -u)" = 0 ]; then
  owner=postgres
  id "$owner" >/dev/null 2>&1 || { echo "with-postgres: no '$owner' user (is the postgresql package installed?)" >&2; exit 1; }
  as_owner=(runuser -u "$owner" --)
fi

cluster=$(mktemp -d "${TMPDIR:-/tmp}/meshwatch-pg.XXXXXX")
[ "${#as_owner[@]}" -eq 0 ] || chown "$owner" "$cluster"
chmod 700 "$cluster"

stop_cluster() {
  if [ -f "$cluster/data/postmaster.pid" ]; then
    "${as_owner[@]}" "$bindir/pg_ctl" -D "$cluster/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$cluster"
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

"${as_owner[@]}" "$bindir/initdb" -D "$cluster/data" -U postgres --auth=trust \
  -E UTF8 --locale=C.UTF-8 >"$cluster/initdb.log" 2>&1 \
  || { cat "$cluster/initdb.log" >&2; exit 1; }

durability=(-c fsync=off -c synchronous_commit=off -c full_page_writes=off)
[ "${MESHWATCH_PG_DURABLE:-0}" = 1 ] && durability=()

# A free port: PostgreSQL fails to start on a taken one, so try a few.
port=""
for candidate in $(seq 55432 55482); do
  (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null && continue
  if "${as_owner[@]}" "$bindir/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 60 \
       -o "-p $candidate -k $cluster -c listen_addresses=127.0.0.1 -c max_connections=400 ${durability[*]}" \
       start >/dev/null; then
    port=$candidate
    break
  fi
done
if [ -z "$port" ]; then
  echo "with-postgres: the cluster did not start" >&2
  cat "$cluster/server.log" >&2 || true
  exit 1
fi

export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres
export MESHWATCH_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
export MESHWATCH_TEST_POSTGRES_LOG="$cluster/server.log"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (throw-away, $cluster)"
set +e
"$@"
status=$?
set -e
exit "$status"
