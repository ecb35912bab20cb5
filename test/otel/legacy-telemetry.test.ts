// serverTelemetry() on a 2025 session: what the session answers itself, what it refuses before the
// chain, and the rounds of the legacy shim, with the real OpenTelemetry SDK.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { serverTelemetry } from "../../src/otel/index.js";
import { inputRequired, MCPServer, type ServerTelemetry, silentLogger } from "../../src/server/index.js";
import { serveHttp } from "../../src/transports/http/index.js";
import { CLIENT_INFO, RawLegacyClient } from "../legacy/helpers.js";
import { openSession, post as postLegacy } from "../legacy/http-helpers.js";
import { askRegion, tracedServer } from "./fixtures.js";
import { closers, exporter, installTracing, serverSpans, tracer } from "./tracing.js";

installTracing();

describe("serverTelemetry() on a 2025 session", () => {
  const spanSummary = () =>
    exporter
      .getFinishedSpans()
      .filter((span) => span.kind === SpanKind.SERVER)
      .map((span) => [
        span.name,
        span.attributes["mcp.protocol.version"],
        span.attributes["rpc.response.status_code"],
      ]);
  const codeOf = (answer: unknown) => (answer as { error?: { code: number } } | undefined)?.error?.code;

  it("traces what the session answers itself and reports what it refuses before the chain", async () => {
    const mcp = tracedServer();
    // Before initialize, transports route a message to the modern path; only the session sees these.
    const session = mcp.server.legacy?.openSession();
    const send = async () => {};
    const early = [
      await session?.handle({ jsonrpc: "2.0", id: 1, method: "ping" }, { send }),
      await session?.handle({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { send }),
      await session?.handle(
        { jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: 2025 } },
        { send },
      ),
    ];
    expect(early.map(codeOf)).toEqual([undefined, -32600, -32602]);
    const legacy = new RawLegacyClient(mcp);
    await legacy.initialize({}, "2025-06-18");
    const later = [
      await legacy.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: CLIENT_INFO,
      }),
      await legacy.request("ping"),
      await legacy.request("logging/setLevel", { level: "debug" }),
      await legacy.request("logging/setLevel", { level: "loudest" }),
      await legacy.request("resources/subscribe", { uri: "notes://today" }),
      await legacy.request("tools/destroy-everything-8812"),
      await legacy.request("server/discover"),
      await legacy.call("ask", "not an object" as never),
      await legacy.request("prompts/get", { name: "brief", arguments: { audience: "board" } }),
    ];
    expect(later.map(codeOf)).toEqual([
      -32600,
      undefined,
      undefined,
      -32602,
      -32601,
      -32601,
      -32601,
      -32602,
      undefined,
    ]);
    expect(spanSummary()).toEqual([
      // A ping before initialize has no version to report: answered, not traced.
      ["tools/list", undefined, "-32600"],
      ["initialize", undefined, "-32602"],
      ["initialize", "2025-06-18", undefined],
      ["initialize", "2025-06-18", "-32600"],
      ["ping", "2025-06-18", undefined],
      ["logging/setLevel", "2025-06-18", undefined],
      ["logging/setLevel", "2025-06-18", "-32602"],
      ["resources/subscribe", "2025-06-18", "-32601"],
      ["_OTHER", "2025-06-18", "-32601"],
      ["server/discover", "2025-06-18", "-32601"],
      ["tools/call", "2025-06-18", "-32602"],
      ["prompts/get brief", "2025-06-18", undefined],
    ]);
  });

  it("an invalid result on a 2025 session is the error the client got, shim or not", async () => {
    const plain = new RawLegacyClient(tracedServer());
    await plain.initialize({ elicitation: {} });
    // A hand-built input_required with no shim: nowhere to go on a 2025 session.
    expect(await plain.call("ask", { name: "orders" })).toMatchObject({
      error: { code: -32603, message: "Handler returned an invalid result" },
    });
    const spans = serverSpans().filter((span) => span.name === "tools/call ask");
    expect(spans).toHaveLength(1);
    expect(spans[0]?.attributes).toMatchObject({
      "rpc.response.status_code": "-32603",
      "error.type": "-32603",
    });
    expect(spans[0]?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "Handler returned an invalid result",
    });
  });

  it("with the shim, each round is a span: the one that asked, then the one that completed", async () => {
    const mcp = new MCPServer("shimmed", {
      logger: silentLogger,
      telemetry: serverTelemetry({ tracer }),
      legacy: { shim: true },
    });
    let malformed = false;
    mcp.tool("ask", {}, (_args, ctx) => {
      if (malformed) return inputRequired({ inputRequests: { region: { method: "nope" } } as never });
      return ctx.requestState === "asked" ? "done" : askRegion();
    });
    const legacy = new RawLegacyClient(mcp);
    await legacy.initialize({ elicitation: {} });
    expect(await legacy.call("ask")).toMatchObject({ result: { content: [{ type: "text", text: "done" }] } });
    malformed = true;
    expect(await legacy.call("ask")).toMatchObject({ error: { code: -32603 } });
    const rounds = serverSpans().filter((span) => span.name === "tools/call ask");
    expect(
      rounds.map((span) => [
        span.attributes["roundtrip.result_type"],
        span.attributes["rpc.response.status_code"],
      ]),
    ).toEqual([
      ["input_required", undefined],
      [undefined, undefined],
      [undefined, "-32603"],
    ]);
  });

  it("resources/subscribe and resources/unsubscribe carry the resource URI", async () => {
    const mcp = new MCPServer("watched", {
      logger: silentLogger,
      telemetry: serverTelemetry({ tracer }),
      listChanged: true,
    });
    mcp.resource("notes://today", {}, () => "nothing");
    const legacy = new RawLegacyClient(mcp);
    await legacy.initialize({}, "2025-06-18");
    expect(await legacy.request("resources/subscribe", { uri: "notes://today" })).toMatchObject({
      result: {},
    });
    expect(await legacy.request("resources/unsubscribe", { uri: "notes://today" })).toMatchObject({
      result: {},
    });
    const spans = serverSpans().filter((span) => span.name.startsWith("resources/"));
    expect(spans.map((span) => [span.name, span.attributes["mcp.resource.uri"]])).toEqual([
      ["resources/subscribe", "notes://today"],
      ["resources/unsubscribe", "notes://today"],
    ]);
  });

  it("over HTTP: the session's own answers and refusals carry the HTTP attributes", async () => {
    const http = await serveHttp(tracedServer(), { port: 0 });
    closers.push(() => http.close());
    const opened = await openSession(http.url.href);
    expect(opened.status).toBe(200);
    const refused = await postLegacy(
      http.url.href,
      { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "loudest" } },
      opened.headers,
    );
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32602);
    const spans = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
    expect(spans.map((span) => [span.name, span.attributes["rpc.response.status_code"]])).toEqual([
      ["initialize", undefined],
      ["logging/setLevel", "-32602"],
    ]);
    for (const span of spans) {
      expect(span.attributes).toMatchObject({
        "mcp.protocol.version": "2025-11-25",
        "network.transport": "tcp",
        "network.protocol.name": "http",
      });
    }
  });

  it("two initializes at once through a telemetry that awaits: one session, the other refused", async () => {
    const telemetry: ServerTelemetry = async (ctx, next) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return next(ctx);
    };
    const mcp = new MCPServer("slow-telemetry", { logger: silentLogger, telemetry });
    const session = mcp.server.legacy?.openSession();
    const hello = (id: number, protocolVersion: string) =>
      session?.handle(
        {
          jsonrpc: "2.0",
          id,
          method: "initialize",
          params: { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO },
        },
        { send: async () => {} },
      );
    const [first, second] = await Promise.all([hello(1, "2025-06-18"), hello(2, "2025-11-25")]);
    expect(first).toMatchObject({ id: 1, result: { protocolVersion: "2025-06-18" } });
    expect(second).toMatchObject({
      id: 2,
      error: { code: -32600, message: "Invalid Request: the session is already initialized" },
    });
    expect(session?.protocolVersion).toBe("2025-06-18");
  });

  it("a refusal hook or a telemetry middleware that throws changes no answer, and is logged", async () => {
    const logged: string[] = [];
    const telemetry = Object.assign(
      async () => {
        throw new Error("exporter down");
      },
      {
        refused: () => {
          throw new Error("exporter down");
        },
      },
    );
    const mcp = new MCPServer("broken-telemetry", {
      logger: { ...silentLogger, error: (message) => logged.push(message) },
      telemetry,
    });
    const legacy = new RawLegacyClient(mcp);
    expect(await legacy.initialize()).toMatchObject({ error: { code: -32603, message: "Internal error" } });
    expect(codeOf(await legacy.request("tools/list"))).toBe(-32600);
    expect(logged).toEqual([
      expect.stringMatching(/^initialize: handler failed: Error: exporter down\n/),
      "telemetry failed on a refused request: exporter down",
    ]);
  });
});
