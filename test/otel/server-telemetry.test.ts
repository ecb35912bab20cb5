// serverTelemetry(): the spans an MCP server reports, checked with the real OpenTelemetry SDK (in-memory
// exporter, AsyncLocalStorage context, W3C propagation) over the in-memory transport and HTTP.
import { context, ROOT_CONTEXT, SpanStatusCode, trace } from "@opentelemetry/api";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { serverTelemetry } from "../../src/otel/index.js";
import { MCPServer, Server, silentLogger, UnknownEntryError } from "../../src/server/index.js";
import { serveHttp } from "../../src/transports/http/index.js";
import { ErrorCode, McpError } from "../../src/types/index.js";
import { post, rpc } from "../transports/http/helpers.js";
import { connect, ELICIT, injectTraceContext, tracedServer } from "./fixtures.js";
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

  it("a tool or prompt the server does not have is client text: out of span names and series", async () => {
    const reader = new CollectingReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
    const client = await connect(tracedServer({ tracer, meter }));
    for (const name of ["no-such-tool-1", "no-such-tool-2", "refuses"])
      await client.callTool(name, {}).catch(() => {});
    await client.getPrompt("no-such-prompt", {}).catch(() => {});
    expect(serverSpans().map((span) => span.name)).toEqual([
      "tools/call",
      "tools/call",
      "tools/call refuses",
      "prompts/get",
    ]);
    const { points } = await durations(reader, "mcp.server.operation.duration");
    const refused = points
      .filter((point) => point.attributes["rpc.response.status_code"] === "-32602")
      .map(({ attributes, count }) => [
        attributes["mcp.method.name"],
        attributes["gen_ai.tool.name"] ?? attributes["gen_ai.prompt.name"],
        count,
      ]);
    expect(refused).toEqual([
      ["prompts/get", undefined, 1],
      ["tools/call", undefined, 2],
      ["tools/call", "refuses", 1],
    ]);
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

  it("parents its span on the _meta context and links the ambient one (a transport's span)", async () => {
    const mcp = tracedServer();
    const caller = tracer.startSpan("agent step");
    const carried = context.with(trace.setSpan(ROOT_CONTEXT, caller), injectTraceContext);
    const ambient = tracer.startSpan("POST /mcp");
    const params = (meta: Record<string, unknown>) => ({ _meta: { ...envelope(), ...meta } });
    await context.with(trace.setSpan(ROOT_CONTEXT, ambient), async () => {
      await send(mcp, "tools/list", params(carried));
      await send(mcp, "tools/list", params({}));
      await send(mcp, "tools/call", { name: 7, ...params(carried) });
    });
    const [linked, alone, refused] = serverSpans();
    for (const span of [linked, refused]) {
      expect(span?.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      expect(span?.links.map((link) => link.context.spanId)).toEqual([ambient.spanContext().spanId]);
    }
    // Without a context in _meta the ambient span is the parent itself, not a link as well.
    expect(alone?.parentSpanContext?.spanId).toBe(ambient.spanContext().spanId);
    expect(alone?.links).toEqual([]);
  });

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
    // The name no handler looked up stays on the span, out of its name and the duration's series.
    expect(params.name).toBe("tools/call");
    expect(params.attributes["gen_ai.tool.name"]).toBe("ask");
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
    expect(timed.points.map((point) => point.attributes["gen_ai.tool.name"])).toEqual([
      undefined,
      undefined,
      undefined,
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

  it("a low-level Server's handler marks a name it does not know with UnknownEntryError", async () => {
    const server = new Server("low-level", {
      logger: silentLogger,
      telemetry: serverTelemetry({ tracer }),
      onCallTool: (_ctx, params) => {
        throw new UnknownEntryError("tool", params.name);
      },
    });
    const answer = await send(server, "tools/call", { name: "minted-8812", _meta: envelope() });
    expect(answer).toMatchObject({ error: { code: -32602, message: "Unknown tool: minted-8812" } });
    expect(serverSpans().at(-1)?.name).toBe("tools/call");
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
      ["tools/call", "-32020"],
      ["tools/call", "-32600"],
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

  it("a span processor that throws changes no answer of a handled request, and is logged", async () => {
    let failing: "onStart" | "onEnd" | undefined;
    const fail = (hook: "onStart" | "onEnd") => {
      if (failing === hook) throw new Error("processor down");
    };
    const broken = new BasicTracerProvider({
      spanProcessors: [
        {
          onStart: () => fail("onStart"),
          onEnd: () => fail("onEnd"),
          forceFlush: async () => {},
          shutdown: async () => {},
        },
      ],
    });
    const logged: string[] = [];
    const mcp = new MCPServer("traced", {
      logger: { ...silentLogger, error: (message) => logged.push(message) },
      telemetry: serverTelemetry({ tracer: broken.getTracer("broken") }),
    });
    mcp.tool("hello", {}, () => "hi");
    mcp.tool("refuses", {}, () => {
      throw new McpError(ErrorCode.InvalidParams, "no such account");
    });
    const client = await connect(mcp);
    for (failing of ["onStart", "onEnd"] as const) {
      expect(await client.callTool("hello", {})).toMatchObject({ content: [{ type: "text", text: "hi" }] });
      await expect(client.callTool("refuses", {})).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
        message: "no such account",
      });
    }
    expect(logged).toEqual([
      ...Array(2).fill("telemetry failed to trace tools/call: processor down"),
      ...Array(2).fill("telemetry failed to record tools/call: processor down"),
    ]);
  });

  it("a span whose status cannot be set still ends, and the answer stands", async () => {
    const logged: string[] = [];
    const faulty = statusFailingTracer();
    const mcp = new MCPServer("traced", {
      logger: { ...silentLogger, error: (message) => logged.push(message) },
      telemetry: serverTelemetry({ tracer: faulty }),
    });
    mcp.tool("custom", {}, () => {
      throw new McpError(1001, "quota exceeded");
    });
    const client = await connect(mcp);
    await expect(client.callTool("custom", {})).rejects.toMatchObject({ code: 1001 });
    expect(serverSpans().map((span) => [span.name, span.attributes["error.type"]])).toEqual([
      ["tools/call custom", "1001"],
    ]);
    expect(logged).toEqual(["telemetry failed to record tools/call: status down"]);
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
