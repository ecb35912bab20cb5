/**
 * CPU-profiles one measuring child (`node --cpu-prof`) and prints where the time goes, by function
 * and by package. The profile is kept for DevTools / speedscope.
 *
 *   npx tsx bench/profile.ts                                  # ours, in memory, two-round MRTR flow
 *   npx tsx bench/profile.ts --family webhandler --side theirs --tool plain
 *   npx tsx bench/profile.ts --family http --who ours --concurrency 16
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildBenchTree, compiled, OUT, ROOT } from "./lib/build.js";
import { runChild } from "./lib/child.js";
import type { MeasureOptions } from "./lib/measure.js";

const { values } = parseArgs({
  options: {
    family: { type: "string", default: "inmemory" },
    side: { type: "string", default: "ours" },
    who: { type: "string", default: "ours" },
    tool: { type: "string", default: "mrtr" },
    sealed: { type: "boolean", default: true },
    concurrency: { type: "string", default: "1" },
    seconds: { type: "string", default: "3" },
    top: { type: "string", default: "30" },
  },
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function where(url: string): string {
  const path = url.replace(/^file:\/\//, "");
  if (path.startsWith(OUT)) return path.slice(OUT.length + 1);
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  if (nm) return `${nm[1]}/${nm[2]}`;
  return path || "(native)";
}

function owner(url: string): string {
  const w = where(url);
  if (w.startsWith("src/")) return `roundtrip ${w.split("/").slice(0, 2).join("/")}`;
  if (w.startsWith("bench/")) return "bench harness";
  if (w.startsWith("node:") || w.startsWith("internal")) return "node internals";
  if (w === "(native)") return "native / GC / idle";
  const nm = /^((?:@[^/]+\/)?[^/]+)\//.exec(w);
  return nm?.[1] ?? w;
}

const seconds = Number(values.seconds);
const measure: MeasureOptions = {
  warmup: 500,
  runs: 3,
  maxFlows: 1_000_000,
  minFlows: 50,
  maxMs: (seconds * 1000) / 3,
  concurrency: Number(values.concurrency),
};
const task = {
  family: values.family,
  side: values.side,
  who: values.who,
  tool: values.tool,
  sealed: values.sealed,
  measure,
};
await buildBenchTree();
const dir = join(OUT, "profiles");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const { result } = await runChild<unknown>(compiled("bench/worker.ts"), task, {
  nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
  timeoutMs: 300_000,
});
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
if (!file) throw new Error("no profile written");
const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfTime = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const fn = new Map<string, number>();
const pkg = new Map<string, number>();
let total = 0;
for (const [id, micros] of selfTime) {
  const node = byId.get(id);
  if (!node) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || "(anonymous)"}  ${where(url)}${url ? `:${lineNumber + 1}` : ""}`;
  fn.set(key, (fn.get(key) ?? 0) + micros);
  pkg.set(owner(url), (pkg.get(owner(url)) ?? 0) + micros);
  total += micros;
}
const pct = (micros: number) => `${((100 * micros) / total).toFixed(1).padStart(5)}%`;
console.log(`task ${JSON.stringify(task)}`);
console.log(`result ${JSON.stringify(result).slice(0, 400)}`);
console.log(`\nself time by package (total ${(total / 1000).toFixed(0)} ms):`);
for (const [name, micros] of [...pkg].sort((a, b) => b[1] - a[1]).slice(0, 20))
  console.log(`${pct(micros)}  ${name}`);
console.log("\nself time by function:");
for (const [name, micros] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${pct(micros)}  ${name}`);
// Inclusive time of our own functions (each stack counted once per function, so recursion and
// re-entry do not double-count): what a change in that function could save at most.
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const inclusive = new Map<string, number>();
for (const [id, micros] of selfTime) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const node = byId.get(cur);
    if (!node) break;
    const { functionName, url, lineNumber } = node.callFrame;
    const w = where(url);
    if (!w.startsWith("src/")) continue;
    const key = `${functionName || "(anonymous)"}  ${w}:${lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
  }
}
console.log("\ninclusive time of roundtrip functions:");
for (const [name, micros] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${pct(micros)}  ${name}`);
// Time spent outside our code (zod, node:crypto, JSON…) charged to the nearest roundtrip caller.
const charged = new Map<string, number>();
for (const [id, micros] of selfTime) {
  const self = byId.get(id);
  if (!self || where(self.callFrame.url).startsWith("src/")) continue;
  const what = owner(self.callFrame.url);
  for (let cur = parent.get(id); cur !== undefined; cur = parent.get(cur)) {
    const node = byId.get(cur);
    if (!node) break;
    const w = where(node.callFrame.url);
    if (!w.startsWith("src/")) continue;
    const key = `${what} ← ${node.callFrame.functionName || "(anonymous)"}  ${w}:${node.callFrame.lineNumber + 1}`;
    charged.set(key, (charged.get(key) ?? 0) + micros);
    break;
  }
}
console.log("\nexternal self time by nearest roundtrip caller:");
for (const [name, micros] of [...charged].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${pct(micros)}  ${name}`);
console.log(`\nprofile: ${join(dir, file).replace(`${ROOT}/`, "")}`);
