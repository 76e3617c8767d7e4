#!/usr/bin/env bash
# Proves the quick start from a clean clone: npm ci, npm start on the embedded database, the demo
# banner and keys file, an authenticated request with the demo read key, and a clean SIGTERM stop.
#
# Usage: bash scripts/quickstart-check.sh
#   QUICKSTART_PORT  port to serve on (default 3999)
#   QUICKSTART_REPO  repository to clone (default: this one). It clones the committed HEAD, so
#                    uncommitted changes are not checked.
set -euo pipefail

ROOT="${QUICKSTART_REPO:-$(git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --show-toplevel)}"
PORT="${QUICKSTART_PORT:-3999}"
READY_TIMEOUT_S=120
STOP_TIMEOUT_S=15
BASE="http://127.0.0.1:${PORT}"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/quickstart.XXXXXX")"
APP="$TMP/fresh"
LOG="$TMP/server.log"
CURRENT_LOG=""
SERVER_PID=""

log() { printf 'quickstart: %s\n' "$*"; }

cleanup() {
  local status=$?
  if [[ -n "$SERVER_PID" ]] && kill -0 -- "-$SERVER_PID" 2>/dev/null; then
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  fi
  if [[ $status -ne 0 ]]; then
    printf 'quickstart: FAILED (exit %s)\n' "$status" >&2
    if [[ -n "$CURRENT_LOG" && -f "$CURRENT_LOG" ]]; then
      printf -- '--- last lines of %s ---\n' "$(basename "$CURRENT_LOG")" >&2
      tail -n 40 "$CURRENT_LOG" >&2 || true
    fi
  fi
  rm -rf "$TMP"
  exit "$status"
}
trap cleanup EXIT

fail() {
  printf 'quickstart: %s\n' "$*" >&2
  exit 1
}

# A clean environment: the quick start must work with no configuration at all.
unset DATABASE_URL REDIS_URL DATA_DIR APP_ENV HOST PUBLIC_BASE_URL SEED_DEMO LOG_LEVEL
export PORT

if curl -s -o /dev/null --max-time 2 "$BASE/"; then
  fail "port $PORT is already in use; set QUICKSTART_PORT to a free port"
fi

log "cloning $ROOT"
git clone -q "$ROOT" "$APP"
cd "$APP"

log "npm ci"
CURRENT_LOG="$TMP/npm-ci.log"
if ! npm ci --no-audit --no-fund >"$CURRENT_LOG" 2>&1; then
  # npm puts the reason first and its usage text last: show the reason.
  grep -E '^npm (error|ERR!)' "$CURRENT_LOG" | grep -vE '^npm error *$' | sed '/Clean install a project/,$d' | head -n 20 >&2 || true
  CURRENT_LOG=""
  fail "npm ci failed (see above)"
fi

log "npm start (PORT=$PORT)"
CURRENT_LOG="$LOG"
# Own session and process group, so npm, the build and the node server can be signalled together.
setsid npm start >"$LOG" 2>&1 </dev/null &
SERVER_PID=$!
started=$SECONDS

deadline=$((SECONDS + READY_TIMEOUT_S))
until curl -fsS --max-time 2 -o /dev/null "$BASE/readyz" 2>/dev/null; do
  kill -0 "$SERVER_PID" 2>/dev/null || fail "npm start exited before the server became ready"
  ((SECONDS < deadline)) || fail "server not ready within ${READY_TIMEOUT_S}s"
  sleep 1
done
log "ready $((SECONDS - started))s after npm start (build included)"

[[ -f data/demo-keys.json ]] || fail "data/demo-keys.json was not written"
mode="$(stat -c '%a' data/demo-keys.json)"
[[ "$mode" == "600" ]] || fail "data/demo-keys.json has mode $mode, expected 600"
READ_KEY="$(node -e "process.stdout.write(JSON.parse(require('fs').readFileSync('data/demo-keys.json', 'utf8')).keys.read)")"
[[ "$READ_KEY" =~ ^cak_test_[0-9A-Za-z]{32}$ ]] || fail "unexpected read key in data/demo-keys.json"

grep -q 'Demo tenant created' "$LOG" || fail "demo banner not printed"
grep -qF "$READ_KEY" "$LOG" || fail "banner does not show the read key from data/demo-keys.json"

manifest="$(curl -fsS --max-time 10 -H "Authorization: Bearer $READ_KEY" "$BASE/api/v1/manifest")" ||
  fail "GET /api/v1/manifest with the demo read key failed"
grep -q '"order.created"' <<<"$manifest" || fail "manifest does not list order.created"
log "GET /api/v1/manifest with the demo read key: 200"

kill -TERM -- "-$SERVER_PID"
deadline=$((SECONDS + STOP_TIMEOUT_S))
while kill -0 -- "-$SERVER_PID" 2>/dev/null; do
  ((SECONDS < deadline)) || fail "server did not stop within ${STOP_TIMEOUT_S}s of SIGTERM"
  sleep 0.2
done
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
grep -q '"msg":"stopped"' "$LOG" || fail "server did not shut down cleanly"
[[ ! -e data/server.lock ]] || fail "data/server.lock left behind after shutdown"
log "stopped cleanly on SIGTERM"

log ok
