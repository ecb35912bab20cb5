// client.listen on a 2025 session, which has no subscriptions/listen: resource updates through
// resources/subscribe (against our dual-era server, over HTTP: the updates ride the session's GET
// stream) and unsolicited list changes (against a scripted 2025 server), with the same
// Subscription as on 2026-07-28: the acknowledged filter is what the server can send.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ListCache } from "../../src/client/cache.js";
import { Client } from "../../src/client/client.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import { ConnectionClosedError } from "../../src/shared/errors.js";
import type { MessageInfo, Transport } from "../../src/shared/transport.js";
import { serveHttp } from "../../src/transports/http/node.js";
import type { JSONRPCMessage, JSONRPCNotification } from "../../src/types/index.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error("condition not reached");
}

/** A 2025 server that advertises list changes, and pushes whatever the test says. */
class ScriptedLegacyServer implements Transport {
  onmessage?: (message: JSONRPCMessage, info?: MessageInfo) => void;
  onclose?: () => void;
  readonly received: string[] = [];
  /** URIs whose resources/subscribe is answered with an error. */
  readonly refused = new Set<string>();
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    const { id, method } = message as { id?: number; method?: string };
    this.received.push(String(method));
    if (method === "initialize") {
      const result = {
        protocolVersion: "2025-11-25",
        capabilities: { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true } },
        serverInfo: { name: "scripted", version: "1" },
      };
      queueMicrotask(() => this.onmessage?.({ jsonrpc: "2.0", id: id as number, result }));
    } else if (method === "resources/subscribe" || method === "resources/unsubscribe") {
      const uri = (message as unknown as { params: { uri: string } }).params.uri;
      this.received.push(uri);
      const answer =
        method === "resources/subscribe" && this.refused.has(uri)
          ? { error: { code: -32602, message: "no such resource" } }
          : { result: {} };
      queueMicrotask(() => this.onmessage?.({ jsonrpc: "2.0", id: id as number, ...answer }));
    }
  }
  push(method: string): void {
    this.onmessage?.({ jsonrpc: "2.0", method, params: {} } as JSONRPCNotification);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

describe("client.listen on a 2025 session", () => {
  it("subscribes to resources, hears their updates on the GET stream, and unsubscribes on close", async () => {
    const mcp = new MCPServer("watch", { logger: silentLogger, listChanged: true });
    mcp.resource("test://watched", {}, () => "v1");
    mcp.tool("ping", {}, () => "pong");
    const http = await serveHttp(mcp, { port: 0 });
    closers.push(() => http.close());
    const client = await Client.connect(http.url, { mode: "legacy" });
    closers.push(() => client.close());
    const seen: JSONRPCNotification[] = [];
    const sub = client.listen({ toolsListChanged: true, resourceSubscriptions: ["test://watched"] }, (n) =>
      seen.push(n),
    );
    // This server announces no list changes to 2025 sessions: only the subscription is honoured.
    expect(await sub.acknowledged).toEqual({ resourceSubscriptions: ["test://watched"] });
    mcp.server.notifyResourceUpdated("test://other");
    mcp.server.notifyResourceUpdated("test://watched");
    await until(() => seen.length === 1);
    expect(seen[0]).toMatchObject({
      method: "notifications/resources/updated",
      params: { uri: "test://watched" },
    });

    sub.close();
    await sub.closed;
    await new Promise((resolve) => setTimeout(resolve, 50)); // the unsubscribe POST lands
    mcp.server.notifyResourceUpdated("test://watched");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(1);
  });

  it("delivers the unsolicited list changes the server advertised, and only those asked for", async () => {
    const server = new ScriptedLegacyServer();
    const client = await Client.connect(server, { mode: "legacy" });
    const tools: string[] = [];
    const prompts: string[] = [];
    const toolSub = client.listen({ toolsListChanged: true }, (n) => tools.push(n.method));
    const promptSub = client.listen({ promptsListChanged: true }, (n) => prompts.push(n.method));
    expect(await toolSub.acknowledged).toEqual({ toolsListChanged: true });
    // prompts: {} without listChanged: nothing to listen to.
    expect(await promptSub.acknowledged).toEqual({});
    server.push("notifications/tools/list_changed");
    server.push("notifications/prompts/list_changed");
    server.push("notifications/resources/list_changed");
    expect(tools).toEqual(["notifications/tools/list_changed"]);
    expect(prompts).toEqual([]);
    expect(server.received).not.toContain("subscriptions/listen");

    toolSub.close();
    server.push("notifications/tools/list_changed");
    expect(tools).toHaveLength(1);

    await client.close();
    await expect(promptSub.closed).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it("subscribes each resource once, and unsubscribes them on close", async () => {
    const server = new ScriptedLegacyServer();
    const client = await Client.connect(server, { mode: "legacy" });
    closers.push(() => client.close());
    const sub = client.listen({ resourceSubscriptions: ["file:///a", "file:///b", "file:///a"] });
    expect(await sub.acknowledged).toEqual({ resourceSubscriptions: ["file:///a", "file:///b"] });
    sub.close();
    await sub.closed;
    await until(() => server.received.filter((m) => m === "resources/unsubscribe").length === 2);
    const wire = server.received.filter((m) => m.startsWith("resources/") || m.startsWith("file:"));
    expect(wire).toEqual([
      "resources/subscribe",
      "file:///a",
      "resources/subscribe",
      "file:///b",
      "resources/unsubscribe",
      "file:///a",
      "resources/unsubscribe",
      "file:///b",
    ]);
  });

  it("shares one server subscription per URI: only the last subscription to close unsubscribes", async () => {
    const server = new ScriptedLegacyServer();
    const client = await Client.connect(server, { mode: "legacy" });
    closers.push(() => client.close());
    const first = client.listen({ resourceSubscriptions: ["file:///x"] });
    const second = client.listen({ resourceSubscriptions: ["file:///x"] });
    await Promise.all([first.acknowledged, second.acknowledged]);
    first.close();
    await first.closed;
    await new Promise((resolve) => setTimeout(resolve, 10));
    const wire = () => server.received.filter((m) => m.startsWith("resources/") || m.startsWith("file:"));
    expect(wire()).toEqual(["resources/subscribe", "file:///x"]);
    second.close();
    await until(() => wire().length === 4);
    expect(wire()).toEqual(["resources/subscribe", "file:///x", "resources/unsubscribe", "file:///x"]);
  });

  it("a refused URI rejects the subscription and unsubscribes the URIs the server accepted", async () => {
    const server = new ScriptedLegacyServer();
    server.refused.add("file:///bad");
    const client = await Client.connect(server, { mode: "legacy" });
    closers.push(() => client.close());
    const sub = client.listen({ resourceSubscriptions: ["file:///good", "file:///bad"] });
    await expect(sub.acknowledged).rejects.toMatchObject({ code: -32602, message: "no such resource" });
    await expect(sub.closed).rejects.toMatchObject({ code: -32602 });
    const wire = () => server.received.filter((m) => m.startsWith("resources/") || m.startsWith("file:"));
    await until(() => wire().length === 6);
    expect(wire()).toEqual([
      "resources/subscribe",
      "file:///good",
      "resources/subscribe",
      "file:///bad",
      "resources/unsubscribe",
      "file:///good",
    ]);
    // The refusal is not remembered: a later subscription asks the server again.
    const retry = client.listen({ resourceSubscriptions: ["file:///bad"] });
    await expect(retry.acknowledged).rejects.toMatchObject({ code: -32602 });
    expect(wire().slice(6)).toEqual(["resources/subscribe", "file:///bad"]);
  });
});

describe("a 2025 subscription's listener that throws", () => {
  it("is reported as a warning; the other subscriptions and the cache eviction still run", async () => {
    const server = new ScriptedLegacyServer();
    const warnings: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      warnings.push(String(chunk));
      return true;
    });
    // A cache shared with a 2026 client: the 2025 session's list change evicts its tools/list too.
    const cache = new ListCache();
    cache.set("modern-client", "tools/list", undefined, { tools: [], ttlMs: 60_000 });
    const client = await Client.connect(server, { mode: "legacy", cache });
    closers.push(() => client.close());
    const heard: string[] = [];
    client.listen({ toolsListChanged: true }, () => {
      throw new Error("refresh failed");
    });
    client.listen({ toolsListChanged: true }, (n) => heard.push(n.method));
    try {
      expect(() => server.push("notifications/tools/list_changed")).not.toThrow();
    } finally {
      write.mockRestore();
    }
    expect(heard).toEqual(["notifications/tools/list_changed"]);
    expect(cache.size).toBe(0);
    expect(warnings).toEqual([
      "[roundtrip] warn: A listener of notifications/tools/list_changed failed: refresh failed\n",
    ]);
  });
});

describe("a 2025 subscription", () => {
  it("delivers only the notifications its filter names, not the session's other traffic", async () => {
    const server = new ScriptedLegacyServer();
    const logs: unknown[] = [];
    const client = await Client.connect(server, {
      mode: "legacy",
      onLog: (params) => logs.push(params.data),
    });
    closers.push(() => client.close());
    const heard: string[] = [];
    const sub = client.listen({ toolsListChanged: true }, (n) => heard.push(n.method));
    expect(await sub.acknowledged).toEqual({ toolsListChanged: true });
    server.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: "x" },
    });
    server.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } });
    server.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "t", progress: 1 },
    });
    server.push("notifications/elicitation/complete");
    server.push("notifications/tools/list_changed");
    expect(heard).toEqual(["notifications/tools/list_changed"]);
    expect(logs).toEqual(["x"]);
  });
});

describe("a 2025 subscription opened on a connection that has closed", () => {
  it("is refused with ConnectionClosedError, as on 2026-07-28, instead of never settling", async () => {
    const server = new ScriptedLegacyServer();
    const client = await Client.connect(server, { mode: "legacy" });
    server.onclose?.(); // the server went away before anyone listened
    const sub = client.listen({ toolsListChanged: true }, () => {});
    const settled = (promise: Promise<unknown>) =>
      Promise.race([
        promise.then(
          () => "resolved",
          (e: unknown) => e,
        ),
        new Promise((r) => setTimeout(() => r("pending"), 200)),
      ]);
    expect(await settled(sub.acknowledged)).toBeInstanceOf(ConnectionClosedError);
    expect(await settled(sub.closed)).toBeInstanceOf(ConnectionClosedError);
    expect(server.received).toEqual(["initialize", "notifications/initialized"]);
  });
});

/** Sends a list change on the stream of the tools/call that caused it, as a 2025 server may. */
class ChangingLegacyServer extends ScriptedLegacyServer {
  override async send(message: JSONRPCMessage): Promise<void> {
    const { id, method } = message as { id?: number; method?: string };
    if (method !== "tools/call") return super.send(message);
    const related = { relatedRequestId: id as number };
    queueMicrotask(() => {
      this.onmessage?.({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }, related);
      this.onmessage?.({ jsonrpc: "2.0", id: id as number, result: { content: [] } }, related);
    });
  }
}

describe("a 2025 list change sent on the stream of a request with listeners of its own", () => {
  it.each([
    ["nothing listens on the call", {}, {}],
    ["the session has an onLog", { onLog: () => {} }, {}],
    ["the call has an onProgress", {}, { onProgress: () => {} }],
  ])("still reaches the subscription when %s", async (_label, clientOptions, callOptions) => {
    const server = new ChangingLegacyServer();
    const client = await Client.connect(server, { mode: "legacy", ...clientOptions });
    closers.push(() => client.close());
    const heard: string[] = [];
    const sub = client.listen({ toolsListChanged: true }, (n) => heard.push(n.method));
    await sub.acknowledged;
    await client.callTool("register-more", {}, callOptions);
    expect(heard).toEqual(["notifications/tools/list_changed"]);
  });
});
