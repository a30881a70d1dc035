#!/usr/bin/env bash
# Starts the release meshwatch-server with the live demo fleet in manual
# mode (real agents and TLS listeners on 127.0.10.x, faults only when a test
# asks for them through POST /api/v1/demo/faults), on a fresh database.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/meshwatch-server
if [ ! -x "$bin" ] || [ ! -f target/site/pkg/meshwatch.wasm ]; then
  echo "build first: cargo leptos build --release" >&2
  exit 1
fi
data=$(mktemp -d "${TMPDIR:-/tmp}/meshwatch-e2e-demo.XXXXXX")
export MESHWATCH_DATABASE_URL="sqlite://$data/meshwatch.db"
export MESHWATCH_LISTEN="127.0.0.1:${E2E_DEMO_PORT:-3124}"
export MESHWATCH_DEMO=manual
exec "$bin"
