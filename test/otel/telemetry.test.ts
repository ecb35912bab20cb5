// serverTelemetry(): the spans an MCP server reports, checked with the real OpenTelemetry SDK (in-memory
// exporter, AsyncLocalStorage context, W3C propagation) over the in-memory transport and HTTP.
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { mcp as exampleServer, tracedClient } from "../../examples/otel-telemetry.js";
import { Client } from "../../src/client/index.js";
import { clientTelemetry, serverTelemetry } from "../../src/otel/index.js";
import {
  inputRequired,
  MCPServer,
  Server,
  type ServerTelemetry,
  silentLogger,
} from "../../src/server/index.js";
import { serveHttp } from "../../src/transports/http/index.js";
import { ErrorCode, McpError } from "../../src/types/index.js";
import { CLIENT_INFO, RawLegacyClient } from "../legacy/helpers.js";
import { openSession, post as postLegacy } from "../legacy/http-helpers.js";
import { post, rpc } from "../transports/http/helpers.js";
import {
  CollectingReader,
  closers,
  durations,
  exporter,
  installTracing,
  serverSpans,
  tracer,
} from "./tracing.js";

installTracing();
const ELICIT = { action: "accept", content: { region: "eu-west-1" } } as const;

/** A hand-built round that asks for a region, its state the plain text "asked". */
const askRegion = () =>
  inputRequired({
    inputRequests: {
      region: {
        method: "elicitation/create",
        params: { mode: "form", message: "Region?", requestedSchema: { type: "object", properties: {} } },
      },
    },
    requestState: "asked",
  });

/** A server with telemetry first in its chain and a few tools that end in each way. */
function tracedServer(options: Parameters<typeof serverTelemetry>[0] = { tracer }): MCPServer {
  const mcp = new MCPServer("traced", { logger: silentLogger, telemetry: serverTelemetry(options) });
  mcp.tool("ask", { input: z.object({ name: z.string() }) }, (_args, ctx) =>
    ctx.requestState === "asked" ? "done" : askRegion(),
  );
  mcp.tool("nested", {}, () =>
    tracer.startActiveSpan("inner work", (span) => {
      span.end();
      return "ok";
    }),
  );
  mcp.tool("refuses", {}, () => {
    throw new McpError(ErrorCode.InvalidParams, "no such account");
  });
  mcp.tool("custom", {}, () => {
    throw new McpError(1001, "quota exceeded");
  });
  mcp.tool("crashes", {}, () => {
    throw new Error("connection string postgres://u:p@db failed");
  });
  mcp.tool("fails", {}, () => ({ content: [{ type: "text", text: "nope" }], isError: true }));
  mcp.prompt(
    "brief",
    { arguments: z.object({ audience: z.string() }) },
    ({ audience }) => `Brief for ${audience}`,
  );
  mcp.prompt("broken", {}, () => {
    throw new Error("connection string postgres://u:p@db failed");
  });
  mcp.resource("notes://today", {}, () => "nothing");
  return mcp;
}

/** The client side of SEP-414: the active trace context, as `_meta` keys. */
function injectTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

async function connect(mcp: MCPServer, requestMeta?: () => Record<string, unknown>): Promise<Client> {
  const client = await Client.connect(mcp, { elicitation: async () => ELICIT, requestMeta });
  closers.push(() => client.close());
  return client;
}

describe("serverTelemetry()", () => {
  it("traces connecting too: server/discover is a handled request", async () => {
    await connect(tracedServer());
    const discover = exporter.getFinishedSpans().filter((span) => span.name === "server/discover");
    expect(discover).toHaveLength(1);
    expect(discover[0]?.attributes["gen_ai.operation.name"]).toBeUndefined();
  });

  it("reports one SERVER span per round of a multi-round-trip call, with the conventions' attributes", async () => {
    const client = await connect(tracedServer());
    await client.callTool("ask", { name: "orders" });
    const spans = serverSpans();
    expect(spans.map((span) => span.name)).toEqual(["tools/call ask", "tools/call ask"]);
    const [first, second] = spans as [ReadableSpan, ReadableSpan];
    expect(first.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": "2026-07-28",
      "jsonrpc.request.id": expect.any(String),
      "gen_ai.tool.name": "ask",
      "gen_ai.operation.name": "execute_tool",
      "roundtrip.result_type": "input_required",
    });
    expect(second.attributes["roundtrip.result_type"]).toBeUndefined();
    expect(second.attributes["jsonrpc.request.id"]).not.toBe(first.attributes["jsonrpc.request.id"]);
    for (const span of spans) expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("continues the client's trace from _meta and parents the handler's own spans (HTTP)", async () => {
    // Over HTTP the server's async context is not the caller's: only _meta can carry the trace.
    const http = await serveHttp(tracedServer(), { port: 0 });
    closers.push(() => http.close());
    const client = await Client.connect(http.url, { requestMeta: injectTraceContext });
    closers.push(() => client.close());
    const caller = tracer.startSpan("agent step");
    await context.with(trace.setSpan(context.active(), caller), () => client.callTool("nested", {}));
    caller.end();
    const server = serverSpans().find((span) => span.name === "tools/call nested");
    const inner = exporter.getFinishedSpans().find((span) => span.name === "inner work");
    expect(server?.spanContext().traceId).toBe(caller.spanContext().traceId);
    expect(server?.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(inner?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
  });

  it("starts a new trace when the request carries no context", async () => {
    const http = await serveHttp(tracedServer(), { port: 0 });
    closers.push(() => http.close());
    const client = await Client.connect(http.url);
    closers.push(() => client.close());
    const caller = tracer.startSpan("agent step");
    await context.with(trace.setSpan(context.active(), caller), () => client.callTool("nested", {}));
    caller.end();
    const server = serverSpans()[0];
    expect(server?.parentSpanContext).toBeUndefined();
    expect(server?.spanContext().traceId).not.toBe(caller.spanContext().traceId);
  });

  it("names other methods' spans after the method alone, whatever their params hold", async () => {
    const mcp = tracedServer();
    mcp.server.setRequestHandler("acme/lookup", () => ({ found: true }));
    const client = await connect(mcp);
    await client.session.request("acme/lookup", { name: "customer-8812" });
    expect(serverSpans()[0]?.name).toBe("acme/lookup");
    expect(serverSpans()[0]?.attributes["gen_ai.tool.name"]).toBeUndefined();
  });

  it("records errors as the conventions say: caller mistakes are not server errors", async () => {
    const client = await connect(tracedServer());
    for (const name of ["refuses", "custom", "crashes", "fails"])
      await client.callTool(name, {}).catch(() => {});
    await client.getPrompt("broken", {}).catch(() => {});
    const byName = new Map(serverSpans().map((span) => [span.name, span]));
    const refuses = byName.get("tools/call refuses");
    expect(refuses?.attributes["rpc.response.status_code"]).toBe("-32602");
    expect(refuses?.attributes["error.type"]).toBeUndefined();
    expect(refuses?.status.code).toBe(SpanStatusCode.UNSET);

    const custom = byName.get("tools/call custom");
    expect(custom?.attributes).toMatchObject({ "rpc.response.status_code": "1001", "error.type": "1001" });
    expect(custom?.status).toEqual({ code: SpanStatusCode.ERROR, message: "quota exceeded" });

    // MCPServer turns a tool's own exception into an isError result, as the spec asks.
    const crashes = byName.get("tools/call crashes");
    expect(crashes?.attributes["error.type"]).toBe("tool_error");

    // Elsewhere it is an internal error: the wire's message, the exception kept for the operator.
    const broken = byName.get("prompts/get broken");
    expect(broken?.attributes).toMatchObject({
      "rpc.response.status_code": "-32603",
      "error.type": "-32603",
    });
    expect(broken?.status).toEqual({ code: SpanStatusCode.ERROR, message: "Internal error" });
    expect(broken?.events.map((event) => event.name)).toEqual(["exception"]);

    const fails = byName.get("tools/call fails");
    expect(fails?.attributes["error.type"]).toBe("tool_error");
    expect(fails?.attributes["rpc.response.status_code"]).toBeUndefined();
    expect(fails?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("first in the chain, it traces a retry whose request state is refused", async () => {
    const mcp = tracedServer();
    const raw = await Client.connect(mcp, { elicitation: async () => ELICIT });
    closers.push(() => raw.close());
    const forged = await raw.session
      .callTool(
        "ask",
        { name: "orders" },
        { allowInputRequired: true, inputResponses: {}, requestState: "v1.forged" },
      )
      .catch((error: unknown) => error);
    expect(forged).toMatchObject({ code: -32602 });
    const span = serverSpans().at(-1);
    expect(span?.name).toBe("tools/call ask");
    expect(span?.attributes["rpc.response.status_code"]).toBe("-32602");
  });

  it("names prompt spans after the prompt, never resource spans after the URI", async () => {
    const client = await connect(tracedServer({ tracer, recordArguments: true }));
    await client.getPrompt("brief", { audience: "board" });
    await client.readResource("notes://today");
    const [prompt, resource] = serverSpans() as [ReadableSpan, ReadableSpan];
    expect(prompt.name).toBe("prompts/get brief");
    expect(prompt.attributes).toMatchObject({
      "gen_ai.prompt.name": "brief",
      "gen_ai.prompt.variable.audience": "board",
    });
    expect(prompt.attributes["gen_ai.operation.name"]).toBeUndefined();
    expect(resource.name).toBe("resources/read");
    expect(resource.attributes["mcp.resource.uri"]).toBe("notes://today");
  });

  it("records tool arguments only when asked", async () => {
    const quiet = await connect(tracedServer());
    await quiet.callTool("ask", { name: "orders" });
    expect(serverSpans()[0]?.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
    exporter.reset();
    const loud = await connect(tracedServer({ tracer, recordArguments: true }));
    await loud.callTool("ask", { name: "orders" });
    expect(serverSpans()[0]?.attributes["gen_ai.tool.call.arguments"]).toBe('{"name":"orders"}');
  });

  it("marks requests that came over HTTP", async () => {
    const http = await serveHttp(tracedServer(), { port: 0 });
    closers.push(() => http.close());
    const client = await Client.connect(http.url, { elicitation: async () => ELICIT });
    closers.push(() => client.close());
    await client.callTool("nested", {});
    expect(serverSpans()[0]?.attributes).toMatchObject({
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
  });
});

describe("serverTelemetry() sees what the chain does not", () => {
  const envelope = (version = "2026-07-28") => ({
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientCapabilities": {},
  });
  const send = (target: MCPServer | Server, method: string, params: Record<string, unknown>) =>
    target.dispatch({ jsonrpc: "2.0", id: 7, method, params });

  it("reports requests refused before the chain, naming a method it does not serve _OTHER", async () => {
    const reader = new CollectingReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
    const mcp = tracedServer({ tracer, meter });
    const answers = [
      await send(mcp, "tools/destroy-everything-8812", { _meta: envelope() }),
      await send(mcp, "tools/call", { name: "ask", arguments: "not an object", _meta: envelope() }),
      await send(mcp, "tools/call", { name: "ask", arguments: {}, _meta: envelope("1999-01-01") }),
    ];
    expect(answers.map((answer) => (answer as { error: { code: number } }).error.code)).toEqual([
      -32601, -32602, -32022,
    ]);
    const [unknown, params, version] = serverSpans() as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(unknown.name).toBe("_OTHER");
    expect(unknown.attributes).toEqual({
      "mcp.method.name": "_OTHER",
      "mcp.protocol.version": "2026-07-28",
      "jsonrpc.request.id": "7",
      "rpc.response.status_code": "-32601",
    });
    expect(unknown.status.code).toBe(SpanStatusCode.UNSET);
    expect(params.name).toBe("tools/call ask");
    expect(params.attributes["rpc.response.status_code"]).toBe("-32602");
    // A version the SDK does not know is client-chosen text: left out.
    expect(version.attributes["mcp.protocol.version"]).toBeUndefined();
    expect(version.attributes["rpc.response.status_code"]).toBe("-32022");
    const timed = await durations(reader, "mcp.server.operation.duration");
    expect(timed.points.map((point) => point.attributes["mcp.method.name"]).sort()).toEqual([
      "_OTHER",
      "tools/call",
      "tools/call",
    ]);
  });

  it("an invalid handler result is the error the client got, not a success", async () => {
    const server = new Server("low-level", {
      logger: silentLogger,
      telemetry: serverTelemetry({ tracer }),
      onCallTool: () => ({ content: "not a list of blocks" }) as never,
    });
    const answer = await send(server, "tools/call", { name: "report", _meta: envelope() });
    expect(answer).toMatchObject({ error: { code: -32603, message: "Handler returned an invalid result" } });
    const span = serverSpans().at(-1);
    expect(span?.name).toBe("tools/call report");
    expect(span?.attributes).toMatchObject({ "rpc.response.status_code": "-32603", "error.type": "-32603" });
    expect(span?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "Handler returned an invalid result",
    });
  });

  it("the HTTP endpoint reports its own refusals of a request: headers (-32020) and Accept (406)", async () => {
    const http = await serveHttp(tracedServer(), { port: 0 });
    closers.push(() => http.close());
    const body = rpc("tools/call", { name: "ask", arguments: { name: "orders" } });
    const mismatch = await post(http.url, body, { "mcp-name": "other-tool" });
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { error: { code: number } }).error.code).toBe(-32020);
    const unacceptable = await post(http.url, body, { accept: "application/json" });
    expect(unacceptable.status).toBe(406);
    const spans = serverSpans();
    expect(spans.map((span) => [span.name, span.attributes["rpc.response.status_code"]])).toEqual([
      ["tools/call ask", "-32020"],
      ["tools/call ask", "-32600"],
    ]);
    expect(spans[0]?.attributes).toMatchObject({
      "gen_ai.tool.name": "ask",
      "mcp.protocol.version": "2026-07-28",
      "network.protocol.name": "http",
    });
  });

  it("a refusal hook that throws changes no HTTP answer either, and the endpoint logs it", async () => {
    const telemetry = Object.assign(serverTelemetry({ tracer }), {
      refused: () => {
        throw new Error("exporter down");
      },
    });
    const mcp = new MCPServer("traced", { logger: silentLogger, telemetry });
    mcp.tool("hello", {}, () => "hi");
    const logged: string[] = [];
    const http = await serveHttp(mcp, {
      port: 0,
      logger: { ...silentLogger, error: (message) => logged.push(message) },
    });
    closers.push(() => http.close());
    const response = await post(http.url, rpc("tools/call", { name: "hello" }), { "mcp-name": "other" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32020);
    expect(logged).toEqual(["[http] telemetry failed on a refused request: exporter down"]);
  });

  it("a refusal hook that throws changes no answer, and is logged", async () => {
    const logged: string[] = [];
    const telemetry = Object.assign(serverTelemetry({ tracer }), {
      refused: () => {
        throw new Error("exporter down");
      },
    });
    const mcp = new MCPServer("traced", {
      logger: { ...silentLogger, error: (message) => logged.push(message) },
      telemetry,
    });
    const answer = await send(mcp, "nope", { _meta: envelope() });
    expect(answer).toMatchObject({ id: 7, error: { code: -32601 } });
    expect(logged).toEqual(["telemetry failed on a refused request: exporter down"]);
  });

  it("still works as a plain middleware put first by hand (without the refusals)", async () => {
    const mcp = new MCPServer("by-hand", { logger: silentLogger });
    mcp.server.middleware.unshift(serverTelemetry({ tracer }));
    mcp.tool("hello", {}, () => "hi");
    const client = await connect(mcp);
    await client.callTool("hello", {});
    await send(mcp, "nope", { _meta: envelope() });
    expect(serverSpans().map((span) => span.name)).toEqual(["tools/call hello"]);
  });
});

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
      ["tools/call ask", "2025-06-18", "-32602"],
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
    expect(rounds[0]?.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "jsonrpc.request.id": "2",
      "gen_ai.tool.name": "ask",
      "gen_ai.operation.name": "execute_tool",
      "roundtrip.result_type": "input_required",
    });
    expect(rounds[1]?.attributes).toEqual({
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
    expect(sent.points).toEqual(
      [
        { attributes: { "mcp.method.name": "server/discover" }, count: 1 },
        { attributes: { ...tool("ask"), "roundtrip.result_type": "input_required" }, count: 1 },
        { attributes: tool("ask"), count: 1 },
        {
          attributes: { ...tool("refuses"), "rpc.response.status_code": "-32602", "error.type": "-32602" },
          count: 1,
        },
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  });
});
