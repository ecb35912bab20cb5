/** What a scenario family gives the harness, and the throughput plumbing most families share. */
import { compiled } from "./build.js";
import type { MeasureOptions, RunSample } from "./measure.js";
import { ChildSession, type ReadyInfo } from "./session.js";
import { fmtRatio, fmtSummary, median, type Summary, summarize } from "./stats.js";

export type Side = "ours" | "theirs";

/** Harness-wide settings handed to every scenario. */
export interface RunContext {
  readonly quick: boolean;
  log(message: string): void;
}

/** PASS/MISS against a target; `n/a` when one side is missing; `info` for untargeted figures. */
export type Status = "PASS" | "MISS" | "n/a" | "info";

/** One line of the summary table in RESULTS.md. */
export interface SummaryRow {
  readonly scenario: string;
  readonly ours: string;
  readonly theirs: string;
  readonly ratio: string;
  readonly target: string;
  readonly status: Status;
  /** How far from the target, e.g. "2.1× over target" or "needs 1.4× more". */
  readonly margin?: string;
}

/** A family's contribution: summary rows, a markdown details section, and raw data for `--json`. */
export interface ScenarioReport {
  readonly rows: SummaryRow[];
  readonly details: string;
  readonly data: unknown;
}

export interface Scenario {
  readonly id: string;
  readonly title: string;
  run(ctx: RunContext): Promise<ScenarioReport>;
}

/** The samples of one variant, one per round (rounds are aligned across a group). */
export interface ThroughputResult extends ReadyInfo {
  readonly samples: RunSample[];
}

/**
 * Iteration counts. Full: 200 warm-up flows and one untimed run, then 7 timed runs of up to
 * `maxFlows` flows or 1.5 s each. Quick: a handful of flows, 2 runs.
 */
export function measureOptions(
  ctx: RunContext,
  full: { maxFlows: number; concurrency?: number },
): MeasureOptions {
  const concurrency = full.concurrency ?? 1;
  return ctx.quick
    ? { warmup: 10, runs: 2, maxFlows: Math.max(20, concurrency * 2), minFlows: 1, maxMs: 2_000, concurrency }
    : { warmup: 200, runs: 7, maxFlows: full.maxFlows, minFlows: 50, maxMs: 1_500, concurrency };
}

/**
 * Measures a group of variants, each in its own long-lived child: all are started and warmed up,
 * then every round runs each variant once, rotating who goes first.
 *
 * @example
 * const [ours, theirs] = await runGroup(ctx, [{ label: "ours", task }, { label: "theirs", task: t2 }]);
 */
export async function runGroup(
  ctx: RunContext,
  variants: readonly {
    label: string;
    task: { family: string; measure: MeasureOptions } & Record<string, unknown>;
  }[],
): Promise<ThroughputResult[]> {
  const sessions: ChildSession[] = [];
  try {
    for (const v of variants) {
      ctx.log(`${v.task.family}: start ${v.label}`);
      sessions.push(await ChildSession.start(compiled("bench/worker.ts"), v.task, v.label));
    }
    const samples: RunSample[][] = sessions.map(() => []);
    const runs = variants[0]?.task.measure.runs ?? 0;
    for (let round = 0; round < runs; round++) {
      for (let k = 0; k < sessions.length; k++) {
        const index = (round + k) % sessions.length;
        const session = sessions[index] as ChildSession;
        if (session.info.unavailable) continue;
        samples[index]?.push(await session.run());
      }
    }
    for (const session of sessions) await session.finish();
    return sessions.map((s, i) => ({ ...s.info, samples: samples[i] ?? [] }));
  } catch (error) {
    for (const session of sessions) session.kill();
    throw error;
  }
}

/** Median and range of flows/s. */
export function flowsPerSecond(r: ThroughputResult): Summary {
  return summarize(r.samples.map((s) => s.flowsPerSecond));
}

/** Median and range of any per-run figure. */
export function perRun(r: ThroughputResult, pick: (s: RunSample) => number): Summary {
  return summarize(r.samples.map(pick));
}

/**
 * Median over rounds of a ÷ b, each round's two runs adjacent in time. `"cpu"` compares flows per
 * CPU-second (the gate: robust to other load on a shared machine), `"wall"` flows per second.
 */
export function pairedRatio(
  a: ThroughputResult,
  b: ThroughputResult,
  metric: "cpu" | "wall" = "cpu",
): number {
  const n = Math.min(a.samples.length, b.samples.length);
  const pick = (s: RunSample) => (metric === "cpu" ? s.flowsPerCpuSecond : s.flowsPerSecond);
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) ratios.push(pick(a.samples[i] as RunSample) / pick(b.samples[i] as RunSample));
  return median(ratios);
}

/** `4.10× (wall 3.92×)` — the gating CPU-normalized ratio, with the wall-clock one. */
export function ratioText(ratio: number, wall: number, scale = 1): string {
  return `${fmtRatio(ratio * scale)} (wall ${fmtRatio(wall * scale)})`;
}

/** A "higher is better" comparison row against a ratio target (ratio: paired, per round). */
export function higherIsBetter(
  scenario: string,
  ours: ThroughputResult | undefined,
  theirs: ThroughputResult,
  minRatio: number,
  notes: { ours?: string; theirs?: string } = {},
  scale = 1,
): SummaryRow {
  const target = `≥ ${minRatio}×`;
  const theirsSummary = perRun(theirs, (s) => s.flowsPerSecond * scale);
  const theirsText = `${fmtSummary(theirsSummary)}${notes.theirs ? ` ${notes.theirs}` : ""}`;
  if (!ours || ours.unavailable) {
    return {
      scenario,
      ours: `n/a ${notes.ours ?? ""}`.trim(),
      theirs: theirsText,
      ratio: "—",
      target,
      status: "n/a",
    };
  }
  const ratio = pairedRatio(ours, theirs);
  const pass = ratio >= minRatio;
  return {
    scenario,
    ours: `${fmtSummary(perRun(ours, (s) => s.flowsPerSecond * scale))}${notes.ours ? ` ${notes.ours}` : ""}`,
    theirs: theirsText,
    ratio: ratioText(ratio, pairedRatio(ours, theirs, "wall")),
    target,
    status: pass ? "PASS" : "MISS",
    margin: pass ? `${fmtRatio(ratio / minRatio)} over target` : `needs ${fmtRatio(minRatio / ratio)} more`,
  };
}

/** A "lower is better" comparison row (time, size, memory): ours/theirs must be ≤ `maxRatio`. */
export function lowerIsBetter(
  scenario: string,
  ours: Summary,
  theirs: Summary,
  maxRatio: number,
  format: (s: Summary) => string,
  targetText: string,
  ratioOverride?: number,
): SummaryRow {
  const ratio = ratioOverride ?? ours.median / theirs.median;
  const pass = ratio <= maxRatio;
  return {
    scenario,
    ours: format(ours),
    theirs: format(theirs),
    ratio: fmtRatio(ratio),
    target: targetText,
    status: pass ? "PASS" : "MISS",
    margin: pass
      ? `${fmtRatio(maxRatio / ratio)} under target`
      : `needs ${fmtRatio(ratio / maxRatio)} reduction`,
  };
}
