// serverTelemetry() and a request the client cancels (`notifications/cancelled`): the client got no
// answer, so the span and the duration record a cancellation, never the -32603 the handler's abort
// would have become, and the low-level Server records it as MCPServer does.
import { SpanStatusCode } from "@opentelemetry/api";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { serverTelemetry } from "../../src/otel/index.js";
import { MCPServer, Server, silentLogger } from "../../src/server/index.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { wireTap } from "../helpers.js";
import { until } from "../transports/stdio/helpers.js";
import { CollectingReader, closers, durations, installTracing, serverSpans, tracer } from "./tracing.js";

installTracing();

/** A handler that runs until its request is aborted, then fails as handlers do: with the abort's reason. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));

/** Calls `slow`, cancels it once the server runs it, and returns the spans, durations and wire. */
async function cancelSlowCall(target: Server | MCPServer, reader: CollectingReader, started: () => boolean) {
  const tap = wireTap();
  const client = await Client.connect(new MemoryTransport(target, { onWire: tap.onWire }));
  closers.push(() => client.close());
  const controller = new AbortController();
  const call = client.callTool("slow", {}, { signal: controller.signal }).catch((error: unknown) => error);
  await until(started, "the handler to start");
  controller.abort();
  expect(await call).toMatchObject({ name: "RequestAbortedError" });
  await until(() => serverSpans().length === 1, "the server span to end");
  const id = tap.sent().find((message) => message.method === "tools/call")?.id;
  // A real cancel went over the wire, and the server answered nothing for the request.
  expect(tap.sent().at(-1)).toMatchObject({ method: "notifications/cancelled", params: { requestId: id } });
  expect(tap.received().filter((message) => message.id === id)).toEqual([]);
  return {
    id,
    span: serverSpans()[0],
    points: (await durations(reader, "mcp.server.operation.duration")).points,
  };
}

const TOOL = {
  "mcp.method.name": "tools/call",
  "gen_ai.tool.name": "slow",
  "gen_ai.operation.name": "execute_tool",
  "mcp.protocol.version": "2026-07-28",
};
const CANCELLED = { ...TOOL, "error.type": "cancelled" };

/** Cancels a call of an `MCPServer` tool `slow` that answers its abort as `answer` does. */
async function cancelMcpServerTool(answer: (signal: AbortSignal) => Promise<unknown>) {
  const reader = new CollectingReader();
  const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
  let started = false;
  const mcp = new MCPServer("cancels", {
    logger: silentLogger,
    telemetry: serverTelemetry({ tracer, meter }),
  });
  mcp.tool("slow", {}, (_args, ctx) => {
    started = true;
    return answer(ctx.signal) as Promise<string>;
  });
  return cancelSlowCall(mcp, reader, () => started);
}

/** The span and the duration of a cancelled call: "cancelled", no status code, one data point. */
function expectCancelled({ id, span, points }: Awaited<ReturnType<typeof cancelSlowCall>>): void {
  expect(span?.attributes).toEqual({ ...CANCELLED, "jsonrpc.request.id": String(id) });
  expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: "The request was cancelled" });
  expect(points.filter((point) => point.attributes["mcp.method.name"] === "tools/call")).toEqual([
    { attributes: CANCELLED, count: 1 },
  ]);
}

describe("serverTelemetry() on a cancelled request", () => {
  it("low-level Server: error.type cancelled, no -32603, no exception", async () => {
    const reader = new CollectingReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
    let started = false;
    const server = new Server("cancels", {
      logger: silentLogger,
      telemetry: serverTelemetry({ tracer, meter }),
      onListTools: () => ({ tools: [] }),
      onCallTool: (ctx) => {
        started = true;
        return untilAborted(ctx.signal);
      },
    });
    const cancelled = await cancelSlowCall(server, reader, () => started);
    expectCancelled(cancelled);
    expect(cancelled.span?.events).toEqual([]);
  });

  it("MCPServer: the same, though its tool turned the abort into an isError result", async () => {
    expectCancelled(await cancelMcpServerTool((signal) => untilAborted(signal)));
  });
  it("a handler that answers its abort with a plain result: still a cancellation, the client got nothing", async () => {
    expectCancelled(
      await cancelMcpServerTool(
        (signal) =>
          new Promise<string>((resolve) => signal.addEventListener("abort", () => resolve("stopped"))),
      ),
    );
  });
});
