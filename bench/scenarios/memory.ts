/**
 * Memory, in a child started with `--expose-gc` (one per side): heap and RSS after warm-up and
 * after 100,000 two-round flows (in memory, sealed: ours by default, theirs with their codec),
 * sampled every 10%, each after full GCs; then the heap held by 1,000 concurrent client flows
 * parked in the elicitation callback (the client side of a pending MRTR flow).
 */
import { setImmediate as tick } from "node:timers/promises";
import { compiled } from "../lib/build.js";
import { runChild } from "../lib/child.js";
import {
  lowerIsBetter,
  type RunContext,
  type Scenario,
  type Side,
  type SummaryRow,
} from "../lib/scenario.js";
import { fmtBytes, summarize } from "../lib/stats.js";
import {
  ANSWER,
  CorrectnessError,
  EXPECTED_TEXT,
  expectEqual,
  firstText,
  LegCounter,
  MODERN_VERSION,
} from "../lib/workload.js";

interface Task {
  family: "memory";
  side: Side;
  flows: number;
  warmup: number;
  pending: number;
}

interface Sample {
  readonly flows: number;
  readonly heapUsed: number;
  readonly rss: number;
}

interface MemoryResult {
  readonly samples: Sample[];
  readonly afterWarmup: Sample;
  readonly final: Sample;
  readonly pending: number;
  readonly pendingHeapDelta: number;
}

async function fullGc(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  for (let i = 0; i < 4; i++) {
    gc();
    await tick();
  }
}

async function sample(flows: number): Promise<Sample> {
  await fullGc();
  const usage = process.memoryUsage();
  return { flows, heapUsed: usage.heapUsed, rss: usage.rss };
}

/** Child side. */
export async function work(input: unknown): Promise<MemoryResult> {
  const task = input as Task;
  const legs = new LegCounter();
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered = 0;
  const parked = async () => {
    entered++;
    await gate;
    return ANSWER;
  };
  let flow: () => Promise<unknown>;
  let pendingFlow: () => Promise<unknown>;
  if (task.side === "ours") {
    const ours = await import("../lib/ours.js");
    const mcp = ours.buildOurServer(legs);
    const client = await ours.connectOurs(mcp);
    const parkedClient = await ours.connectOurs(mcp, "auto", parked);
    expectEqual("our negotiated version", client.protocolVersion, MODERN_VERSION);
    flow = () => ours.ourFlow(client);
    pendingFlow = () => ours.ourFlow(parkedClient);
  } else {
    const theirs = await import("../lib/theirs.js");
    const pair = await theirs.connectTheirInMemory(legs, true);
    const parkedPair = await theirs.connectTheirInMemory(legs, true, parked);
    expectEqual("their negotiated version", theirs.theirVersion(pair.client), MODERN_VERSION);
    flow = () => theirs.theirFlow(pair.client);
    pendingFlow = () => theirs.theirFlow(parkedPair.client);
  }
  const check = (result: unknown) => {
    const text = firstText(result);
    if (text !== EXPECTED_TEXT) throw new CorrectnessError(`memory flow: got ${JSON.stringify(text)}`);
  };
  for (let i = 0; i < task.warmup; i++) check(await flow());
  const afterWarmup = await sample(0);
  const samples: Sample[] = [afterWarmup];
  const step = Math.max(1, Math.floor(task.flows / 10));
  for (let done = 0; done < task.flows; ) {
    const until = Math.min(task.flows, done + step);
    for (; done < until; done++) check(await flow());
    samples.push(await sample(done));
  }
  expectEqual("legs over the memory run", legs.count, 2 * (task.warmup + task.flows));
  const final = samples[samples.length - 1] as Sample;

  const before = await sample(0);
  const pending = Array.from({ length: task.pending }, () => pendingFlow());
  for (let i = 0; i < 10_000 && entered < task.pending; i++) await tick();
  expectEqual("flows parked in the callback", entered, task.pending);
  const during = await sample(0);
  release();
  for (const result of await Promise.all(pending)) check(result);
  return {
    samples,
    afterWarmup,
    final,
    pending: task.pending,
    pendingHeapDelta: during.heapUsed - before.heapUsed,
  };
}

/** Growth below this over the whole run reads as "no growth" (10 bytes per flow at 100,000 flows). */
const NO_GROWTH_BYTES = 1024 * 1024;

export const scenario: Scenario = {
  id: "memory",
  title: "Memory",
  async run(ctx: RunContext) {
    const task = ctx.quick
      ? { family: "memory", flows: 2000, warmup: 200, pending: 1000 }
      : { family: "memory", flows: 100_000, warmup: 5000, pending: 1000 };
    const results: Partial<Record<Side, MemoryResult>> = {};
    for (const side of ["ours", "theirs"] as const) {
      ctx.log(`memory: ${side} (${task.flows} flows)`);
      const { result } = await runChild<MemoryResult>(
        compiled("bench/worker.ts"),
        { ...task, side },
        { nodeFlags: ["--expose-gc"], timeoutMs: 600_000 },
      );
      results[side] = result;
    }
    const ours = results.ours as MemoryResult;
    const theirs = results.theirs as MemoryResult;
    const one = (n: number) => summarize([n]);
    const size = (s: { median: number }) => fmtBytes(s.median);
    const growth = (r: MemoryResult) => r.final.heapUsed - r.afterWarmup.heapUsed;
    const flowsText = task.flows.toLocaleString("en-US");
    const rows: SummaryRow[] = [
      {
        scenario: `Memory: heap growth from warm-up to ${flowsText} flows`,
        ours: fmtBytes(growth(ours)),
        theirs: fmtBytes(growth(theirs)),
        ratio: "—",
        target: `no growth (< ${fmtBytes(NO_GROWTH_BYTES)})`,
        status: growth(ours) < NO_GROWTH_BYTES ? "PASS" : "MISS",
      },
      lowerIsBetter(
        `Memory: heap after ${flowsText} flows`,
        one(ours.final.heapUsed),
        one(theirs.final.heapUsed),
        1,
        size,
        "≤ theirs",
      ),
      lowerIsBetter(
        `Memory: RSS after ${flowsText} flows`,
        one(ours.final.rss),
        one(theirs.final.rss),
        1,
        size,
        "≤ theirs",
      ),
      lowerIsBetter(
        `Memory: heap per ${task.pending.toLocaleString("en-US")} pending client flows`,
        one(ours.pendingHeapDelta),
        one(theirs.pendingHeapDelta),
        1,
        size,
        "≤ theirs",
      ),
    ];
    const trace = (r: MemoryResult) => r.samples.map((s) => fmtBytes(s.heapUsed)).join(" → ");
    const details = [
      `Warm-up ${task.warmup.toLocaleString("en-US")} flows, then ${flowsText} sequential flows; heap sampled after full GCs every 10%.`,
      "",
      "| | roundtrip | official |",
      "| --- | --- | --- |",
      `| heap after warm-up | ${fmtBytes(ours.afterWarmup.heapUsed)} | ${fmtBytes(theirs.afterWarmup.heapUsed)} |`,
      `| heap after ${flowsText} flows | ${fmtBytes(ours.final.heapUsed)} | ${fmtBytes(theirs.final.heapUsed)} |`,
      `| growth | ${fmtBytes(growth(ours))} | ${fmtBytes(growth(theirs))} |`,
      `| RSS after warm-up | ${fmtBytes(ours.afterWarmup.rss)} | ${fmtBytes(theirs.afterWarmup.rss)} |`,
      `| RSS after ${flowsText} flows | ${fmtBytes(ours.final.rss)} | ${fmtBytes(theirs.final.rss)} |`,
      `| heap held by ${task.pending} parked flows | ${fmtBytes(ours.pendingHeapDelta)} (${fmtBytes(ours.pendingHeapDelta / ours.pending)}/flow) | ${fmtBytes(theirs.pendingHeapDelta)} (${fmtBytes(theirs.pendingHeapDelta / theirs.pending)}/flow) |`,
      "",
      `Heap trace, roundtrip: ${trace(ours)}`,
      "",
      `Heap trace, official: ${trace(theirs)}`,
    ].join("\n");
    return { rows, details, data: results };
  },
};
