// A 2025 session's GET stream is one request, and auth is checked once per request: it used to
// carry the server's news to its bearer for as long as it stayed open, long after the endpoint
// refused the token. It now ends when the token it was opened with expires, and the session can
// open it again at once with a fresh token (the 2025 client does so by itself). Real loopback sockets.
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/client.js";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { LEGACY_INITIALIZE, readSseEvents } from "./helpers.js";

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

/** Tokens `short-N` expire 300 ms after they are verified, `long` in an hour. */
async function serve(): Promise<{ url: URL; mcp: MCPServer }> {
  const mcp = new MCPServer("news", { version: "1.0.0", logger: silentLogger, listChanged: true });
  mcp.resource("test://watched", {}, () => "v1");
  handle = await serveHttp(mcp, {
    drainTimeoutMs: 0,
    requireAuth: true,
    verifyToken: (request) => {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      const lifetime = token.startsWith("short-") ? 0.3 : token === "long" ? 3600 : undefined;
      if (lifetime === undefined) return undefined;
      return { token, clientId: "app", scopes: [], expiresAt: Date.now() / 1000 + lifetime };
    },
  });
  return { url: handle.url, mcp };
}

/** A 2025 session opened with `token`, subscribed to test://watched; `stream` GETs its stream. */
async function session(url: URL, token: string) {
  const headers = (bearer: string, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${bearer}`,
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    ...extra,
  });
  const opened = await fetch(url, {
    method: "POST",
    headers: headers(token),
    body: JSON.stringify(LEGACY_INITIALIZE),
  });
  expect(opened.status).toBe(200);
  await opened.body?.cancel();
  const id = opened.headers.get("mcp-session-id") ?? "";
  const sessionHeaders = (bearer: string) =>
    headers(bearer, { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" });
  const initialized = await fetch(url, {
    method: "POST",
    headers: sessionHeaders(token),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  expect(initialized.status).toBe(202);
  const subscribed = await fetch(url, {
    method: "POST",
    headers: sessionHeaders(token),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "resources/subscribe",
      params: { uri: "test://watched" },
    }),
  });
  expect(subscribed.status).toBe(200);
  await subscribed.body?.cancel();
  const stream = async (bearer: string) => {
    const response = await fetch(url, { method: "GET", headers: sessionHeaders(bearer) });
    expect(response.status).toBe(200);
    return readSseEvents(response);
  };
  return { stream };
}

describe("a 2025 session's GET stream and its token's expiry", () => {
  it("ends when the token expires, then opens again with a fresh one; longer-lived streams stay", async () => {
    const { url, mcp } = await serve();
    const short = await session(url, "short-1");
    const long = await session(url, "long");
    const first = await short.stream("short-2");
    const lasting = await long.stream("long");
    await first.ended;
    expect(first.events).toEqual([]);
    // The session's stream slot was freed: a fresh token opens it again (not 409).
    const second = await short.stream("short-3");
    mcp.server.notifyResourceUpdated("test://watched");
    const changed = {
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "test://watched" },
    };
    await expect.poll(() => lasting.events.at(-1)).toEqual(changed);
    await expect.poll(() => second.events.at(-1)).toEqual(changed);
    await Promise.all([lasting.cancel(), second.cancel()]);
  });

  it("our 2025 client opens it again with its next token and goes on hearing changes", async () => {
    const { url, mcp } = await serve();
    let issued = 0;
    const client = await Client.connect(url, {
      mode: "legacy",
      http: { authProvider: () => `short-${++issued}` },
    });
    const heard: string[] = [];
    const sub = client.listen({ resourceSubscriptions: ["test://watched"] }, (n) => heard.push(n.method));
    await sub.acknowledged;
    const before = issued;
    // Past the first stream's token, and the wait before it is opened again.
    await expect.poll(() => issued, { timeout: 4_000 }).toBeGreaterThan(before);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the new stream is open
    mcp.server.notifyResourceUpdated("test://watched");
    await expect.poll(() => heard, { timeout: 4_000 }).toContain("notifications/resources/updated");
    sub.close();
    await client.close();
  });
});
