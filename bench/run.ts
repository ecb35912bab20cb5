/**
 * `npm run bench` — roundtrip and the official MCP TypeScript SDK on the same workloads, same Node,
 * same run. Writes bench/RESULTS.md (full run of every scenario). Every run checks correctness
 * (final text, negotiated version, legs/POSTs per flow) and exits non-zero on any mismatch.
 *
 *   npm run bench                      full harness (< 10 min), writes bench/RESULTS.md
 *   npm run bench:quick                --quick: few iterations, only proves everything works (CI)
 *   npx tsx bench/run.ts --only http   one or more families (comma-separated), printed only
 *   npx tsx bench/run.ts --json        machine-readable results on stdout
 *   npm run bench:node22               the measuring children on Node 22 (the binary the conformance
 *                                      suite installs); writes bench/RESULTS-node22.md
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, platform, release, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildBenchTree, ROOT } from "./lib/build.js";
import { childNode, useChildNode } from "./lib/child.js";
import type { RunContext, Scenario, ScenarioReport, SummaryRow } from "./lib/scenario.js";
import { scenario as bundle } from "./scenarios/bundle.js";
import { scenario as cold } from "./scenarios/cold.js";
import { scenario as http } from "./scenarios/http.js";
import { scenario as inmemory } from "./scenarios/inmemory.js";
import { scenario as install } from "./scenarios/install.js";
import { scenario as legacy } from "./scenarios/legacy.js";
import { scenario as memory } from "./scenarios/memory.js";
import { scenario as pacing } from "./scenarios/pacing.js";
import { scenario as state } from "./scenarios/state.js";
import { scenario as transport } from "./scenarios/transport.js";
import { scenario as webhandler } from "./scenarios/webhandler.js";

const SCENARIOS: readonly Scenario[] = [
  inmemory,
  webhandler,
  http,
  legacy,
  cold,
  bundle,
  install,
  memory,
  pacing,
  state,
  transport,
];

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    json: { type: "boolean", default: false },
    node: { type: "string" },
    help: { type: "boolean", default: false },
  },
});

if (values.help) {
  console.log(
    `usage: tsx bench/run.ts [--quick] [--only ${SCENARIOS.map((s) => s.id).join(",")}] [--json] [--node <path>]`,
  );
  process.exit(0);
}

// Another Node for the measuring children (the harness itself stays on this one).
if (values.node !== undefined) useChildNode(values.node);
let childVersion: string;
try {
  childVersion = execFileSync(childNode(), ["--version"], { encoding: "utf8" }).trim();
} catch (error) {
  console.error(
    `--node ${values.node}: cannot run it (${error instanceof Error ? error.message : String(error)})`,
  );
  process.exit(2);
}
/** RESULTS.md for the harness's own Node; RESULTS-node<major>.md for another one. */
const resultsFile =
  childVersion === process.version
    ? "RESULTS.md"
    : `RESULTS-node${/^v(\d+)/.exec(childVersion)?.[1] ?? "x"}.md`;

const only = values.only
  ?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);
for (const id of only ?? []) {
  if (!SCENARIOS.some((s) => s.id === id)) {
    console.error(`unknown scenario ${JSON.stringify(id)}; known: ${SCENARIOS.map((s) => s.id).join(", ")}`);
    process.exit(2);
  }
}
const selected = SCENARIOS.filter((s) => !only || only.includes(s.id));
const quick = values.quick === true;
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const ctx: RunContext = { quick, log };

function packageVersion(name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    };
    return pkg.version;
  } catch {
    return "?";
  }
}

function machine(): Record<string, string> {
  const cpu = cpus();
  let os = `${platform()} ${release()}`;
  try {
    const osRelease = readFileSync("/etc/os-release", "utf8");
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(osRelease)?.[1];
    if (pretty) os = `${pretty} (${platform()} ${release()})`;
  } catch {
    // not Linux
  }
  let commit = "?";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (dirty.trim() !== "") commit += " + uncommitted changes in src/";
  } catch {
    // not a checkout
  }
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    node: childVersion,
    os,
    cpu: `${cpu[0]?.model ?? "?"} × ${cpu.length}`,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} GiB free at start)`,
    "roundtrip commit": commit,
    "official SDK": `@modelcontextprotocol/server ${packageVersion("@modelcontextprotocol/server")}, @modelcontextprotocol/client ${packageVersion("@modelcontextprotocol/client")}`,
    zod: `${packageVersion("zod")} (one copy, shared by both SDKs)`,
    esbuild: packageVersion("esbuild"),
    "load average at start (1/5/15 min)": loadText(),
  };
}

function loadText(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");
}

function summaryTable(rows: readonly SummaryRow[]): string {
  return [
    "| scenario | roundtrip | official 2.4.0 | ratio | target | result |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.ours} | ${r.theirs} | ${r.ratio} | ${r.target} | ${r.status === "PASS" || r.status === "MISS" ? `**${r.status}**` : r.status}${r.margin ? ` (${r.margin})` : ""} |`,
    ),
  ].join("\n");
}

const started = performance.now();
log(`${quick ? "quick" : "full"} run: ${selected.map((s) => s.id).join(", ")}`);
await buildBenchTree();
const info = machine();
const reports: { scenario: Scenario; report: ScenarioReport }[] = [];
let failed = false;
for (const s of selected) {
  const t0 = performance.now();
  try {
    reports.push({ scenario: s, report: await s.run(ctx) });
    log(`${s.id}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } catch (error) {
    failed = true;
    log(`${s.id}: FAILED\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
const seconds = (performance.now() - started) / 1000;
info["load average at end (1/5/15 min)"] = loadText();
const rows = reports.flatMap((r) => r.report.rows);

const markdown = [
  "# roundtrip vs the official MCP TypeScript SDK — benchmark results",
  "",
  `Generated by \`npm run bench\`${values.node === undefined ? "" : ` with its measuring children on Node ${childVersion} (\`--node\`)`}${quick ? " --quick (NOT representative: smoke run)" : ""} in ${seconds.toFixed(0)} s. Do not edit by hand.`,
  "",
  "| | |",
  "| --- | --- |",
  ...Object.entries(info).map(([k, v]) => `| ${k} | ${v} |`),
  "",
  "## Summary",
  "",
  "Each throughput figure is the median of the timed runs (7 in a full run; range in parentheses),",
  "after warm-up, each variant in its own `node` process with runs interleaved round-robin. Ratio =",
  "roundtrip ÷ official: for rates the median of per-round paired ratios of flows per CPU-second (the",
  "gate; wall-clock in parentheses), for times, sizes and memory the ratio of medians (lower is better",
  "there). Correctness (final text, negotiated version, legs and POSTs per flow) is checked on every",
  "flow of every run. Profile findings and suggested changes: [PROFILE.md](PROFILE.md).",
  "",
  summaryTable(rows),
  "",
  ...reports.flatMap(({ scenario, report }) => [`## ${scenario.title}`, "", report.details, ""]),
  "## Method",
  "",
  readFileSync(join(ROOT, "bench", "METHOD.md"), "utf8").trim(),
  "",
].join("\n");

if (values.json) {
  process.stdout.write(
    `${JSON.stringify({ quick, seconds, machine: info, rows, results: Object.fromEntries(reports.map((r) => [r.scenario.id, r.report.data])) }, null, 2)}\n`,
  );
} else {
  process.stdout.write(`${summaryTable(rows)}\n`);
}
if (!quick && !only && !failed) {
  writeFileSync(join(ROOT, "bench", resultsFile), markdown);
  log(`wrote bench/${resultsFile}`);
}
log(`finished in ${seconds.toFixed(1)} s${failed ? " — FAILED (see above)" : ""}`);
process.exitCode = failed ? 1 : 0;
