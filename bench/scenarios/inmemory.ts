/**
 * In memory, 2026-07-28, no sockets: the two-round MRTR flow (sealed: ours by default, theirs with
 * their HMAC codec) and the single-round plain `tools/call`. Ours: `Client.connect(mcpServer)`
 * (MemoryTransport, JSON-serialized both ways). Theirs: their fastest modern in-memory path,
 * `serveStdio(factory, { transport })` over `InMemoryTransport.createLinkedPair()`.
 */
import type { MeasureOptions } from "../lib/measure.js";
import {
  flowsPerSecond,
  higherIsBetter,
  measureOptions,
  pairedRatio,
  perRun,
  type RunContext,
  ratioText,
  runGroup,
  type Scenario,
  type Side,
  type SummaryRow,
  type ThroughputResult,
} from "../lib/scenario.js";
import type { OpenTarget } from "../lib/session.js";
import { fmtSummary } from "../lib/stats.js";
import {
  EXPECTED_TEXT,
  expectEqual,
  LegCounter,
  MODERN_VERSION,
  TOOL_MRTR,
  TOOL_PLAIN,
} from "../lib/workload.js";

type Tool = "mrtr" | "plain" | "resolved";

interface Task {
  family: "inmemory";
  side: Side;
  tool: Tool;
  sealed: boolean;
  measure: MeasureOptions;
}

/** Child side: connect one side in memory. */
export async function open(input: unknown): Promise<OpenTarget> {
  const task = input as Task;
  const legs = new LegCounter();
  const legsPerFlow = task.tool === "plain" ? 1 : 2;
  const common = { expectedText: EXPECTED_TEXT, legsPerFlow, legs, roundTripsPerFlow: legsPerFlow };
  if (task.side === "ours") {
    const ours = await import("../lib/ours.js");
    const client = await ours.connectOurs(ours.buildOurServer(legs));
    expectEqual("our negotiated version", client.protocolVersion, MODERN_VERSION);
    const tool =
      task.tool === "plain" ? TOOL_PLAIN : task.tool === "resolved" ? ours.TOOL_RESOLVED : TOOL_MRTR;
    return {
      ...common,
      flow: () => ours.ourFlow(client, tool),
      version: client.protocolVersion,
      close: () => client.close(),
    };
  }
  const theirs = await import("../lib/theirs.js");
  const pair = await theirs.connectTheirInMemory(legs, task.sealed);
  const version = theirs.theirVersion(pair.client) ?? "";
  expectEqual("their negotiated version", version, MODERN_VERSION);
  const tool = task.tool === "plain" ? TOOL_PLAIN : TOOL_MRTR;
  return { ...common, flow: () => theirs.theirFlow(pair.client, tool), version, close: () => pair.close() };
}

interface Variant {
  key: string;
  label: string;
  side: Side;
  tool: Tool;
  sealed: boolean;
}

const VARIANTS: Variant[] = [
  {
    key: "ours-mrtr",
    label: "roundtrip, two-round MRTR, sealed (default)",
    side: "ours",
    tool: "mrtr",
    sealed: true,
  },
  {
    key: "ours-resolved",
    label: "roundtrip, two-round MRTR via resolver, sealed",
    side: "ours",
    tool: "resolved",
    sealed: true,
  },
  {
    key: "theirs-mrtr-sealed",
    label: "official, two-round MRTR, HMAC codec",
    side: "theirs",
    tool: "mrtr",
    sealed: true,
  },
  {
    key: "theirs-mrtr",
    label: "official, two-round MRTR, no codec",
    side: "theirs",
    tool: "mrtr",
    sealed: false,
  },
  { key: "ours-plain", label: "roundtrip, plain tools/call", side: "ours", tool: "plain", sealed: true },
  { key: "theirs-plain", label: "official, plain tools/call", side: "theirs", tool: "plain", sealed: false },
];

/** A detail-table line for any throughput result. */
export function detailLine(label: string, r: ThroughputResult): string {
  if (r.unavailable) return `| ${label} | n/a — ${r.unavailable.replace(/\|/g, "\\|")} | | | | | | | | |`;
  const flows = flowsPerSecond(r);
  const rt = perRun(r, (s) => s.flowsPerSecond * r.roundTripsPerFlow);
  const cpu = perRun(r, (s) => s.flowsPerCpuSecond);
  const p50 = perRun(r, (s) => s.p50Ms);
  const p99 = perRun(r, (s) => s.p99Ms);
  const posts = r.postsPerFlow === undefined ? "—" : String(r.postsPerFlow);
  const count = r.samples.reduce((sum, s) => sum + s.flows, 0);
  return `| ${label} | ${fmtSummary(flows)} | ${fmtSummary(cpu)} | ${fmtSummary(rt)} | ${fmtSummary(p50, "", 3)} | ${fmtSummary(p99, "", 3)} | ${r.legsPerFlow} | ${posts} | ${count.toLocaleString("en-US")} | ${r.version} |`;
}

export const DETAIL_HEADER = [
  "| path | flows/s median (range) | flows per CPU-second | `tools/call` RT/s | p50 ms/flow | p99 ms/flow | legs/flow | POSTs/flow | flows timed | version |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
];

/** How the runs were made, for the details sections. */
export function runText(m: MeasureOptions): string {
  return `${m.runs} timed runs of up to ${m.maxFlows.toLocaleString("en-US")} flows or ${m.maxMs / 1000} s each at concurrency ${m.concurrency}, after ${m.warmup} warm-up flows and one untimed run; variants in separate processes, runs interleaved round-robin`;
}

export const scenario: Scenario = {
  id: "inmemory",
  title: "In memory (2026-07-28)",
  async run(ctx: RunContext) {
    const measure = measureOptions(ctx, { maxFlows: 20_000 });
    const list = await runGroup(
      ctx,
      VARIANTS.map((v) => ({
        label: v.key,
        task: { family: "inmemory", side: v.side, tool: v.tool, sealed: v.sealed, measure },
      })),
    );
    const results = new Map(VARIANTS.map((v, i) => [v.key, list[i] as ThroughputResult]));
    const get = (key: string) => results.get(key) as ThroughputResult;
    const rows: SummaryRow[] = [
      higherIsBetter(
        "In memory, two-round MRTR flow, sealed (flows/s)",
        get("ours-mrtr"),
        get("theirs-mrtr-sealed"),
        5,
        { theirs: "(serveStdio + InMemoryTransport, HMAC codec)" },
      ),
      higherIsBetter(
        "In memory, single-round plain `tools/call` (calls/s)",
        get("ours-plain"),
        get("theirs-plain"),
        5,
      ),
    ];
    const rtPerSec = (key: string) => perRun(get(key), (s) => s.flowsPerSecond * get(key).roundTripsPerFlow);
    const issue4 = (label: string, a: string, b: string) =>
      `| ${label} | ${fmtSummary(rtPerSec(a))} | ${fmtSummary(rtPerSec(b))} | ${ratioText(pairedRatio(get(a), get(b)), pairedRatio(get(a), get(b), "wall"))} |`;
    const details = [
      `${runText(measure)}.`,
      "",
      ...DETAIL_HEADER,
      ...VARIANTS.map((v) => detailLine(v.label, get(v.key))),
      "",
      "Issue 4 — `tools/call` round trips per second in memory (roundtrip sealed):",
      "",
      "| | roundtrip | official | ratio |",
      "| --- | --- | --- | --- |",
      issue4("plain tool (1 RT/flow)", "ours-plain", "theirs-plain"),
      issue4("two-round MRTR flow (2 RT/flow), theirs with codec", "ours-mrtr", "theirs-mrtr-sealed"),
      issue4("two-round MRTR flow, theirs without codec", "ours-mrtr", "theirs-mrtr"),
      issue4("two-round MRTR via resolver vs theirs with codec", "ours-resolved", "theirs-mrtr-sealed"),
    ].join("\n");
    return { rows, details, data: Object.fromEntries(results) };
  },
};
