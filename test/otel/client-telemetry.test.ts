// clientTelemetry(), the example that ties both sides to one trace, and the operation durations both
// sides record, with the real OpenTelemetry SDK.
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, vi } from "vitest";
import { mcp as exampleServer, tracedClient } from "../../examples/otel-telemetry.js";
import { Client } from "../../src/client/index.js";
import { clientTelemetry, serverTelemetry } from "../../src/otel/index.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import { serveHttp } from "../../src/transports/http/index.js";
import { PROVISIONER, REPO_ROOT } from "../transports/stdio/helpers.js";
import { ELICIT, tracedServer } from "./fixtures.js";
import {
  CollectingReader,
  closers,
  durations,
  exporter,
  installTracing,
  serverSpans,
  statusFailingTracer,
  tracer,
} from "./tracing.js";

installTracing();

describe("clientTelemetry()", () => {
  const clientSpans = () => exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CLIENT);

  it("one CLIENT span per round, each the parent of the server's span for that round (HTTP)", async () => {
    const mcp = tracedServer();
    const wireMeta: unknown[] = [];
    const wireIds: unknown[] = [];
    mcp.server.middleware.push(async (ctx, next) => {
      if (ctx.method === "tools/call") {
        wireMeta.push(ctx.params._meta);
        wireIds.push(ctx.requestId);
      }
      return next(ctx);
    });
    const http = await serveHttp(mcp, { port: 0 });
    closers.push(() => http.close());
    const client = await Client.connect(http.url, {
      elicitation: async () => ELICIT,
      instrument: clientTelemetry({ tracer }),
    });
    closers.push(() => client.close());
    exporter.reset();
    const caller = tracer.startSpan("agent step");
    await context.with(trace.setSpan(context.active(), caller), () =>
      client.callTool("ask", { name: "orders" }),
    );
    caller.end();
    const rounds = clientSpans();
    expect(rounds.map((span) => span.name)).toEqual(["tools/call ask", "tools/call ask"]);
    // Each round went out with its own id, and its span names that one (after discover's, 1).
    expect(wireIds).toEqual([2, 3]);
    const url = new URL(http.url);
    const onHttp = {
      "mcp.protocol.version": "2026-07-28",
      "network.transport": "tcp",
      "network.protocol.name": "http",
      "server.address": url.hostname,
      "server.port": Number(url.port),
    };
    expect(rounds[0]?.attributes).toEqual({
      ...onHttp,
      "mcp.method.name": "tools/call",
      "jsonrpc.request.id": "2",
      "gen_ai.tool.name": "ask",
      "gen_ai.operation.name": "execute_tool",
      "roundtrip.result_type": "input_required",
    });
    expect(rounds[1]?.attributes).toEqual({
      ...onHttp,
      "mcp.method.name": "tools/call",
      "jsonrpc.request.id": "3",
      "gen_ai.tool.name": "ask",
      "gen_ai.operation.name": "execute_tool",
    });
    const served = serverSpans();
    expect(served).toHaveLength(2);
    for (const [index, round] of rounds.entries()) {
      // On the wire: W3C traceparent of this round's client span, in the request's _meta (SEP-414).
      const { traceId, spanId } = round.spanContext();
      expect(wireMeta[index]).toMatchObject({ traceparent: `00-${traceId}-${spanId}-01` });
      expect(round.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      expect(served[index]?.parentSpanContext?.spanId).toBe(round.spanContext().spanId);
      expect(served[index]?.spanContext().traceId).toBe(caller.spanContext().traceId);
    }
  });

  it("on a 2025 session too, from initialize on: each server span is the child of its client span (HTTP)", async () => {
    const mcp = tracedServer();
    const http = await serveHttp(mcp, { port: 0 });
    closers.push(() => http.close());
    const caller = tracer.startSpan("agent step");
    const client = await context.with(trace.setSpan(context.active(), caller), () =>
      Client.connect(http.url, { mode: "legacy", instrument: clientTelemetry({ tracer }) }),
    );
    closers.push(() => client.close());
    await context.with(trace.setSpan(context.active(), caller), async () => {
      await client.callTool("nested", {});
      await client.getPrompt("brief", { audience: "board" });
    });
    caller.end();
    const sent = clientSpans();
    const served = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
    expect(sent.map((span) => span.name)).toEqual(["initialize", "tools/call nested", "prompts/get brief"]);
    expect(served.map((span) => [span.name, span.attributes["mcp.protocol.version"]])).toEqual([
      ["initialize", "2025-11-25"],
      ["tools/call nested", "2025-11-25"],
      ["prompts/get brief", "2025-11-25"],
    ]);
    for (const [index, round] of sent.entries()) {
      expect(served[index]?.parentSpanContext?.spanId).toBe(round.spanContext().spanId);
      expect(served[index]?.spanContext().traceId).toBe(caller.spanContext().traceId);
      // The id the server received is the one the client span names.
      expect(round.attributes["jsonrpc.request.id"]).toBe(served[index]?.attributes["jsonrpc.request.id"]);
    }
    expect(sent.map((span) => span.attributes["jsonrpc.request.id"])).toEqual(["1", "2", "3"]);
    // The client's spans name the version it speaks from the handshake on, and the HTTP peer.
    for (const span of sent) {
      expect(span.attributes).toMatchObject({
        "mcp.protocol.version": "2025-11-25",
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "server.port": Number(new URL(http.url).port),
      });
    }
  });

  it("in process: the version it speaks, and no network attributes", async () => {
    const traced = await Client.connect(tracedServer(), { instrument: clientTelemetry({ tracer }) });
    closers.push(() => traced.close());
    exporter.reset();
    await traced.callTool("fails", {}).catch(() => {});
    const [span] = clientSpans();
    expect(span?.attributes["mcp.protocol.version"]).toBe("2026-07-28");
    expect(Object.keys(span?.attributes ?? {}).filter((key) => /^(network|server)\./.test(key))).toEqual([]);
  });

  it('over stdio: network.transport "pipe", and no server address (a real child process)', async () => {
    const traced = await Client.connect(
      { command: process.execPath, args: ["--import", "tsx", PROVISIONER], cwd: REPO_ROOT },
      {
        elicitation: async () => ({ action: "accept", content: { region: "eu-west-1" } }),
        instrument: clientTelemetry({ tracer }),
      },
    );
    closers.push(() => traced.close());
    exporter.reset();
    await traced.callTool("provision", { name: "orders" });
    const rounds = clientSpans();
    expect(rounds).toHaveLength(2);
    for (const round of rounds) {
      expect(round.attributes).toEqual({
        "mcp.method.name": "tools/call",
        "mcp.protocol.version": "2026-07-28",
        "network.transport": "pipe",
        "jsonrpc.request.id": expect.any(String),
        "gen_ai.tool.name": "provision",
        "gen_ai.operation.name": "execute_tool",
        ...(round === rounds[0] ? { "roundtrip.result_type": "input_required" } : {}),
      });
    }
  });

  it("marks every failure as an error: JSON-RPC codes, tool errors, local failures", async () => {
    const traced = await Client.connect(tracedServer(), { instrument: clientTelemetry({ tracer }) });
    closers.push(() => traced.close());
    exporter.reset();
    await traced.callTool("refuses", {}).catch(() => {});
    await traced.callTool("fails", {}).catch(() => {});
    await traced
      .callTool("ask", { name: "orders" }, { timeoutMs: 1, signal: AbortSignal.abort() })
      .catch(() => {});
    const [refuses, fails, aborted] = clientSpans() as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(refuses.attributes).toMatchObject({
      "rpc.response.status_code": "-32602",
      "error.type": "-32602",
    });
    expect(refuses.status).toEqual({ code: SpanStatusCode.ERROR, message: "no such account" });
    expect(fails.attributes["error.type"]).toBe("tool_error");
    expect(aborted.status.code).toBe(SpanStatusCode.ERROR);
    expect(aborted.attributes["error.type"]).toEqual(expect.any(String));
    expect(aborted.attributes["rpc.response.status_code"]).toBeUndefined();
  });
});

describe("an instrument that throws", () => {
  it("fails no call, whether it throws as the request goes out or as it ends, and is warned of", async () => {
    const warnings: string[] = [];
    let failing: "start" | "end" | undefined;
    const client = await Client.connect(tracedServer(), {
      onWarning: (message) => warnings.push(message),
      instrument: () => {
        if (failing === "start") throw new Error("exporter down");
        return {
          end: () => {
            if (failing === "end") throw new Error("exporter down");
          },
        };
      },
    });
    closers.push(() => client.close());
    for (failing of ["start", "end"] as const) {
      expect(await client.callTool("fails", {})).toMatchObject({ isError: true });
      await expect(client.callTool("refuses", {})).rejects.toThrow("no such account");
    }
    expect(warnings).toEqual(Array(4).fill("instrument failed on tools/call: exporter down"));
  });
});

describe("clientTelemetry() with a span whose status cannot be set", () => {
  it("still ends the span, and the call stands", async () => {
    const warnings: string[] = [];
    const faulty = statusFailingTracer();
    const client = await Client.connect(tracedServer(), {
      instrument: clientTelemetry({ tracer: faulty }),
      onWarning: (message) => warnings.push(message),
    });
    closers.push(() => client.close());
    expect(await client.callTool("fails", {})).toMatchObject({ isError: true });
    const span = exporter
      .getFinishedSpans()
      .find((each) => each.kind === SpanKind.CLIENT && each.name === "tools/call fails");
    expect(span?.attributes["error.type"]).toBe("tool_error");
    expect(warnings).toEqual(["instrument failed on tools/call: status down"]);
  });
});

describe("clientTelemetry() on a listen stream", () => {
  const isListen = (span: ReadableSpan) => span.name === "subscriptions/listen";
  it("a stream the client closes ended as it should: no error, on either side", async () => {
    const watched = new MCPServer("watched", {
      logger: silentLogger,
      telemetry: serverTelemetry({ tracer }),
      listChanged: true,
    });
    watched.tool("hello", {}, () => "hi");
    const client = await Client.connect(watched, { instrument: clientTelemetry({ tracer }) });
    closers.push(() => client.close());
    const subscription = client.listen({ toolsListChanged: true }, () => {});
    await subscription.acknowledged;
    subscription.close();
    await subscription.closed;
    await vi.waitFor(() => expect(exporter.getFinishedSpans().filter(isListen)).toHaveLength(2));
    const outcome = (kind: SpanKind) => {
      const span = exporter.getFinishedSpans().find((each) => isListen(each) && each.kind === kind);
      return [span?.status.code, span?.attributes["error.type"]];
    };
    expect(outcome(SpanKind.CLIENT)).toEqual([SpanStatusCode.UNSET, undefined]);
    expect(outcome(SpanKind.SERVER)).toEqual([SpanStatusCode.UNSET, undefined]);
  });
});

describe("clientTelemetry() on the requests that name a resource", () => {
  it("resources/read, resources/subscribe and resources/unsubscribe carry mcp.resource.uri", () => {
    const instrument = clientTelemetry({ tracer });
    for (const method of ["resources/read", "resources/subscribe", "resources/unsubscribe"]) {
      instrument(method, { uri: "notes://today" }, 7, { protocolVersion: "2025-06-18" })?.end({ result: {} });
    }
    expect(
      exporter.getFinishedSpans().map((span) => [span.name, span.attributes["mcp.resource.uri"]]),
    ).toEqual([
      ["resources/read", "notes://today"],
      ["resources/subscribe", "notes://today"],
      ["resources/unsubscribe", "notes://today"],
    ]);
  });
});

describe("examples/otel-telemetry.ts", () => {
  it("ties every round, on both sides, and the handler's span to the caller's trace (global tracer provider)", async () => {
    const client = await tracedClient();
    closers.push(() => client.close());
    expect(exampleServer.server.middleware[0]).toBeTypeOf("function");
    exporter.reset();
    const caller = tracer.startSpan("user request");
    const result = await context.with(trace.setSpan(context.active(), caller), () =>
      client.callTool("provision", { name: "orders" }),
    );
    caller.end();
    expect(result.content).toEqual([{ type: "text", text: "Provisioned 'orders' in eu-west-1." }]);
    const sent = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CLIENT);
    const handled = serverSpans();
    expect(sent.map((span) => span.name)).toEqual(["tools/call provision", "tools/call provision"]);
    expect(handled.map((span) => span.name)).toEqual(["tools/call provision", "tools/call provision"]);
    for (const [index, round] of sent.entries()) {
      expect(round.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      expect(handled[index]?.parentSpanContext?.spanId).toBe(round.spanContext().spanId);
    }
    const work = exporter.getFinishedSpans().find((span) => span.name === "create database");
    expect(work?.parentSpanContext?.spanId).toBe(handled[1]?.spanContext().spanId);
  });
});

describe("operation durations (mcp.*.operation.duration)", () => {
  it("records one duration per round on both sides, with the conventions' low-cardinality attributes", async () => {
    const reader = new CollectingReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
    const mcp = tracedServer({ tracer, meter, recordArguments: true });
    const http = await serveHttp(mcp, { port: 0 });
    closers.push(() => http.close());
    const client = await Client.connect(http.url, {
      elicitation: async () => ELICIT,
      instrument: clientTelemetry({ tracer, meter }),
    });
    closers.push(() => client.close());
    await client.callTool("ask", { name: "orders" });
    await client.callTool("refuses", {}).catch(() => {});

    const server = await durations(reader, "mcp.server.operation.duration");
    expect(server.unit).toBe("s");
    expect(server.boundaries).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
    const onHttp = {
      "mcp.protocol.version": "2026-07-28",
      "network.transport": "tcp",
      "network.protocol.name": "http",
    };
    const tool = (name: string) => ({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": name,
      "gen_ai.operation.name": "execute_tool",
    });
    expect(server.points).toEqual(
      [
        { attributes: { "mcp.method.name": "server/discover", ...onHttp }, count: 1 },
        { attributes: { ...tool("ask"), ...onHttp, "roundtrip.result_type": "input_required" }, count: 1 },
        { attributes: { ...tool("ask"), ...onHttp }, count: 1 },
        { attributes: { ...tool("refuses"), ...onHttp, "rpc.response.status_code": "-32602" }, count: 1 },
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );

    const sent = await durations(reader, "mcp.client.operation.duration");
    const url = new URL(http.url);
    const toServer = { ...onHttp, "server.address": url.hostname, "server.port": Number(url.port) };
    expect(sent.points).toEqual(
      [
        { attributes: { "mcp.method.name": "server/discover", ...toServer }, count: 1 },
        { attributes: { ...tool("ask"), ...toServer, "roundtrip.result_type": "input_required" }, count: 1 },
        { attributes: { ...tool("ask"), ...toServer }, count: 1 },
        {
          attributes: {
            ...tool("refuses"),
            ...toServer,
            "rpc.response.status_code": "-32602",
            "error.type": "-32602",
          },
          count: 1,
        },
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  });
});
