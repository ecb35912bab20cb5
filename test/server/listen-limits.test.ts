import { afterEach, describe, expect, it } from "vitest";
import { MAX_SUBSCRIBED_URI_LENGTH, MAX_SUBSCRIPTIONS } from "../../src/server/legacy/session.js";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { request } from "../helpers.js";

let http: HttpServerHandle | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

async function served(): Promise<HttpServerHandle> {
  const mcp = new MCPServer("live", { logger: silentLogger, listChanged: true });
  mcp.resource("notes://a", { name: "a" }, () => "a");
  http = await serveHttp(mcp, { port: 0 });
  return http;
}

function listen(url: URL, notifications: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify(request("subscriptions/listen", { notifications }, {}, 1)),
    ...init,
  });
}

describe("subscriptions/listen filter bounds", () => {
  const refusal = {
    jsonrpc: "2.0",
    id: 1,
    error: {
      code: -32602,
      message: `Invalid params for subscriptions/listen: notifications.resourceSubscriptions holds at most ${MAX_SUBSCRIPTIONS} non-empty URIs of at most ${MAX_SUBSCRIBED_URI_LENGTH} characters`,
    },
  };

  it.each([
    ["too many URIs", Array.from({ length: MAX_SUBSCRIPTIONS + 1 }, (_, i) => `notes://${i}`)],
    ["a URI too long", [`notes://${"x".repeat(MAX_SUBSCRIBED_URI_LENGTH - 7)}`]],
    ["an empty URI", [""]],
  ])("refuses %s with -32602 over HTTP", async (_, resourceSubscriptions) => {
    const { url } = await served();
    const response = await listen(url, { resourceSubscriptions });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(refusal);
  });

  it("accepts the most URIs of the longest length", async () => {
    const { url } = await served();
    const longest = `notes://${"x".repeat(MAX_SUBSCRIBED_URI_LENGTH - 8)}`;
    const uris = [longest, ...Array.from({ length: MAX_SUBSCRIPTIONS - 1 }, (_, i) => `notes://${i}`)];
    const controller = new AbortController();
    const response = await listen(url, { resourceSubscriptions: uris }, { signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    expect(first).toContain('"notifications/subscriptions/acknowledged"');
    expect(first).toContain(longest);
    controller.abort();
  });
});
