import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { Server } from "../../src/server/server.js";
import { MAX_BACKLOG, MAX_SUBSCRIBED_URI_LENGTH, MAX_SUBSCRIPTIONS } from "../../src/server/subscriptions.js";
import { serverTasks } from "../../src/server/tasks/index.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import type { JSONRPCNotification } from "../../src/types/index.js";
import { TASKS_EXTENSION } from "../../src/types/tasks.js";
import { request } from "../helpers.js";

let http: HttpServerHandle | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

async function served(withTasks = false): Promise<HttpServerHandle> {
  const mcp = new MCPServer("live", {
    logger: silentLogger,
    listChanged: true,
    ...(withTasks ? { tasks: serverTasks() } : {}),
  });
  mcp.resource("notes://a", { name: "a" }, () => "a");
  // A task-capable tool is what makes an MCPServer follow tasks on its listen streams.
  if (withTasks) mcp.tool("job", { task: "optional" }, () => "done");
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
    body: JSON.stringify(
      request("subscriptions/listen", { notifications }, { extensions: { [TASKS_EXTENSION]: {} } }, 1),
    ),
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

describe("subscriptions/listen taskIds bounds (Tasks extension)", () => {
  const refusal = {
    jsonrpc: "2.0",
    id: 1,
    error: {
      code: -32602,
      message: `Invalid params for subscriptions/listen: notifications.taskIds holds at most ${MAX_SUBSCRIPTIONS} non-empty task ids of at most ${MAX_SUBSCRIBED_URI_LENGTH} characters`,
    },
  };

  it.each([
    ["too many ids", Array.from({ length: MAX_SUBSCRIPTIONS + 1 }, (_, i) => `t${i}`)],
    ["an id too long", ["x".repeat(MAX_SUBSCRIBED_URI_LENGTH + 1)]],
    ["an empty id", [""]],
    ["an id that is not a string", ["t1", 42]],
    ["ids that are not a list", "t1"],
  ])("refuses %s with -32602 over HTTP", async (_, taskIds) => {
    const { url } = await served(true);
    const response = await listen(url, { taskIds });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(refusal);
  });

  it("accepts the most ids of the longest length (none of them a task of the caller's: none honoured)", async () => {
    const { url } = await served(true);
    const taskIds = [
      "x".repeat(MAX_SUBSCRIBED_URI_LENGTH),
      ...Array.from({ length: MAX_SUBSCRIPTIONS - 1 }, (_, i) => `t${i}`),
    ];
    const text = await (await listen(url, { taskIds })).text();
    expect(text).toContain('"notifications":{}');
    expect(text).toContain('"result":{"resultType":"complete"');
  });

  it("leaves taskIds to a server without tasks: an entry it does not support is left out, not refused", async () => {
    const { url } = await served();
    const text = await (
      await listen(url, { resourcesListChanged: true, taskIds: [42] }, { signal: AbortSignal.timeout(500) })
    ).body
      ?.getReader()
      .read();
    expect(new TextDecoder().decode(text?.value)).toContain('"notifications":{"resourcesListChanged":true}');
  });
});

describe("a listen stream whose reader is behind", () => {
  const tag = { "io.modelcontextprotocol/subscriptionId": 1 };
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  it(`holds at most ${MAX_BACKLOG} unread notifications, then merges: one per list, subscribed URI and task`, async () => {
    const server = new Server("live", {
      logger: silentLogger,
      listChanged: true,
      onListTools: () => ({ tools: [] }),
      onReadResource: () => ({ contents: [] }),
    });
    const seen: JSONRPCNotification[] = [];
    const unread: (() => void)[] = [];
    const response = server.dispatch(
      request(
        "subscriptions/listen",
        { notifications: { toolsListChanged: true, resourceSubscriptions: ["notes://a"] } },
        {},
        1,
      ),
      {
        // A reader that takes nothing: each write waits for room, as an SSE stream's does.
        notify: (n) => {
          seen.push(n);
          return n.method === "notifications/subscriptions/acknowledged"
            ? Promise.resolve()
            : new Promise((r) => unread.push(r));
        },
      },
    );
    await tick();
    for (let i = 0; i < MAX_BACKLOG + 8; i++) server.notifyResourceUpdated(`notes://a/${i}`);
    server.notifyToolsListChanged();
    for (let i = 0; i < 500; i++) server.notifyResourceUpdated(`notes://a/later/${i}`);
    await tick();
    expect(seen).toHaveLength(1 + MAX_BACKLOG);
    // The reader catches up: what was held goes out once each, in the order first held.
    while (unread.length > 0) {
      for (const read of unread.splice(0)) read();
      await tick();
    }
    const held = seen.slice(1 + MAX_BACKLOG);
    expect(seen.slice(MAX_BACKLOG, 1 + MAX_BACKLOG)).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { _meta: tag, uri: `notes://a/${MAX_BACKLOG - 1}` },
      },
    ]);
    expect(held).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { _meta: tag, uri: "notes://a" } },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: tag } },
    ]);
    // Caught up, the stream sends at once again.
    server.notifyPromptsListChanged();
    server.notifyResourceUpdated("notes://a/after");
    await tick();
    expect(seen.slice(3 + MAX_BACKLOG).map((n) => n.params?.uri)).toEqual(["notes://a/after"]);
    server.closeSubscriptions();
    await response;
  });

  it("over HTTP keeps a stalled reader's stream bounded and ends it with what changed", async () => {
    const mcp = new MCPServer("live", { logger: silentLogger, listChanged: true });
    mcp.resource("notes://a", { name: "a" }, () => "a");
    http = await serveHttp(mcp, { port: 0 });
    const response = await listen(http.url, { resourceSubscriptions: ["notes://a"] });
    const reader = response.body?.getReader();
    if (!reader) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    expect(text).toContain("acknowledged");
    const updates = 20_000;
    const padding = "y".repeat(500);
    for (let i = 0; i < updates; i++) mcp.server.notifyResourceUpdated(`notes://a/${i}/${padding}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    mcp.server.closeSubscriptions();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    const events = text
      .split("\n\n")
      .filter((event) => event.startsWith("data: "))
      .map((event) => JSON.parse(event.slice(6)) as Record<string, unknown>);
    // Only what the socket and the stream's queue took before the reader stalled, then the merge.
    expect(events.length).toBeLessThan(updates / 4);
    expect(events.slice(-2)).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { _meta: tag, uri: "notes://a" } },
      {
        jsonrpc: "2.0",
        id: 1,
        result: {
          resultType: "complete",
          _meta: { ...tag, "io.modelcontextprotocol/serverInfo": { name: "live", version: "" } },
        },
      },
    ]);
  });
});
