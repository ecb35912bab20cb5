import { createServer } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { openDualEraConnection } from "../../src/server/legacy/connection.js";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { MAX_SUBSCRIBED_URI_LENGTH, MAX_SUBSCRIPTIONS } from "../../src/server/subscriptions.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import type { JSONRPCMessage } from "../../src/types/index.js";
import { CLIENT_INFO as CLIENT } from "./helpers.js";
import { openSession, post, sseMessages } from "./http-helpers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function watched(): Promise<{ mcp: MCPServer; http: HttpServerHandle }> {
  const mcp = new MCPServer("watch", { logger: silentLogger, listChanged: true });
  mcp.resource("test://watched", { mimeType: "text/plain" }, () => "v1");
  const http = await serveHttp(mcp, { port: 0 });
  cleanups.push(() => http.close());
  return { mcp, http };
}

describe("2025-11-25 resources/subscribe", () => {
  it("advertises subscribe, delivers updates for subscribed URIs on the GET stream, and stops after unsubscribe", async () => {
    const { mcp, http } = await watched();
    const url = http.url.href;
    const session = await openSession(url, {});
    expect(
      (session.body.result as { capabilities: { resources: unknown } }).capabilities.resources,
    ).toMatchObject({
      subscribe: true,
    });
    const controller = new AbortController();
    cleanups.push(() => controller.abort());
    const stream = await fetch(url, {
      headers: { accept: "text/event-stream", ...session.headers },
      signal: controller.signal,
    });
    const events = sseMessages(stream);
    const subscribed = await post(
      url,
      { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "test://watched" } },
      session.headers,
    );
    expect(await subscribed.json()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    mcp.server.notifyResourceUpdated("test://other");
    mcp.server.notifyResourceUpdated("test://watched");
    expect((await events.next()).value).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "test://watched" },
    });
    const unsubscribed = await post(
      url,
      { jsonrpc: "2.0", id: 3, method: "resources/unsubscribe", params: { uri: "test://watched" } },
      session.headers,
    );
    expect(await unsubscribed.json()).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    mcp.server.notifyResourceUpdated("test://watched");
    const next = await Promise.race([
      events.next(),
      new Promise((resolve) => setTimeout(() => resolve("quiet"), 200)),
    ]);
    expect(next).toBe("quiet");
  });

  it("answers a subscribe without a uri with -32602", async () => {
    const { http } = await watched();
    const session = await openSession(http.url.href, {});
    const response = await post(
      http.url.href,
      { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: {} },
      session.headers,
    );
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32602);
  });
});

/**
 * An initialized 2025 session over a pipe whose reader does not keep up: each resources/updated
 * write waits until the test "reads" it (calls its `unread` entry); `written` lists their URIs.
 */
async function slowReader(mcp: MCPServer) {
  const written: string[] = [];
  const unread: (() => void)[] = [];
  const connection = openDualEraConnection(mcp, (message: JSONRPCMessage) => {
    if (!("method" in message) || message.method !== "notifications/resources/updated")
      return Promise.resolve();
    written.push((message.params as { uri: string }).uri);
    return new Promise<void>((resolve) => unread.push(resolve));
  });
  let id = 1;
  const request = (method: string, params: Record<string, unknown>) =>
    connection?.dispatch({ jsonrpc: "2.0", id: id++, method, params }, {});
  await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT });
  connection?.notification({ method: "notifications/initialized" });
  return { written, unread, request };
}

describe("2025-11-25 resources/updated for a client that reads slowly", () => {
  it("holds at most one unread update per URI, and sends the next once the client took it", async () => {
    const mcp = new MCPServer("watch", { logger: silentLogger, listChanged: true });
    mcp.resource("test://a", {}, () => "a");
    mcp.resource("test://b", {}, () => "b");
    const { written, unread, request } = await slowReader(mcp);
    await request("resources/subscribe", { uri: "test://a" });
    await request("resources/subscribe", { uri: "test://b" });
    for (let i = 0; i < 1_000; i++) {
      mcp.server.notifyResourceUpdated(i % 2 === 0 ? "test://a" : "test://b");
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(written).toEqual(["test://a", "test://b"]);
    for (const read of unread.splice(0)) read();
    await new Promise((resolve) => setImmediate(resolve));
    mcp.server.notifyResourceUpdated("test://a");
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(["test://a", "test://b", "test://a"]);
  });
});

describe("2025-11-25 resources/updated under a subscribed parent, for a client that reads slowly", () => {
  it("holds one unread update per subscription, then tells the parent's URI once for the rest", async () => {
    const mcp = new MCPServer("watch", { logger: silentLogger, listChanged: true });
    mcp.resource("file:///logs", {}, () => "index");
    const { written, unread, request } = await slowReader(mcp);
    await request("resources/subscribe", { uri: "file:///logs" });
    // A thousand distinct files under the subscribed folder change while the client reads nothing.
    for (let i = 0; i < 1_000; i++) {
      mcp.server.notifyResourceUpdated(`file:///logs/${i}.txt`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(written).toEqual(["file:///logs/0.txt"]);
    // Once read, the others are told in one update of the folder itself (not lost, not 999).
    for (const read of unread.splice(0)) read();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(["file:///logs/0.txt", "file:///logs"]);
    // The folder's unread update already covers every file under it.
    mcp.server.notifyResourceUpdated("file:///logs/7.txt");
    for (const read of unread.splice(0)) read();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(["file:///logs/0.txt", "file:///logs"]);
    mcp.server.notifyResourceUpdated("file:///logs/8.txt");
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(["file:///logs/0.txt", "file:///logs", "file:///logs/8.txt"]);
  });
});

describe("2025-11-25 resources/subscribe bounds", () => {
  it("holds at most MAX_SUBSCRIPTIONS URIs of at most MAX_SUBSCRIBED_URI_LENGTH per session", async () => {
    expect([MAX_SUBSCRIPTIONS, MAX_SUBSCRIBED_URI_LENGTH]).toEqual([1_000, 8_192]);
    const { http } = await watched();
    const url = http.url.href;
    const session = await openSession(url, {});
    let id = 10;
    const call = async (method: string, uri: string) =>
      (await post(url, { jsonrpc: "2.0", id: ++id, method, params: { uri } }, session.headers)).json();
    for (let batch = 0; batch < MAX_SUBSCRIPTIONS; batch += 100) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => call("resources/subscribe", `test://r/${batch + i}`)),
      );
      expect(answers.every((answer) => "result" in (answer as object))).toBe(true);
    }
    // Subscribing again to a URI it holds is not one more.
    expect(await call("resources/subscribe", "test://r/5")).toEqual({ jsonrpc: "2.0", id, result: {} });
    expect(await call("resources/subscribe", "test://r/1000")).toEqual({
      jsonrpc: "2.0",
      id,
      error: { code: -32602, message: "A session holds at most 1000 subscriptions" },
    });
    expect(await call("resources/unsubscribe", "test://r/0")).toEqual({ jsonrpc: "2.0", id, result: {} });
    expect(await call("resources/subscribe", "test://r/1000")).toEqual({ jsonrpc: "2.0", id, result: {} });

    await call("resources/unsubscribe", "test://r/1");
    const long = (length: number) => `test://${"x".repeat(length - "test://".length)}`;
    expect(await call("resources/subscribe", long(MAX_SUBSCRIBED_URI_LENGTH + 1))).toEqual({
      jsonrpc: "2.0",
      id,
      error: { code: -32602, message: "Invalid params for resources/subscribe: uri" },
    });
    expect(await call("resources/subscribe", long(MAX_SUBSCRIBED_URI_LENGTH))).toEqual({
      jsonrpc: "2.0",
      id,
      result: {},
    });
  });
});

describe("2025-11-25 HTTP client: resuming a dropped stream (SEP-1699)", () => {
  it("re-opens the stream with Last-Event-ID after the server's retry and gets the response there", async () => {
    const seen: string[] = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        const message = body ? (JSON.parse(body) as { id?: number; method?: string }) : undefined;
        seen.push(
          `${request.method} ${message?.method ?? ""} ${String(request.headers["last-event-id"] ?? "")}`.trim(),
        );
        if (request.method === "POST" && message?.method === "initialize") {
          response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
          response.end(
            JSON.stringify({
              jsonrpc: "2.0",
              id: message.id,
              result: {
                protocolVersion: "2025-11-25",
                capabilities: { tools: {} },
                serverInfo: { name: "stub", version: "1" },
              },
            }),
          );
        } else if (request.method === "POST" && message?.method === "tools/call") {
          response.writeHead(200, { "content-type": "text/event-stream" });
          response.write("id: event-2\nretry: 100\ndata: \n\n");
          setTimeout(() => response.end(), 20);
        } else if (request.method === "GET" && request.headers["last-event-id"] === "event-2") {
          response.writeHead(200, { "content-type": "text/event-stream" });
          response.end(
            `id: event-3\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "resumed" }] } })}\n\n`,
          );
        } else if (request.method === "GET") {
          response.writeHead(405).end();
        } else {
          response.writeHead(202).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address() as { port: number };
    const client = await Client.connect(`http://127.0.0.1:${address.port}/mcp`, { mode: "legacy" });
    cleanups.push(() => client.close());
    const started = Date.now();
    const result = await client.callTool("t");
    expect(result.content).toEqual([{ type: "text", text: "resumed" }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(seen).toContain("GET  event-2");
  });
});
