#!/usr/bin/env bash
# The live demo fleet in manual mode (real agents and TLS listeners on
# 127.0.10.x, faults only when a test asks through POST /api/v1/demo/faults),
# started like the main test panel.
E2E_PORT="${E2E_DEMO_PORT:-3124}" MESHWATCH_DEMO=manual MESHWATCH_STATUS_PAGE=1 exec bash "$(dirname "$0")/start-server.sh"
