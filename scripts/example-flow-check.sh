#!/usr/bin/env bash
# Starts the server on a fresh embedded database (demo seed on), runs examples/flow.ts against it
# with the demo tenant's commerce key, and stops the server.
#
# Usage: bash scripts/example-flow-check.sh   (EXAMPLE_PORT, default 3998)
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${EXAMPLE_PORT:-3998}"
BASE="http://127.0.0.1:${PORT}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/example-flow.XXXXXX")"
SERVER_PID=""

cleanup() {
  local status=$?
  if [[ -n "$SERVER_PID" ]] && kill -0 -- "-$SERVER_PID" 2>/dev/null; then
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
    sleep 1
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  fi
  if [[ $status -ne 0 ]]; then
    echo "example flow: FAILED; last server log lines:" >&2
    tail -n 30 "$TMP/server.log" >&2 || true
  fi
  rm -rf "$TMP"
  exit "$status"
}
trap cleanup EXIT

if curl -s -o /dev/null --max-time 2 "$BASE/"; then
  echo "port $PORT is already in use; set EXAMPLE_PORT" >&2
  exit 1
fi

env -u DATABASE_URL -u REDIS_URL DATA_DIR="$TMP/data" PORT="$PORT" SEED_DEMO=true LOG_LEVEL=warn \
  WEBHOOK_WORKER=false setsid npx tsx src/main.ts >"$TMP/server.log" 2>&1 </dev/null &
SERVER_PID=$!

deadline=$((SECONDS + 90))
until curl -fsS --max-time 2 -o /dev/null "$BASE/readyz" 2>/dev/null; do
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "server exited before it was ready" >&2; exit 1; }
  ((SECONDS < deadline)) || { echo "server not ready within 90 s" >&2; exit 1; }
  sleep 1
done

COMMERCE_API_URL="$BASE" DEMO_KEYS_FILE="$TMP/data/demo-keys.json" npm run -s example:flow
