// The deprecated HTTP+SSE transport (2024-11-05) served by our endpoint (`legacy: { sse: httpPlusSse }`)
// on real loopback sockets: the exact stream and POST wire a 2024-11-05 client sees, the refusals
// (unknown or foreign stream, batches, the cap), cancellation, the end of a stream, and our own
// SseClientTransport against it, the resolver's question riding the stream.
import { afterEach, describe, expect, it } from "vitest";
import { mcp } from "../../../examples/legacy-clients.js";
import { Client } from "../../../src/client/client.js";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { SseClientTransport } from "../../../src/transports/http/legacy-sse-client.js";
import { httpPlusSse } from "../../../src/transports/http/legacy-sse-server.js";
import {
  type HttpServerHandle,
  type ServeHttpOptions,
  serveHttp,
} from "../../../src/transports/http/node.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(options: ServeHttpOptions = {}, server = mcp): Promise<HttpServerHandle> {
  const http = await serveHttp(server, {
    port: 0,
    ...options,
    legacy: { sse: httpPlusSse, ...options.legacy },
  });
  closers.push(() => http.close());
  return http;
}

/** A raw event stream: the status, the content type, and its events one at a time, as sent. */
async function openStream(url: URL, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: "text/event-stream", ...headers },
    signal: controller.signal,
  });
  closers.push(async () => controller.abort());
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const next = async (): Promise<string> => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const event = buffer.slice(0, end + 2);
        buffer = buffer.slice(end + 2);
        if (!event.startsWith(":")) return event; // keep-alive comments are not events
        continue;
      }
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) throw new Error(`stream ended; left: ${JSON.stringify(buffer)}`);
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  const message = async () => {
    const event = await next();
    expect(event.startsWith("data: ")).toBe(true);
    return JSON.parse(event.slice("data: ".length)) as Record<string, unknown>;
  };
  return { response, next, message, close: () => controller.abort() };
}

/** Opens a stream and reads its endpoint event: the URL to POST to. */
async function session(url: URL, headers: Record<string, string> = {}) {
  const stream = await openStream(url, headers);
  const endpoint = await stream.next();
  const match = /^event: endpoint\ndata: (\?sessionId=[A-Za-z0-9_-]{32})\n\n$/.exec(endpoint);
  expect(match, endpoint).not.toBeNull();
  return { ...stream, postUrl: new URL(match?.[1] ?? "", url) };
}

function post(url: URL, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2024-11-05",
    capabilities: { elicitation: {} },
    clientInfo: { name: "old-sse-client", version: "0.1" },
  },
};

async function initialized(url: URL, headers: Record<string, string> = {}) {
  const stream = await session(url, headers);
  const accepted = await post(stream.postUrl, INITIALIZE, headers);
  expect({ status: accepted.status, body: await accepted.text() }).toEqual({ status: 202, body: "" });
  expect(await stream.message()).toEqual({
    jsonrpc: "2.0",
    id: 1,
    result: {
      protocolVersion: "2024-11-05",
      capabilities: { tools: {}, logging: {} },
      serverInfo: { name: "Provisioner", version: "" },
    },
  });
  expect(
    (await post(stream.postUrl, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status,
  ).toBe(202);
  return stream;
}

describe("HTTP+SSE (2024-11-05) served on the endpoint's URL", () => {
  it("a GET opens a stream that names its POST URL; answers and questions travel on the stream", async () => {
    const http = await serve();
    const stream = await initialized(http.url);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream");
    expect(stream.postUrl.pathname).toBe(http.url.pathname);

    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "provision", arguments: { name: "orders" } },
    };
    expect((await post(stream.postUrl, call)).status).toBe(202);
    const question = await stream.message();
    expect(question).toMatchObject({
      jsonrpc: "2.0",
      method: "elicitation/create",
      params: { message: "Which region?" },
    });
    const answer = {
      jsonrpc: "2.0",
      id: question.id,
      result: { action: "accept", content: { region: "eu-west-1" } },
    };
    expect((await post(stream.postUrl, answer)).status).toBe(202);
    expect(await stream.message()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "Provisioned orders in eu-west-1." }] },
    });
  });

  it("serveHttp's close() ends each open stream cleanly instead of cutting it", async () => {
    const http = await serveHttp(mcp, { port: 0, legacy: { sse: httpPlusSse }, drainTimeoutMs: 0 });
    const stream = await initialized(http.url);
    await http.close();
    await expect(stream.next()).rejects.toThrow(/^stream ended; left: ""$/);
  });

  it("answers 404 for an unknown stream, and for a stream that has ended", async () => {
    const http = await serve();
    const unknown = await post(new URL("?sessionId=nope", http.url), INITIALIZE);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Not Found: unknown or closed session" },
    });

    const stream = await session(http.url);
    stream.close();
    let status = 202;
    for (let attempt = 0; attempt < 50 && status !== 404; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = (await post(stream.postUrl, INITIALIZE)).status;
    }
    expect(status).toBe(404);
  });

  it("binds a stream to the principal that opened it", async () => {
    const http = await serve({
      verifyToken: (request) => {
        const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
        return token ? { token, clientId: "app", scopes: [], subject: token } : undefined;
      },
      requireAuth: true,
    });
    expect((await fetch(http.url, { headers: { accept: "text/event-stream" } })).status).toBe(401);
    const alice = await initialized(http.url, { authorization: "Bearer alice" });
    const asBob = await post(
      alice.postUrl,
      { jsonrpc: "2.0", id: 5, method: "tools/list" },
      { authorization: "Bearer bob" },
    );
    expect(asBob.status).toBe(404);
    const asAlice = await post(
      alice.postUrl,
      { jsonrpc: "2.0", id: 6, method: "tools/list" },
      { authorization: "Bearer alice" },
    );
    expect(asAlice.status).toBe(202);
    expect(await alice.message()).toMatchObject({ id: 6, result: { tools: expect.any(Array) } });
  });

  it("refuses batches and bounds the number of open streams", async () => {
    const http = await serve({ legacy: { maxSessions: 1 } });
    const first = await session(http.url);
    const batch = await post(first.postUrl, [INITIALIZE]);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } });

    const refused = await fetch(http.url, { headers: { accept: "text/event-stream" } });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32603, message: "Service Unavailable: too many sessions" },
    });
    first.close();
    let reopened = 503;
    for (let attempt = 0; attempt < 50 && reopened !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const again = await fetch(http.url, { headers: { accept: "text/event-stream" } });
      reopened = again.status;
      await again.body?.cancel();
    }
    expect(reopened).toBe(200);
  });

  it("bounds the requests in flight on a stream (429), while a cancellation still gets through", async () => {
    const slow = new MCPServer("Slow", { logger: silentLogger });
    const waiting: (() => void)[] = [];
    slow.tool("wait", {}, (_args, ctx) => {
      return new Promise<string>((resolve) => {
        waiting.push(() => resolve("done"));
        ctx.signal.addEventListener("abort", () => resolve("cancelled"));
      });
    });
    const http = await serve({}, slow);
    const stream = await session(http.url);
    await post(stream.postUrl, { ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: {} } });
    await stream.message();
    const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "wait" } });
    // A request is in flight until its answer is read off the stream: without a bound, a client that
    // POSTs and never reads would make the server hold every answer (and the work behind it).
    const statuses = [];
    for (let id = 2; id < 2 + 100; id++) statuses.push((await post(stream.postUrl, call(id))).status);
    expect(statuses.every((status) => status === 202)).toBe(true);
    const refused = await post(stream.postUrl, call(102));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      jsonrpc: "2.0",
      id: 102,
      error: { code: -32603, message: "Too Many Requests: 100 requests of this stream are in flight" },
    });
    // A notification is never refused: a cancellation frees a slot.
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } };
    expect((await post(stream.postUrl, cancel)).status).toBe(202);
    let accepted = 429;
    for (let attempt = 0; attempt < 50 && accepted !== 202; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      accepted = (await post(stream.postUrl, call(200 + attempt))).status;
    }
    expect(accepted).toBe(202);
    for (const done of waiting) done();
  });

  it("notifications/cancelled aborts the request, which gets no answer", async () => {
    let aborted!: () => void;
    const sawAbort = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    const slow = new MCPServer("Slow", { logger: silentLogger });
    slow.tool("wait", {}, (_args, ctx) => {
      return new Promise<string>((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          aborted();
          resolve("too late");
        });
      });
    });
    const http = await serve({}, slow);
    const stream = await session(http.url);
    await post(stream.postUrl, { ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: {} } });
    await stream.message();
    await post(stream.postUrl, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "wait" } });
    await post(stream.postUrl, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 7 },
    });
    await sawAbort;
    await post(stream.postUrl, { jsonrpc: "2.0", id: 8, method: "tools/list" });
    // The next message on the stream is the answer to 8: 7 got none.
    expect(await stream.message()).toMatchObject({ id: 8 });
  });

  it("a GET that does not accept an event stream gets 406", async () => {
    const http = await serve();
    const response = await fetch(http.url, { headers: { accept: "application/json" } });
    expect(response.status).toBe(406);
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
  });

  it("leaves Streamable HTTP sessions alone: Mcp-Session-Id wins over a sessionId parameter", async () => {
    const http = await serve();
    const accept = { accept: "application/json, text/event-stream" };
    const opened = await post(
      http.url,
      { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: "2025-11-25" } },
      accept,
    );
    const sessionId = opened.headers.get("mcp-session-id") ?? "";
    expect(sessionId).not.toBe("");
    const listed = await post(
      new URL("?sessionId=not-a-stream", http.url),
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        ...accept,
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      },
    );
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });
  });

  it("through the fetch handler too (no node:http): the stream names its POST URL, answers ride it", async () => {
    const handler = createHttpHandler(mcp, { legacy: { sse: httpPlusSse }, localhostOnly: true });
    const stream = await handler(
      new Request("http://localhost/mcp", { headers: { accept: "text/event-stream" } }),
    );
    expect(stream.status).toBe(200);
    const events = stream.body?.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    const nextEvent = async (): Promise<string> => {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!event.startsWith(":")) return event;
          continue;
        }
        const chunk = await events?.read();
        if (chunk === undefined || chunk.done) throw new Error("stream ended");
        buffer += chunk.value;
      }
    };
    const endpoint = /^event: endpoint\ndata: (\?sessionId=[A-Za-z0-9_-]{32})$/.exec(await nextEvent());
    expect(endpoint).not.toBeNull();
    const accepted = await handler(
      new Request(`http://localhost/mcp${endpoint?.[1]}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(INITIALIZE),
      }),
    );
    expect(accepted.status).toBe(202);
    expect(JSON.parse((await nextEvent()).slice("data: ".length))).toMatchObject({
      id: 1,
      result: { protocolVersion: "2024-11-05", serverInfo: { name: "Provisioner" } },
    });
    await events?.cancel();
  });

  it("is off by default: a GET without a session stays 405", async () => {
    const http = await serveHttp(mcp, { port: 0 });
    closers.push(() => http.close());
    const response = await fetch(http.url, { headers: { accept: "text/event-stream" } });
    expect(response.status).toBe(405);
  });

  it("is turned on with the imported httpPlusSse: a flag or anything else fails at setup, naming it", () => {
    for (const sse of [true, "yes", {}, { serve: "not a function" }]) {
      expect(() => createHttpHandler(mcp, { legacy: { sse: sse as never } })).toThrow(
        new TypeError(
          "legacy.sse takes httpPlusSse, imported from roundtrip-mcp/http: servers that do not serve HTTP+SSE clients leave it out",
        ),
      );
    }
    // Off, as the option left out: a GET without a session is 405.
    expect(() => createHttpHandler(mcp, { legacy: { sse: undefined } })).not.toThrow();
  });

  it("needs a server that serves 2025 clients", () => {
    const modernOnly = new MCPServer("modern", { legacy: false, logger: silentLogger });
    expect(() => createHttpHandler(modernOnly, { legacy: { sse: httpPlusSse } })).toThrow(
      "legacy.sse needs a server that serves 2025 clients (its legacy option is off)",
    );
  });

  it("our SseClientTransport, and Client.connect(url), against it", async () => {
    const http = await serve();
    const elicitation = async () => ({ action: "accept" as const, content: { region: "ap-south-1" } });
    const old = await Client.connect(new SseClientTransport(http.url), { mode: "legacy", elicitation });
    closers.push(() => old.close());
    expect(old.protocolVersion).toBe("2025-11-25");
    expect((await old.callTool("provision", { name: "logs" })).content).toEqual([
      { type: "text", text: "Provisioned logs in ap-south-1." },
    ]);
    // A client that can speak 2026-07-28 still gets it: the stream is only for those that ask.
    const modern = await Client.connect(http.url, { elicitation, eraCache: false });
    closers.push(() => modern.close());
    expect(modern.protocolVersion).toBe("2026-07-28");
  });
});
