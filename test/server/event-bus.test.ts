// A ServerEventBus carries list changes and resource updates between instances: a change made on
// one instance reaches the listen streams (and 2025 resource subscribers) of another, through a bus
// that serializes events as a network channel would. Malformed bus traffic is dropped, and a failing
// publish is logged, never thrown at the code that announced the change.
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import type { ServerEventBus } from "../../src/server/events.js";
import type { JSONRPCNotification } from "../../src/types/index.js";
import { recordingLogger } from "../helpers.js";
import { jsonBus } from "./event-bus-helpers.js";
import { quietServer } from "./mcp/helpers.js";

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error("condition not reached");
}

function instance(events: ServerEventBus, logger = recordingLogger()) {
  const mcp = quietServer("catalog", { listChanged: true, events, logger });
  mcp.resource("file:///prices.json", {}, () => "{}");
  mcp.tool("ping", {}, () => "pong");
  mcp.prompt("brief", {}, () => "Brief me.");
  return mcp;
}

describe("ServerEventBus", () => {
  it("a change on one instance reaches the listen streams of another", async () => {
    const { bus } = jsonBus();
    const a = instance(bus);
    const b = instance(bus);
    const client = await Client.connect(b);
    const seen: JSONRPCNotification[] = [];
    const sub = client.listen(
      { toolsListChanged: true, resourceSubscriptions: ["file:///prices.json"] },
      (n) => seen.push(n),
    );
    await sub.acknowledged;
    a.server.notifyResourceUpdated("file:///prices.json");
    a.tool("quote", {}, () => "42");
    await until(() => seen.length === 2);
    expect(seen.map((n) => [n.method, (n.params as { uri?: string }).uri])).toEqual([
      ["notifications/resources/updated", "file:///prices.json"],
      ["notifications/tools/list_changed", undefined],
    ]);
    sub.close();
    await client.close();
  });

  it("an instance hears its own changes through the bus, and only through it", async () => {
    const { bus, published } = jsonBus();
    const a = instance(bus);
    const client = await Client.connect(a);
    const seen: string[] = [];
    const sub = client.listen({ promptsListChanged: true }, (n) => seen.push(n.method));
    await sub.acknowledged;
    a.server.notifyPromptsListChanged();
    await until(() => seen.length === 1);
    expect(published.at(-1)).toBe('{"kind":"promptsListChanged"}');
    sub.close();
    await client.close();
  });

  it("drops malformed bus traffic and logs a failing publish without throwing", async () => {
    const { bus } = jsonBus();
    const b = instance(bus);
    const client = await Client.connect(b);
    const seen: string[] = [];
    const sub = client.listen(
      { toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ["file:///prices.json"] },
      (n) => seen.push(n.method),
    );
    await sub.acknowledged;
    for (const junk of [
      '{"kind":"resourceUpdated"}',
      '{"kind":"resourceUpdated","uri":7}',
      '{"kind":"task","taskId":"t-1"}',
      '{"kind":"somethingElse"}',
      '["toolsListChanged"]',
    ]) {
      expect(() => bus.raw(junk), junk).not.toThrow();
    }
    bus.raw('{"kind":"resourcesListChanged"}');
    await until(() => seen.length === 1);
    expect(seen).toEqual(["notifications/resources/list_changed"]);
    sub.close();
    await client.close();

    const logger = recordingLogger();
    const broken = instance(
      { publish: () => Promise.reject(new Error("channel down")), subscribe: () => () => {} },
      logger,
    );
    expect(() => broken.server.notifyToolsListChanged()).not.toThrow();
    await until(() => logger.lines.length > 0);
    expect(logger.lines).toContain("error: events.publish failed: Error: channel down");
  });

  it("an instance that registers fifty tools at start publishes one announcement, not fifty", async () => {
    const { bus, published } = jsonBus();
    const mcp = quietServer("big", { listChanged: true, events: bus });
    for (let i = 0; i < 50; i++) mcp.tool(`tool_${i}`, {}, () => "ok");
    mcp.prompt("brief", {}, () => "Brief me.");
    await until(() => published.length > 0);
    await new Promise((r) => setTimeout(r, 10));
    expect(published.map((text) => JSON.parse(text))).toEqual([
      { kind: "toolsListChanged" },
      { kind: "promptsListChanged" },
    ]);
  });

  it("keeps the order of one run's announcements, each said once", async () => {
    const { bus, published } = jsonBus();
    const mcp = quietServer("ordered", { listChanged: true, events: bus });
    mcp.server.notifyResourceUpdated("file:///a");
    mcp.server.notifyToolsListChanged();
    mcp.server.notifyResourceUpdated("file:///b");
    mcp.server.notifyResourceUpdated("file:///a");
    mcp.server.notifyToolsListChanged();
    await until(() => published.length === 3);
    // A later run announces again.
    mcp.server.notifyToolsListChanged();
    await until(() => published.length === 4);
    expect(published.map((text) => JSON.parse(text))).toEqual([
      { kind: "resourceUpdated", uri: "file:///a" },
      { kind: "toolsListChanged" },
      { kind: "resourceUpdated", uri: "file:///b" },
      { kind: "toolsListChanged" },
    ]);
  });

  it("close() ends the server's listen streams and stops following the bus", async () => {
    const { bus, listening } = jsonBus();
    const a = instance(bus);
    instance(bus);
    expect(listening()).toBe(2);
    const client = await Client.connect(a);
    const seen: string[] = [];
    const sub = client.listen({ toolsListChanged: true }, (n) => seen.push(n.method));
    await sub.acknowledged;
    a.server.close();
    await sub.closed;
    expect(listening()).toBe(1);
    a.server.close();
    expect(listening()).toBe(1);
    expect(seen).toEqual([]);
    await client.close();
  });
});
