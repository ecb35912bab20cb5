// Auth is checked once per request, and a listen stream is one request: it used to carry news to
// its bearer for as long as it stayed open, long after the endpoint refused the token. Now the
// stream ends, with its closing result, when the token it was opened with expires. Real loopback
// sockets; the exact SSE events.
import { afterEach, describe, expect, it } from "vitest";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { post, readSseEvents, rpc } from "./helpers.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "news", version: "1.0.0" } };

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

/** Tokens: `short` expires 300 ms after it is verified, `long` in an hour, `timeless` never. */
async function serve(): Promise<{ url: URL; mcp: MCPServer }> {
  const mcp = new MCPServer("news", { version: "1.0.0", logger: silentLogger, listChanged: true });
  mcp.tool("first", {}, () => "one");
  const lifetimes: Record<string, number | undefined> = { short: 0.3, long: 3600, timeless: undefined };
  handle = await serveHttp(mcp, {
    drainTimeoutMs: 0,
    requireAuth: true,
    verifyToken: (request) => {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      if (!(token in lifetimes)) return undefined;
      const lifetime = lifetimes[token];
      const expiry = lifetime === undefined ? {} : { expiresAt: Date.now() / 1000 + lifetime };
      return { token, clientId: "app", scopes: [], ...expiry };
    },
  });
  return { url: handle.url, mcp };
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
  it("ends with its closing result when the token expires; streams of longer-lived tokens stay open", async () => {
    const { url, mcp } = await serve();
    const short = await openListen(url, "short", "s-1");
    const long = await openListen(url, "long", "l-1");
    const timeless = await openListen(url, "timeless", "t-1");
    await short.ended;
    expect(short.events).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { [SUBSCRIPTION_ID]: "s-1" }, notifications: { toolsListChanged: true } },
      },
      {
        jsonrpc: "2.0",
        id: "s-1",
        result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID]: "s-1", ...SERVER_INFO } },
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
});
