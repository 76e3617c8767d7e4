#!/usr/bin/env bash
# Proves the typed client works as a published package: `npm pack` of packages/client (its prepack
# builds dist/), the tarball installed into an empty project (its dependencies from the registry or
# the npm cache), the declarations type-checked by a consumer file, and a flow run with plain Node
# against a started server (fresh embedded database, demo seed).
#
# Usage: bash scripts/client-pack-check.sh   (CLIENT_PACK_PORT, default 3997)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"

PORT="${CLIENT_PACK_PORT:-3997}"
BASE="http://127.0.0.1:${PORT}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/client-pack.XXXXXX")"
SERVER_PID=""

cleanup() {
  local status=$?
  if [[ -n "$SERVER_PID" ]] && kill -0 -- "-$SERVER_PID" 2>/dev/null; then
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
    sleep 1
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  fi
  if [[ $status -ne 0 ]]; then
    echo "client pack check: FAILED" >&2
    tail -n 30 "$TMP/server.log" >&2 2>/dev/null || true
  fi
  rm -rf "$TMP"
  exit "$status"
}
trap cleanup EXIT

if curl -s -o /dev/null --max-time 2 "$BASE/"; then
  echo "port $PORT is already in use; set CLIENT_PACK_PORT" >&2
  exit 1
fi

echo "packing packages/client"
TARBALL="$(cd packages/client && npm pack --silent --pack-destination "$TMP" | tail -n1)"
echo "  $TARBALL ($(du -k "$TMP/$TARBALL" | cut -f1) KB)"

mkdir "$TMP/project"
cd "$TMP/project"
printf '{ "name": "client-pack-check", "private": true, "type": "module" }\n' >package.json
npm install --silent --no-audit --no-fund --prefer-offline "$TMP/$TARBALL"
cp "$ROOT/scripts/client-pack-flow.mjs" flow.mjs
cp "$ROOT/scripts/client-pack-consumer.ts" consumer.ts

echo "type-checking a consumer against the installed declarations"
node "$ROOT/packages/client/node_modules/typescript/bin/tsc" --noEmit --strict --skipLibCheck \
  --target es2023 --module nodenext --moduleResolution nodenext --lib es2023,dom consumer.ts

cd "$ROOT"
env -u DATABASE_URL -u REDIS_URL DATA_DIR="$TMP/data" PORT="$PORT" SEED_DEMO=true LOG_LEVEL=warn \
  WEBHOOK_WORKER=false setsid npx tsx src/main.ts >"$TMP/server.log" 2>&1 </dev/null &
SERVER_PID=$!

deadline=$((SECONDS + 90))
until curl -fsS --max-time 2 -o /dev/null "$BASE/readyz" 2>/dev/null; do
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "server exited before it was ready" >&2; exit 1; }
  ((SECONDS < deadline)) || { echo "server not ready within 90 s" >&2; exit 1; }
  sleep 1
done

cd "$TMP/project"
COMMERCE_API_URL="$BASE" DEMO_KEYS_FILE="$TMP/data/demo-keys.json" node flow.mjs
