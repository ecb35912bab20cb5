/**
 * Issue 3 — request-state sealing cost (absorbs the former bench/state.bench.ts): raw codec
 * throughput, and what the boundary adds to one MRTR round (inbound verify + outbound reseal) over
 * a bare pass-through. For scale, their opt-in HMAC codec's mint + verify on the same payload
 * (signed only, not encrypted; no binding, so it does strictly less work).
 */
import { randomBytes } from "node:crypto";
import { compiled } from "../lib/build.js";
import { runChild } from "../lib/child.js";
import { microsPerCall } from "../lib/measure.js";
import type { RunContext, Scenario, Side, SummaryRow } from "../lib/scenario.js";
import { fmt, fmtRatio } from "../lib/stats.js";

/** Medians over the measured runs (micro-seconds per round, operations per second). */
export interface StateBenchResult {
  readonly payloadBytes: number;
  readonly runs: number;
  readonly iterationsPerRun: number;
  readonly sealUnsealPerSecond: number;
  readonly passThroughMicrosPerRound?: number;
  readonly boundaryMicrosPerRound?: number;
  readonly addedMicrosPerRound?: number;
}

const STATE = JSON.stringify({
  step: 2,
  answers: { region: "eu-west-1", size: "m5.large" },
  pad: "x".repeat(120),
});

/** Child side: one SDK's numbers. */
export async function work(input: unknown): Promise<StateBenchResult> {
  const { side, quick } = input as { side: Side; quick: boolean };
  const iterations = quick ? 500 : 20_000;
  const runs = quick ? 2 : 7;
  const text = STATE.padEnd(200, " ").slice(0, 200);
  const payload = new TextEncoder().encode(text);
  if (side === "theirs") {
    const { createRequestStateCodec } = await import("@modelcontextprotocol/server");
    const codec = createRequestStateCodec<string>({ key: randomBytes(32) });
    // Without a bind callback their verify never reads the context.
    const noContext = undefined as unknown as Parameters<typeof codec.verify>[1];
    const check = await codec.verify(await codec.mint(text), noContext);
    if (check !== text) throw new Error("their codec did not round-trip");
    const micros = await microsPerCall(runs, iterations, async () =>
      codec.verify(await codec.mint(text), noContext),
    );
    return {
      payloadBytes: payload.length,
      runs,
      iterationsPerRun: iterations,
      sealUnsealPerSecond: 1e6 / micros,
    };
  }
  const { AesGcmRequestStateCodec, RequestStateBoundary, RequestStateSecurity } = await import(
    "../../src/server/state/index.js"
  );
  const codec = new AesGcmRequestStateCodec([randomBytes(32)]);
  const sealUnseal = await microsPerCall(runs, iterations, async () => {
    codec.unseal(codec.seal(payload));
  });
  const boundary = new RequestStateBoundary(new RequestStateSecurity({ keys: [randomBytes(32)] }), {
    defaultAudience: "bench",
  });
  type Ctx = Parameters<typeof boundary.handle>[0];
  type Next = Parameters<typeof boundary.handle>[1];
  const result = { resultType: "input_required", requestState: STATE } as const;
  const next: Next = async () => result;
  const ctx = (requestState: unknown): Ctx => {
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
  };
  const token = (await boundary.handle(ctx(undefined), next)).requestState;
  const retry = ctx(token);
  const passThrough = await microsPerCall(runs, iterations, () => next(retry));
  const bounded = await microsPerCall(runs, iterations, () => boundary.handle(retry, next));
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

export const scenario: Scenario = {
  id: "state",
  title: "Request-state sealing (issue 3)",
  async run(ctx: RunContext) {
    const results: Partial<Record<Side, StateBenchResult>> = {};
    for (const side of ["ours", "theirs"] as const) {
      ctx.log(`state: ${side}`);
      const { result } = await runChild<StateBenchResult>(
        compiled("bench/worker.ts"),
        { family: "state", side, quick: ctx.quick },
        { timeoutMs: 120_000 },
      );
      results[side] = result;
    }
    const ours = results.ours as StateBenchResult;
    const theirs = results.theirs as StateBenchResult;
    const us = (n: number | undefined) => `${fmt(n ?? Number.NaN, 2)} µs`;
    const rows: SummaryRow[] = [
      {
        scenario: `Request state: seal + unseal per second (${ours.payloadBytes}-byte payload)`,
        ours: `${fmt(ours.sealUnsealPerSecond)}/s (AES-GCM, bound claims)`,
        theirs: `${fmt(theirs.sealUnsealPerSecond)}/s (HMAC mint + verify, no binding)`,
        ratio: fmtRatio(ours.sealUnsealPerSecond / theirs.sealUnsealPerSecond),
        target: "— (report)",
        status: "info",
      },
      {
        scenario: "Request state: boundary cost per MRTR round (verify + reseal)",
        ours: us(ours.addedMicrosPerRound),
        theirs: "— (no boundary; handler mints)",
        ratio: "—",
        target: "— (report)",
        status: "info",
      },
    ];
    const details = [
      `Median of ${ours.runs} runs × ${ours.iterationsPerRun.toLocaleString("en-US")} iterations, after one untimed run.`,
      "",
      "| measure | roundtrip | official |",
      "| --- | --- | --- |",
      `| seal + unseal (${ours.payloadBytes}-byte payload) | ${fmt(ours.sealUnsealPerSecond)}/s | ${fmt(theirs.sealUnsealPerSecond)}/s (mint + verify) |`,
      `| MRTR round, pass-through | ${us(ours.passThroughMicrosPerRound)} | |`,
      `| MRTR round, boundary (verify + reseal) | ${us(ours.boundaryMicrosPerRound)} | |`,
      `| added by the boundary per round | ${us(ours.addedMicrosPerRound)} | |`,
    ].join("\n");
    return { rows, details, data: results };
  },
};
