/**
 * Streamable HTTP cost per request: the fetch handler in-process, and a full client round trip
 * over a real 127.0.0.1 socket (JSON answer, and SSE with three progress notifications).
 * Run: `npx tsx bench/http.bench.ts [--quick]`.
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { ClientSession } from "../src/client/session.js";
import { silentLogger } from "../src/server/logger.js";
import { sendProgress } from "../src/server/notify.js";
import { Server } from "../src/server/server.js";
import { StreamableHttpClientTransport } from "../src/transports/http/client.js";
import { createHttpHandler } from "../src/transports/http/handler.js";
import { serveHttp } from "../src/transports/http/node.js";

/**
 * Medians over the measured runs, in microseconds per request.
 *
 * @example
 * const result: HttpBenchResult = await runHttpBench({ quick: true });
 */
export interface HttpBenchResult {
  readonly runs: number;
  readonly iterationsPerRun: number;
  readonly handlerMicros: number;
  readonly socketJsonMicros: number;
  readonly socketSseMicros: number;
}

function benchServer(): Server {
  return new Server("bench", {
    logger: silentLogger,
    onCallTool: async (ctx, params) => {
      if (params.name === "progress") for (let i = 1; i <= 3; i++) await sendProgress(ctx, i, 3);
      return { content: [{ type: "text", text: "ok" }] };
    },
  });
}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * Measures the three paths; `quick` trades precision for a sub-second run (for CI smoke).
 *
 * @example
 * console.log(formatHttpBench(await runHttpBench({ quick: false })));
 */
export async function runHttpBench({ quick }: { quick: boolean }): Promise<HttpBenchResult> {
  const iterations = quick ? 200 : 2_000;
  const runs = quick ? 3 : 7;
  const server = benchServer();
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
  const handlerMicros = await measure(runs, iterations, async () => {
    const response = await handler(new Request("http://localhost/mcp", { method: "POST", headers, body }));
    await response.text();
  });

  const endpoint = await serveHttp(server);
  const session = await ClientSession.connect(new StreamableHttpClientTransport(endpoint.url));
  try {
    const socketJsonMicros = await measure(runs, iterations, () => session.callTool("echo", {}));
    const socketSseMicros = await measure(runs, iterations, () =>
      session.callTool("progress", {}, { onProgress: () => {} }),
    );
    return { runs, iterationsPerRun: iterations, handlerMicros, socketJsonMicros, socketSseMicros };
  } finally {
    await session.close();
    await endpoint.close();
  }
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

/**
 * The numbers as a small markdown table.
 *
 * @example
 * console.log(formatHttpBench(await runHttpBench({ quick: true })));
 */
export function formatHttpBench(r: HttpBenchResult): string {
  const row = (label: string, micros: number) =>
    `| ${label} | ${micros.toFixed(1)} µs | ${Math.round(1e6 / micros).toLocaleString("en-US")} /s |`;
  return [
    `Streamable HTTP (median of ${r.runs} runs × ${r.iterationsPerRun}, sequential, after warm-up)`,
    "",
    "| path | per request | throughput |",
    "| --- | --- | --- |",
    row("fetch handler, in-process, JSON answer", r.handlerMicros),
    row("client ↔ 127.0.0.1 socket, JSON answer", r.socketJsonMicros),
    row("client ↔ 127.0.0.1 socket, SSE (3 progress + result)", r.socketSseMicros),
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(formatHttpBench(await runHttpBench({ quick: process.argv.includes("--quick") })));
}
