// The client's side of spec §3.3: a server MUST NOT send notification types the client did not ask
// for, and the client compares the honoured filter with its request. A hand-written server that
// breaks the rule on a real SSE listen stream: only what was asked for and agreed to gets through.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { filterCovers } from "../../src/shared/subscription-filter.js";
import type { JSONRPCNotification } from "../../src/types/index.js";
import { DISCOVERED } from "./stubs.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A listen stream that acknowledges `honoured`, then sends every one of `notifications`. */
async function misbehavingServer(honoured: Record<string, unknown>, notifications: [string, object][]) {
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const { id, method } = JSON.parse(text) as { id: number; method: string };
    if (method === "server/discover") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ jsonrpc: "2.0", id, result: DISCOVERED }));
    }
    const tag = { "io.modelcontextprotocol/subscriptionId": id };
    const event = (message: object) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(
      event({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: tag, notifications: honoured },
      }),
    );
    for (const [name, params] of notifications) {
      res.write(event({ jsonrpc: "2.0", method: name, params: { ...params, _meta: tag } }));
    }
    res.end(event({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: tag } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe("client.listen against a server that sends more than it should", () => {
  it("delivers only what was asked for and acknowledged", async () => {
    const url = await misbehavingServer({ toolsListChanged: true, resourceSubscriptions: ["file:///logs"] }, [
      ["notifications/tools/list_changed", {}],
      ["notifications/prompts/list_changed", {}], // asked for, not agreed to
      ["notifications/resources/list_changed", {}], // neither
      ["notifications/resources/updated", { uri: "file:///logs/today" }], // a sub-resource: covered
      ["notifications/resources/updated", { uri: "file:///etc/passwd" }],
      ["notifications/tasks", { taskId: "t-1", status: "working" }], // no task ids asked for
      ["notifications/example/custom", { n: 1 }], // no filter entry asked for anything of the kind
    ]);
    const client = await Client.connect(url);
    closers.push(() => client.close());
    const seen: JSONRPCNotification[] = [];
    const sub = client.listen(
      { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["file:///logs"] },
      (notification) => seen.push(notification),
      { reconnect: false },
    );
    expect(await sub.acknowledged).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ["file:///logs"],
    });
    await sub.closed;
    expect(seen.map((n) => [n.method, (n.params as { uri?: string }).uri])).toEqual([
      ["notifications/tools/list_changed", undefined],
      ["notifications/resources/updated", "file:///logs/today"],
    ]);
  });

  it("leaves an extension's notifications to the extension when both filters carry its entry", async () => {
    const url = await misbehavingServer({ toolsListChanged: true, "com.example/feed": { topic: "a" } }, [
      ["notifications/example/custom", { n: 1 }],
      ["notifications/prompts/list_changed", {}],
    ]);
    const client = await Client.connect(url);
    closers.push(() => client.close());
    const seen: string[] = [];
    const sub = client.listen(
      { toolsListChanged: true, "com.example/feed": { topic: "a" } },
      (n) => seen.push(n.method),
      {
        reconnect: false,
      },
    );
    await sub.closed;
    expect(seen).toEqual(["notifications/example/custom"]);
  });

  it("never lets through what the server agreed to but was not asked for", async () => {
    const url = await misbehavingServer({ toolsListChanged: true, promptsListChanged: true }, [
      ["notifications/prompts/list_changed", {}],
      ["notifications/tools/list_changed", {}],
    ]);
    const client = await Client.connect(url);
    closers.push(() => client.close());
    const seen: string[] = [];
    const sub = client.listen({ toolsListChanged: true }, (n) => seen.push(n.method), { reconnect: false });
    await sub.closed;
    expect(seen).toEqual(["notifications/tools/list_changed"]);
  });
});

describe("filterCovers", () => {
  it.each([
    [{ taskIds: ["t-1"] }, "notifications/tasks", { taskId: "t-1" }, true],
    [{ taskIds: ["t-1"] }, "notifications/tasks", { taskId: "t-2" }, false],
    [{ taskIds: ["t-1"] }, "notifications/tasks", {}, false],
    [
      { resourceSubscriptions: ["file:///a/"] },
      "notifications/resources/updated",
      { uri: "file:///a/b" },
      true,
    ],
    [
      { resourceSubscriptions: ["file:///a"] },
      "notifications/resources/updated",
      { uri: "file:///ab" },
      false,
    ],
    [{ resourcesListChanged: true }, "notifications/resources/list_changed", undefined, true],
    [{}, "notifications/tools/list_changed", undefined, false],
    [{ toolsListChanged: true, taskIds: ["t-1"] }, "notifications/example/custom", {}, false],
    [{ "com.example/feed": false }, "notifications/example/custom", {}, false],
    [{ "com.example/feed": true }, "notifications/example/custom", {}, true],
    [{ "com.example/feed": true }, "notifications/tools/list_changed", {}, false],
  ])("%j covers %s %j: %s", (filter, method, params, expected) => {
    expect(filterCovers(filter, method, params)).toBe(expected);
  });
});
