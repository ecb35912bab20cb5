// Requests the HTTP endpoint refuses before any session or handler sees them are traced as the
// error the client got: a 2025 POST to an unknown, missing or full session, one whose Accept lacks
// JSON and SSE, an HTTP+SSE POST to an unknown stream, and a modern call whose `toolInputSchema`
// lookup failed. Responses and notifications are not requests: they leave no span.
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { serverTelemetry } from "../../src/otel/index.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import { httpPlusSse, type ServeHttpOptions, serveHttp } from "../../src/transports/http/index.js";
import { signalled } from "../helpers.js";
import { initializeRequest, openSession, post as postLegacy } from "../legacy/http-helpers.js";
import { post, rpc } from "../transports/http/helpers.js";
import { closers, installTracing, serverSpans, tracer } from "./tracing.js";

installTracing();

/** A traced server with a quick tool and one that holds its session busy until `release`. */
function tracedServer() {
  const entered = signalled();
  const release = signalled();
  const mcp = new MCPServer("traced", { logger: silentLogger, telemetry: serverTelemetry({ tracer }) });
  mcp.tool("ask", { input: z.object({ name: z.string() }) }, ({ name }) => `hello ${name}`);
  mcp.tool("hold", {}, async () => {
    entered.fire();
    await release.done;
    return "released";
  });
  return { mcp, entered, release };
}

async function serve(options: ServeHttpOptions = {}) {
  const traced = tracedServer();
  const http = await serveHttp(traced.mcp, { port: 0, ...options });
  closers.push(() => http.close());
  return { ...traced, url: http.url };
}

const call = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "ask", arguments: { name: "orders" } },
});

/** Each span as [name, status code attribute, protocol version attribute]. */
const traced = () =>
  serverSpans().map((span) => [
    span.name,
    span.attributes["rpc.response.status_code"],
    span.attributes["mcp.protocol.version"],
  ]);

describe("the HTTP endpoint traces its own refusals of 2025 requests", () => {
  it("an unknown session (404), a missing one (400), an Accept without SSE (406): one span each", async () => {
    const { url } = await serve();
    const unknown = await postLegacy(url.href, call(2), {
      "mcp-session-id": "no-such-session",
      "mcp-protocol-version": "2025-11-25",
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Not Found: unknown or expired session" },
    });
    const missing = await postLegacy(url.href, call(3), { "mcp-protocol-version": "2025-06-18" });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: number } }).error.code).toBe(-32600);
    const opened = await openSession(url.href);
    const unacceptable = await postLegacy(url.href, call(4), {
      ...opened.headers,
      accept: "application/json",
    });
    expect(unacceptable.status).toBe(406);
    expect(traced()).toEqual([
      ["tools/call", "-32600", "2025-11-25"],
      ["tools/call", "-32600", "2025-06-18"],
      ["initialize", undefined, "2025-11-25"],
      ["tools/call", "-32600", "2025-11-25"],
    ]);
    const [first] = serverSpans();
    expect(first?.attributes).toMatchObject({
      "gen_ai.tool.name": "ask",
      "jsonrpc.request.id": "2",
      "network.protocol.name": "http",
    });
  });

  it("a version header outside the 2025 set is left off the span, as client-chosen text", async () => {
    const { url } = await serve();
    const opened = await openSession(url.href);
    const refused = await postLegacy(url.href, call(2), {
      ...opened.headers,
      "mcp-protocol-version": "1999-01-01",
    });
    expect(refused.status).toBe(400);
    expect(traced()).toEqual([
      ["initialize", undefined, "2025-11-25"],
      ["tools/call", "-32600", undefined],
    ]);
  });

  it("a response or a notification to an unknown session is refused without a span", async () => {
    const { url } = await serve();
    const headers = { "mcp-session-id": "no-such-session", "mcp-protocol-version": "2025-11-25" };
    const answer = await postLegacy(url.href, { jsonrpc: "2.0", id: 9, result: {} }, headers);
    const notice = await postLegacy(
      url.href,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      headers,
    );
    expect([answer.status, notice.status]).toEqual([404, 404]);
    expect(serverSpans()).toEqual([]);
  });

  it("an initialize refused for room (503) is traced as refused, not as a session opened", async () => {
    const { url, entered, release } = await serve({ legacy: { maxSessions: 1 } });
    const opened = await openSession(url.href);
    const holding = postLegacy(
      url.href,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "hold", arguments: {} } },
      opened.headers,
    );
    await entered.done;
    const second = await postLegacy(url.href, initializeRequest());
    expect(second.status).toBe(503);
    expect(second.headers.get("mcp-session-id")).toBeNull();
    expect(await second.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Service Unavailable: too many sessions" },
    });
    release.fire();
    expect((await holding).status).toBe(200);
    const spans = serverSpans().filter((span) => span.name === "initialize");
    expect(spans.map((span) => span.attributes["rpc.response.status_code"])).toEqual([undefined, "-32603"]);
    expect(spans[1]?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "Service Unavailable: too many sessions",
    });
  });

  it("an HTTP+SSE (2024-11-05) POST to an unknown stream (404) is traced; a batch is not", async () => {
    const { url } = await serve({ legacy: { sse: httpPlusSse } });
    const stream = new URL("?sessionId=no-such-stream", url);
    const refused = await postLegacy(stream.href, call(5));
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Not Found: unknown or closed session" },
    });
    expect((await postLegacy(stream.href, [call(6)])).status).toBe(404);
    expect(traced()).toEqual([["tools/call", "-32600", undefined]]);
  });
});

describe("the HTTP endpoint traces a modern request it could not check", () => {
  it("a throwing toolInputSchema lookup answers 500 -32603, and the span says so", async () => {
    const { url } = await serve({
      toolInputSchema: () => {
        throw new Error("schema registry down");
      },
    });
    const body = rpc("tools/call", { name: "ask", arguments: { name: "orders" } });
    const response = await post(url, body);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Internal error" },
    });
    const [span] = serverSpans();
    expect(serverSpans()).toHaveLength(1);
    expect(span?.name).toBe("tools/call");
    expect(span?.attributes).toMatchObject({
      "rpc.response.status_code": "-32603",
      "error.type": "-32603",
      "mcp.protocol.version": "2026-07-28",
    });
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: "Internal error" });
  });
});
