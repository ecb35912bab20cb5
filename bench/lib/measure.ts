/**
 * The flow-throughput loop shared by every throughput scenario. A run executes flows at a given
 * concurrency until `maxFlows` are done or `maxMs` has passed (whichever first, at least
 * `minFlows`), so slow paths cannot blow the time budget. Every flow's result is checked, and so
 * are the leg and POST counts of every run (a mismatch throws `CorrectnessError`).
 */
import { performance } from "node:perf_hooks";
import { percentile } from "./stats.js";
import { CorrectnessError, expectEqual, firstText, type LegCounter } from "./workload.js";

/** A connected client and what a correct flow looks like. */
export interface FlowTarget {
  /** Runs one complete flow and resolves with the final result. */
  flow(): Promise<unknown>;
  readonly expectedText: string;
  /** Handler entries per flow (2 for the two-round MRTR flow, 1 for a plain call). */
  readonly legsPerFlow: number;
  readonly legs: LegCounter;
  /** POSTs per flow on the HTTP-shaped paths. */
  readonly postsPerFlow?: number;
  readonly posts?: { count: number };
}

/** How long one run lasts and how many flows run at once. */
export interface RunLimits {
  readonly maxFlows: number;
  readonly maxMs: number;
  readonly minFlows: number;
  readonly concurrency: number;
}

/** Warm-up and run counts around the runs. */
export interface MeasureOptions extends RunLimits {
  /** Flows before the untimed run. */
  readonly warmup: number;
  /** Timed runs. */
  readonly runs: number;
}

/** One timed run. */
export interface RunSample {
  readonly flows: number;
  readonly elapsedMs: number;
  readonly flowsPerSecond: number;
  /** CPU time (user + system) the process spent during the run. */
  readonly cpuMs: number;
  /** Flows per CPU-second: the work per flow, much less sensitive to other load on the machine. */
  readonly flowsPerCpuSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * One run: flows until the limits say stop; checks every result and the leg/POST counts.
 *
 * @example
 * const sample = await timedRun(target, { maxFlows: 5000, maxMs: 1500, minFlows: 50, concurrency: 1 });
 */
export async function timedRun(target: FlowTarget, limits: RunLimits): Promise<RunSample> {
  const latencies: number[] = [];
  let claimed = 0;
  const legsBefore = target.legs.count;
  const postsBefore = target.posts?.count ?? 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const deadline = start + limits.maxMs;
  const worker = async () => {
    for (;;) {
      if (claimed >= limits.maxFlows) return;
      if (claimed >= limits.minFlows && performance.now() >= deadline) return;
      const index = claimed++;
      const t0 = performance.now();
      const result = await target.flow();
      latencies.push(performance.now() - t0);
      const text = firstText(result);
      if (text !== target.expectedText) {
        throw new CorrectnessError(
          `flow ${index}: expected ${JSON.stringify(target.expectedText)}, got ${JSON.stringify(text)}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limits.concurrency) }, worker));
  const elapsedMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const flows = latencies.length;
  expectEqual(`legs for ${flows} flows`, target.legs.count - legsBefore, flows * target.legsPerFlow);
  if (target.posts && target.postsPerFlow !== undefined) {
    expectEqual(`POSTs for ${flows} flows`, target.posts.count - postsBefore, flows * target.postsPerFlow);
  }
  return {
    flows,
    elapsedMs,
    flowsPerSecond: (flows * 1000) / elapsedMs,
    cpuMs,
    flowsPerCpuSecond: (flows * 1000) / cpuMs,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

/** Warm-up flows, then one untimed run (JIT, caches, pools), as every session does before measuring. */
export async function warmUp(target: FlowTarget, options: MeasureOptions): Promise<void> {
  await timedRun(target, { ...options, maxFlows: options.warmup, minFlows: options.warmup });
  await timedRun(target, options);
}

/**
 * Median microseconds per call of `call` over `runs` timed runs of `iterations` sequential calls,
 * after one untimed warm-up run (the one-shot micro-measurements: state, transport).
 */
export async function microsPerCall(
  runs: number,
  iterations: number,
  call: () => Promise<unknown>,
): Promise<number> {
  const perCall: number[] = [];
  for (let run = -1; run < runs; run++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) await call();
    if (run >= 0) perCall.push(((performance.now() - start) * 1000) / iterations);
  }
  perCall.sort((a, b) => a - b);
  return perCall[Math.floor(perCall.length / 2)] as number;
}
