/**
 * 2025-11-25 Streamable HTTP on the dual-era endpoint, over a real socket: the session id
 * lifecycle, the SSE back-channel (the client POSTs its answers), the GET stream, DELETE, and the
 * bounds on live sessions.
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeHttpSessions, createHttpHandler } from "../../src/transports/http/handler.js";
import {
  type HttpServerHandle,
  type ServeHttpOptions,
  serveHttp,
  toNodeListener,
} from "../../src/transports/http/node.js";
import { buildDualEraServer } from "../fixtures/legacy/dual-era.js";
import { envelope } from "./helpers.js";
import { initializeRequest, openSession, post, sseMessages } from "./http-helpers.js";

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

async function start(options: ServeHttpOptions = {}) {
  // Some tests leave sessions busy on purpose: close without waiting for them.
  handle = await serveHttp(buildDualEraServer(), { port: 0, keepAliveMs: 0, drainTimeoutMs: 0, ...options });
  return handle.url.toString();
}

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

describe("the session id lifecycle", () => {
  it("initialize mints a random visible-ASCII Mcp-Session-Id; each session gets its own", async () => {
    const url = await start();
    const first = await openSession(url);
    const second = await openSession(url);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ result: { protocolVersion: "2025-11-25" } });
    expect(first.body.result).not.toHaveProperty("resultType");
    expect(first.readyStatus).toBe(202);
    expect(first.id).toMatch(/^[\x21-\x7e]{32}$/);
    expect(second.id).not.toBe(first.id);
  });

  it("a failed initialize opens nothing (400, no id)", async () => {
    const url = await start();
    const response = await post(url, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25" },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(await response.json()).toMatchObject({ error: { code: -32602 } });
  });

  it("404 for an unknown session; 400 for a legacy request without one", async () => {
    const url = await start();
    const unknown = await post(url, call(1, "era"), {
      "mcp-session-id": "nope",
      "mcp-protocol-version": "2025-11-25",
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: { code: -32600, message: "Not Found: unknown or expired session" },
    });
    const missing = await post(url, call(2, "era"), { "mcp-protocol-version": "2025-11-25" });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32600, message: "Bad Request: Mcp-Session-Id header is required" },
    });
  });

  it("DELETE ends the session: POST, GET and DELETE of it are 404 afterwards (start a new one)", async () => {
    const url = await start();
    const { headers } = await openSession(url);
    expect((await post(url, call(2, "era"), headers)).status).toBe(200);
    const deleted = await fetch(url, { method: "DELETE", headers });
    expect(deleted.status).toBe(200);
    const gone = {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Not Found: unknown or expired session" },
    };
    expect((await post(url, call(3, "era"), headers)).status).toBe(404);
    for (const method of ["DELETE", "GET"]) {
      const response = await fetch(url, { method, headers: { ...headers, accept: "text/event-stream" } });
      expect([method, response.status, await response.json()]).toEqual([method, 404, gone]);
    }
    // Without a session header, GET and DELETE are the modern endpoint's: 405.
    expect((await fetch(url, { method: "GET", headers: { accept: "text/event-stream" } })).status).toBe(405);
    expect((await fetch(url, { method: "DELETE" })).status).toBe(405);
  });

  it("refuses an unsupported MCP-Protocol-Version on a session (400)", async () => {
    const url = await start();
    const { headers } = await openSession(url);
    const response = await post(url, call(2, "era"), { ...headers, "mcp-protocol-version": "1999-01-01" });
    expect(response.status).toBe(400);
  });

  it("binds a session to the principal that opened it", async () => {
    const url = await start({
      verifyToken: (request) => {
        const token = request.headers.get("authorization")?.slice(7);
        return token ? { token, clientId: "app", scopes: [], subject: token } : undefined;
      },
    });
    const { headers } = await openSession(url, {}, { authorization: "Bearer alice" });
    expect((await post(url, call(2, "era"), headers)).status).toBe(200);
    const stolen = { ...headers, authorization: "Bearer mallory" };
    expect((await post(url, call(3, "era"), stolen)).status).toBe(404);
  });
});

describe("requests of a session", () => {
  it("stream the server's elicitation/create; the client POSTs its answer; the result ends the stream", async () => {
    const url = await start();
    const { headers } = await openSession(url);
    const response = await post(url, call(2, "provision", { name: "db" }), headers);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const messages = sseMessages(response);
    const ask = (await messages.next()).value as Record<string, unknown>;
    expect(ask).toMatchObject({
      jsonrpc: "2.0",
      method: "elicitation/create",
      params: { message: "Which region?" },
    });
    const answer = await post(
      url,
      { jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { region: "sa-east-1" } } },
      headers,
    );
    expect(answer.status).toBe(202);
    expect((await messages.next()).value).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "Provisioned db in sa-east-1." }] },
    });
    expect((await messages.next()).done).toBe(true);
  });

  it("answer JSON when nothing is streamed, and honour notifications/cancelled", async () => {
    const url = await start();
    const { headers } = await openSession(url);
    const plain = await post(url, call(2, "era"), headers);
    expect(plain.headers.get("content-type")).toBe("application/json");
    expect(await plain.json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "2025-11-25" }] },
    });
    const pending = await post(url, call(3, "provision", { name: "db" }), headers);
    const messages = sseMessages(pending);
    const ask = (await messages.next()).value as Record<string, unknown>;
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } };
    expect((await post(url, cancel, headers)).status).toBe(202);
    expect((await messages.next()).value).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: ask.id, reason: "aborted" },
    });
    expect((await messages.next()).done).toBe(true);
  });

  // 2025-11-25 answers a POSTed request with JSON or an event stream, never 202; a cancelled request
  // gets no response (SHOULD NOT respond), so its stream ends empty. It was a 202 with no body.
  it("a request cancelled before it sent anything gets an event stream that ends empty", async () => {
    const server = buildDualEraServer();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    server.tool("wait", {}, async (_args, ctx) => {
      started();
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      return "too late";
    });
    handle = await serveHttp(server, { keepAliveMs: 0, drainTimeoutMs: 0 });
    const url = handle.url.toString();
    const { headers } = await openSession(url);
    const pending = post(url, call(4, "wait"), headers);
    await running;
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } };
    expect((await post(url, cancel, headers)).status).toBe(202);
    const answer = await pending;
    expect(answer.status).toBe(200);
    const seen: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      seen[name] = value;
    });
    expect(seen).toEqual({
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      connection: "keep-alive",
      "keep-alive": "timeout=5",
      date: expect.any(String),
      "transfer-encoding": "chunked",
    });
    expect(await answer.text()).toBe("");
  });

  it("a modern POST carrying a live session's id is served as modern, header ignored", async () => {
    const url = await start();
    const { id } = await openSession(url);
    const response = await post(
      url,
      { jsonrpc: "2.0", id: 9, method: "tools/list", params: { _meta: envelope() } },
      { "mcp-session-id": id, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(await response.json()).toMatchObject({ result: { resultType: "complete", ttlMs: 0 } });
  });

  it("GET opens the session's stream (one at a time)", async () => {
    const url = await start();
    const { headers } = await openSession(url);
    const controller = new AbortController();
    const stream = await fetch(url, {
      method: "GET",
      headers: { ...headers, accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const second = await fetch(url, { method: "GET", headers: { ...headers, accept: "text/event-stream" } });
    expect(second.status).toBe(409);
    const json = await fetch(url, { method: "GET", headers: { ...headers, accept: "application/json" } });
    expect(json.status).toBe(406);
    controller.abort();
  });
});

describe("bounds on live sessions", () => {
  it("a full table ends the least recently used idle session; all busy → 503", async () => {
    const url = await start({ legacy: { maxSessions: 2 } });
    const a = await openSession(url);
    const b = await openSession(url);
    await post(url, call(2, "era"), b.headers); // b is now more recent than a
    const c = await openSession(url);
    expect(c.status).toBe(200);
    expect((await post(url, call(3, "era"), a.headers)).status).toBe(404);
    expect((await post(url, call(3, "era"), b.headers)).status).toBe(200);
    // Keep b and c busy with a question each: nothing can be evicted.
    const busy = [
      await post(url, call(4, "provision", { name: "x" }), b.headers),
      await post(url, call(4, "provision", { name: "y" }), c.headers),
    ];
    for (const response of busy) await sseMessages(response).next();
    const refused = await post(url, initializeRequest());
    expect(refused.status).toBe(503);
    expect(refused.headers.get("mcp-session-id")).toBeNull();
  });

  it("a full table never ends a session whose GET stream is open, and ends the requester's own first", async () => {
    const url = await start({
      legacy: { maxSessions: 3 },
      verifyToken: (request) => {
        const token = request.headers.get("authorization")?.slice(7);
        return token ? { token, clientId: "app", scopes: [], subject: token } : undefined;
      },
    });
    const open = (who: string) => openSession(url, {}, { authorization: `Bearer ${who}` });
    const alice = await open("alice");
    const controller = new AbortController();
    const stream = await fetch(url, {
      method: "GET",
      headers: { ...alice.headers, accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    const bob = await open("bob");
    const mallory = await open("mallory");
    // Full: mallory's next session replaces her own, not bob's older one nor alice's listening one.
    const malloryAgain = await open("mallory");
    expect((await post(url, call(2, "era"), mallory.headers)).status).toBe(404);
    expect((await post(url, call(3, "era"), bob.headers)).status).toBe(200);
    // Carol has none of her own: the least recently used quiet session goes (mallory's, since bob
    // just called), never alice's listening one, the oldest of all.
    expect((await open("carol")).status).toBe(200);
    expect((await post(url, call(4, "era"), malloryAgain.headers)).status).toBe(404);
    expect((await post(url, call(5, "era"), alice.headers)).status).toBe(200);
    expect((await post(url, call(6, "era"), bob.headers)).status).toBe(200);
    controller.abort();
  });

  it("a session idle past sessionIdleTimeoutMs is gone (404)", async () => {
    const url = await start({ legacy: { sessionIdleTimeoutMs: 40 } });
    const { headers } = await openSession(url);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await post(url, call(2, "era"), headers)).status).toBe(404);
  });

  it("legacy: false keeps the endpoint modern-only", async () => {
    const url = await start({ legacy: false });
    const response = await post(url, initializeRequest());
    expect(response.status).toBe(400);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: ["2026-07-28"], requested: "2025-11-25" },
      },
    });
    // Anything else without the envelope is still the -32602 it always was.
    const bare = await post(url, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(bare.status).toBe(400);
    expect(await bare.json()).toMatchObject({
      error: { code: -32602, message: "Missing required params._meta envelope" },
    });
  });
});

describe("shutdown", () => {
  /** Reads a response body to its end: "clean", or the error that cut it. */
  async function endOf(response: Response): Promise<string> {
    const reader = response.body?.getReader();
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) return "clean";
      }
    } catch (error) {
      return `cut: ${String(error)}`;
    }
  }

  it("closeHttpSessions() does the same for a handler mounted in a server of one's own", async () => {
    const handler = createHttpHandler(buildDualEraServer(), { keepAliveMs: 0, localhostOnly: true });
    const server = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const { headers } = await openSession(url);
    const stream = await fetch(url, { method: "GET", headers: { ...headers, accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    const ended = endOf(stream);
    closeHttpSessions(handler);
    expect(await ended).toBe("clean");
    // The session is gone with its stream: the 2025 spec's signal to start a new one.
    expect((await post(url, call(2, "era"), headers)).status).toBe(404);
    // Nothing is left open: the server closes once its idle connections are let go.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
  });

  it("close() ends each session's GET stream cleanly, and the sessions with it", async () => {
    const server = buildDualEraServer();
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0, drainTimeoutMs: 0 });
    const url = http.url.toString();
    const { headers } = await openSession(url);
    const stream = await fetch(url, { method: "GET", headers: { ...headers, accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    const ended = endOf(stream);
    await http.close();
    expect(await ended).toBe("clean");
  });
});
