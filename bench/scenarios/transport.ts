/**
 * Our Streamable HTTP cost per request (absorbs the former bench/http.bench.ts): the fetch handler
 * in-process, and a full client round trip over a real 127.0.0.1 socket (JSON answer, and SSE with
 * three progress notifications). roundtrip only — no official counterpart is measured here.
 */
import { compiled } from "../lib/build.js";
import { runChild } from "../lib/child.js";
import { microsPerCall } from "../lib/measure.js";
import type { RunContext, Scenario } from "../lib/scenario.js";
import { fmt } from "../lib/stats.js";

/** Medians over the measured runs, in microseconds per request. */
export interface HttpBenchResult {
  readonly runs: number;
  readonly iterationsPerRun: number;
  readonly handlerMicros: number;
  readonly socketJsonMicros: number;
  readonly socketSseMicros: number;
}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Child side. */
export async function work(input: unknown): Promise<HttpBenchResult> {
  const { quick } = input as { quick: boolean };
  const { ClientSession } = await import("../../src/client/index.js");
  const { Server, sendProgress, silentLogger } = await import("../../src/server/index.js");
  const { createHttpHandler, serveHttp, StreamableHttpClientTransport } = await import(
    "../../src/transports/http/index.js"
  );
  const iterations = quick ? 50 : 2_000;
  const runs = quick ? 2 : 7;
  const server = new Server("bench", {
    logger: silentLogger,
    onCallTool: async (ctx, params) => {
      if (params.name === "progress") for (let i = 1; i <= 3; i++) await sendProgress(ctx, i, 3);
      return { content: [{ type: "text", text: "ok" }] };
    },
  });
  const handler = createHttpHandler(server);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "echo", _meta: ENVELOPE },
  });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "echo",
  };
  const handlerMicros = await microsPerCall(runs, iterations, async () => {
    const response = await handler(new Request("http://localhost/mcp", { method: "POST", headers, body }));
    const text = await response.text();
    if (!text.includes('"ok"')) throw new Error(`unexpected handler answer ${text.slice(0, 200)}`);
  });
  const endpoint = await serveHttp(server);
  const session = await ClientSession.connect(new StreamableHttpClientTransport(endpoint.url));
  try {
    const socketJsonMicros = await microsPerCall(runs, iterations, () => session.callTool("echo", {}));
    let progress = 0;
    const socketSseMicros = await microsPerCall(runs, iterations, () =>
      session.callTool("progress", {}, { onProgress: () => progress++ }),
    );
    if (progress !== 3 * iterations * (runs + 1))
      throw new Error(`expected progress notifications, got ${progress}`);
    return { runs, iterationsPerRun: iterations, handlerMicros, socketJsonMicros, socketSseMicros };
  } finally {
    await session.close();
    await endpoint.close();
  }
}

export const scenario: Scenario = {
  id: "transport",
  title: "roundtrip Streamable HTTP, per request (ours only)",
  async run(ctx: RunContext) {
    ctx.log("transport: ours");
    const { result: r } = await runChild<HttpBenchResult>(
      compiled("bench/worker.ts"),
      { family: "transport", quick: ctx.quick },
      { timeoutMs: 120_000 },
    );
    const row = (label: string, micros: number) =>
      `| ${label} | ${fmt(micros, 1)} µs | ${fmt(1e6 / micros)}/s |`;
    const details = [
      `Median of ${r.runs} runs × ${r.iterationsPerRun.toLocaleString("en-US")} sequential requests, after one untimed run; low-level \`Server\` with a trivial tool.`,
      "",
      "| path | per request | throughput |",
      "| --- | --- | --- |",
      row("fetch handler, in-process, JSON answer", r.handlerMicros),
      row("client ↔ 127.0.0.1 socket, JSON answer", r.socketJsonMicros),
      row("client ↔ 127.0.0.1 socket, SSE (3 progress + result)", r.socketSseMicros),
    ].join("\n");
    return { rows: [], details, data: r };
  },
};
