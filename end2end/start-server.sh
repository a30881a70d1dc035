#!/usr/bin/env bash
# Starts the release meshwatch-server for the browser tests: a fresh SQLite
# file, one operator created through the real CLI, a loopback port.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/meshwatch-server
if [ ! -x "$bin" ] || [ ! -f target/site/pkg/meshwatch.wasm ]; then
  echo "build first: make build" >&2
  exit 1
fi
data=$(mktemp -d "${TMPDIR:-/tmp}/meshwatch-e2e.XXXXXX")
export MESHWATCH_DATABASE_URL="sqlite://$data/meshwatch.db"
export MESHWATCH_LISTEN="127.0.0.1:${E2E_PORT:-3123}"
# The demo seeds its own operator ("demo", MESHWATCH_OPERATOR_PASSWORD).
if [ -z "${MESHWATCH_DEMO:-}" ]; then
  MESHWATCH_OPERATOR_PASSWORD="$E2E_PASSWORD" "$bin" create-operator "$E2E_OPERATOR"
fi
exec "$bin"
