#!/usr/bin/env bash
# The release meshwatch-server as deployed: the one file alone, started
# from an empty directory without MESHWATCH_SITE_ROOT, so the front end it
# serves can only be the one built into it. A fresh SQLite file and one
# operator (the real CLI), on a loopback port of its own.
set -euo pipefail
bin="$(cd "$(dirname "$0")/.." && pwd)/target/release/meshwatch-server"
if [ ! -x "$bin" ]; then
  echo "build first: make build" >&2
  exit 1
fi
unset MESHWATCH_SITE_ROOT
dir=$(mktemp -d "${TMPDIR:-/tmp}/meshwatch-bare.XXXXXX")
cd "$dir"
export MESHWATCH_DATABASE_URL="sqlite://$dir/m.db"
export MESHWATCH_LISTEN="127.0.0.1:${E2E_BARE_PORT:-3125}"
MESHWATCH_OPERATOR_PASSWORD="$E2E_PASSWORD" "$bin" create-operator "$E2E_OPERATOR"
exec "$bin"
