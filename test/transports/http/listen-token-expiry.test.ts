// Auth is checked once per request, and a listen stream is one request: it used to carry news to
// its bearer for as long as it stayed open, long after the endpoint refused the token. Now the
// stream is dropped, as a broken connection would be, when the token it was opened with expires:
// no closing result, so a client re-opens it by itself with its fresh token. Real loopback sockets.
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/client.js";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import type { SubscriptionFilter } from "../../../src/types/index.js";
import { post, readSseEvents, rpc } from "./helpers.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

/** Tokens `short-N` expire 300 ms after they are verified, `long` in an hour, `timeless` never. */
async function serve(): Promise<{ url: URL; mcp: MCPServer; verified: string[] }> {
  const mcp = new MCPServer("news", { version: "1.0.0", logger: silentLogger, listChanged: true });
  mcp.tool("first", {}, () => "one");
  const verified: string[] = [];
  handle = await serveHttp(mcp, {
    drainTimeoutMs: 0,
    requireAuth: true,
    verifyToken: (request) => {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      const lifetime = token.startsWith("short-") ? 0.3 : token === "long" ? 3600 : undefined;
      if (lifetime === undefined && token !== "timeless") return undefined;
      verified.push(token);
      const expiry = lifetime === undefined ? {} : { expiresAt: Date.now() / 1000 + lifetime };
      return { token, clientId: "app", scopes: [], ...expiry };
    },
  });
  return { url: handle.url, mcp, verified };
}

/** Opens a tools listen stream with `token`, reading its events in the background. */
async function openListen(url: URL, token: string, id: string) {
  const response = await post(
    url,
    rpc("subscriptions/listen", { notifications: { toolsListChanged: true } }, id),
    { authorization: `Bearer ${token}` },
  );
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return readSseEvents(response);
}

describe("a listen stream and its token's expiry", () => {
  it("is dropped without a closing result when the token expires; longer-lived tokens' streams stay", async () => {
    const { url, mcp } = await serve();
    const short = await openListen(url, "short-1", "s-1");
    const long = await openListen(url, "long", "l-1");
    const timeless = await openListen(url, "timeless", "t-1");
    await short.ended;
    expect(short.events).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { [SUBSCRIPTION_ID]: "s-1" }, notifications: { toolsListChanged: true } },
      },
    ]);
    // The others still hear of changes.
    mcp.tool("second", {}, () => "two");
    const changed = {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: expect.any(Object),
    };
    await expect.poll(() => long.events.at(-1)).toEqual(changed);
    await expect.poll(() => timeless.events.at(-1)).toEqual(changed);
    await Promise.all([long.cancel(), timeless.cancel()]);
  });

  it("our client re-opens the dropped stream with its next token and goes on hearing changes", async () => {
    const { url, mcp } = await serve();
    let issued = 0;
    const transport = new StreamableHttpClientTransport(url, { authProvider: () => `short-${++issued}` });
    const client = await Client.connect(transport);
    const reopened: SubscriptionFilter[] = [];
    const heard: string[] = [];
    const subscription = client.listen(
      { toolsListChanged: true },
      (notification) => heard.push(notification.method),
      { reconnect: { initialDelayMs: 10 }, onReconnect: (filter) => reopened.push(filter) },
    );
    await subscription.acknowledged;
    await expect.poll(() => reopened.length, { timeout: 3_000 }).toBeGreaterThan(0);
    expect(reopened[0]).toEqual({ toolsListChanged: true });
    mcp.tool("second", {}, () => "two");
    await expect.poll(() => heard).toContain("notifications/tools/list_changed");
    subscription.close();
    await client.close();
  });
});
