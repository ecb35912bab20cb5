/**
 * Request-state sealing cost: raw codec throughput, and what the boundary adds to one MRTR round
 * (inbound verify + outbound reseal) over a bare pass-through. Run: `npx tsx bench/state.bench.ts [--quick]`.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { NextHandler, ServerRequestContext } from "../src/server/context.js";
import {
  AesGcmRequestStateCodec,
  RequestStateBoundary,
  RequestStateSecurity,
} from "../src/server/state/index.js";
import type { ResultObject } from "../src/types/index.js";

/**
 * Medians over the measured runs (micro-seconds per round, operations per second).
 *
 * @example
 * const result: StateBenchResult = await runStateBench({ quick: false });
 */
export interface StateBenchResult {
  readonly payloadBytes: number;
  readonly runs: number;
  readonly iterationsPerRun: number;
  readonly sealUnsealPerSecond: number;
  readonly passThroughMicrosPerRound: number;
  readonly boundaryMicrosPerRound: number;
  readonly addedMicrosPerRound: number;
}

const STATE = JSON.stringify({
  step: 2,
  answers: { region: "eu-west-1", size: "m5.large" },
  pad: "x".repeat(120),
});

/**
 * Measures the codec and the boundary; `quick` trades precision for a sub-second run (for CI smoke).
 *
 * @example
 * const { addedMicrosPerRound } = await runStateBench({ quick: true });
 */
export async function runStateBench({ quick }: { quick: boolean }): Promise<StateBenchResult> {
  const iterations = quick ? 2_000 : 20_000;
  const runs = quick ? 5 : 7;
  const payload = new TextEncoder().encode(STATE.padEnd(200, " ").slice(0, 200));
  const codec = new AesGcmRequestStateCodec([randomBytes(32)]);

  const sealUnseal = await measure(runs, iterations, async () => {
    codec.unseal(codec.seal(payload));
  });

  const boundary = new RequestStateBoundary(new RequestStateSecurity({ keys: [randomBytes(32)] }), {
    defaultAudience: "bench",
  });
  const result: ResultObject = { resultType: "input_required", requestState: STATE };
  const next: NextHandler = async () => result;
  const first = benchCtx(undefined);
  const token = (await boundary.handle(first, next)).requestState;
  const retry = benchCtx(token);
  const passThrough = await measure(runs, iterations, () => next(retry));
  const bounded = await measure(runs, iterations, () => boundary.handle(retry, next));

  return {
    payloadBytes: payload.length,
    runs,
    iterationsPerRun: iterations,
    sealUnsealPerSecond: 1e6 / sealUnseal,
    passThroughMicrosPerRound: passThrough,
    boundaryMicrosPerRound: bounded,
    addedMicrosPerRound: bounded - passThrough,
  };
}

/** Median microseconds per call over `runs` timed runs, after one untimed warm-up run. */
async function measure(runs: number, iterations: number, call: () => Promise<unknown>): Promise<number> {
  const perCall: number[] = [];
  for (let run = -1; run < runs; run++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) await call();
    if (run >= 0) perCall.push(((performance.now() - start) * 1000) / iterations);
  }
  perCall.sort((a, b) => a - b);
  return perCall[Math.floor(perCall.length / 2)] as number;
}

function benchCtx(requestState: unknown): ServerRequestContext {
  const quiet = () => {};
  return {
    method: "tools/call",
    requestId: 1,
    params: { name: "provision", arguments: { name: "orders", region: "eu-west-1" }, requestState },
    protocolVersion: "2026-07-28",
    clientCapabilities: {},
    clientInfo: undefined,
    logLevel: undefined,
    progressToken: undefined,
    authInfo: { token: "t", clientId: "bench-client", scopes: [], subject: "alice" },
    signal: new AbortController().signal,
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    notify: async () => {},
  };
}

/**
 * The numbers as a small markdown table.
 *
 * @example
 * console.log(formatStateBench(await runStateBench({ quick: true })));
 */
export function formatStateBench(r: StateBenchResult): string {
  const us = (n: number) => `${n.toFixed(2)} µs`;
  return [
    `Request-state sealing (median of ${r.runs} runs × ${r.iterationsPerRun}, after warm-up)`,
    "",
    "| measure | median |",
    "| --- | --- |",
    `| seal + unseal, ${r.payloadBytes}-byte payload | ${Math.round(r.sealUnsealPerSecond).toLocaleString("en-US")} /s |`,
    `| MRTR round, pass-through | ${us(r.passThroughMicrosPerRound)} |`,
    `| MRTR round, boundary (verify + reseal) | ${us(r.boundaryMicrosPerRound)} |`,
    `| added by the boundary per round | ${us(r.addedMicrosPerRound)} |`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(formatStateBench(await runStateBench({ quick: process.argv.includes("--quick") })));
}
