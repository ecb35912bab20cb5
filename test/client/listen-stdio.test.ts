// Spec §1.7/§3.3/§7 (client): on stdio every listen stream shares one pipe, and nothing but
// `_meta["io.modelcontextprotocol/subscriptionId"]` says which stream a notification belongs to
// (the stdio transport tags no related request id). The client must demultiplex by it. Two
// concurrent Client.listen subscriptions against a real child process: each sees only its own.
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import type { Transport } from "../../src/shared/transport.js";
import type { JSONRPCMessage, JSONRPCNotification } from "../../src/types/index.js";
import { killSpawned, REPO_ROOT, until } from "../transports/stdio/helpers.js";
import { DISCOVERED } from "./stubs.js";

const LISTEN_SERVER = fileURLToPath(new URL("../fixtures/stdio/listen-server.ts", import.meta.url));
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  killSpawned();
});

async function connect(): Promise<Client> {
  const client = await Client.connect({
    command: process.execPath,
    args: ["--import", "tsx", LISTEN_SERVER],
    cwd: REPO_ROOT,
  });
  clients.push(client);
  return client;
}

/** Fails fast, with a name, instead of hanging until the test timeout (a misrouted ack never lands). */
function within<T>(promise: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const idOf = (notification: JSONRPCNotification | undefined) =>
  (notification?.params?._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID];

/** The wire shape of a listen notification on stream `id` (the client hands it over untouched). */
function onStream(id: unknown, method: string, extra: Record<string, unknown> = {}) {
  return { jsonrpc: "2.0", method, params: { _meta: { [SUBSCRIPTION_ID]: id }, ...extra } };
}

describe("Client.listen over stdio with two concurrent subscriptions", () => {
  it("delivers each stream's notifications to its own listener only, by subscriptionId", async () => {
    const client = await connect();
    expect(client.protocolVersion).toBe("2026-07-28");
    const seenA: JSONRPCNotification[] = [];
    const seenB: JSONRPCNotification[] = [];
    // Overlapping filters: a tools change goes out twice on the same pipe, once per stream.
    const a = client.listen({ toolsListChanged: true, promptsListChanged: true }, (n) => seenA.push(n));
    const b = client.listen({ toolsListChanged: true, resourceSubscriptions: ["file:///b"] }, (n) =>
      seenB.push(n),
    );
    expect(await within(a.acknowledged, "A's acknowledgement")).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
    });
    expect(await within(b.acknowledged, "B's acknowledgement")).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ["file:///b"],
    });

    // The server writes each change before the tool's answer, so it has arrived once callTool resolves.
    await client.callTool("change-tools");
    await until(() => seenA.length + seenB.length >= 2, "the tools change on both streams");
    expect([seenA.length, seenB.length]).toEqual([1, 1]);
    const idA = idOf(seenA[0]);
    const idB = idOf(seenB[0]);
    expect(idA).toBeDefined();
    expect(idB).toBeDefined();
    expect(idA).not.toEqual(idB);

    await client.callTool("change-prompts"); // only A asked for prompts
    await client.callTool("update-resource", { uri: "file:///b" }); // only B follows file:///b
    await client.callTool("update-resource", { uri: "file:///elsewhere" }); // nobody follows it
    await until(() => seenA.length + seenB.length >= 4, "the prompts change and the resource update");
    await client.listTools(); // one more round trip: anything misrouted would have arrived by now

    expect(seenA).toEqual([
      onStream(idA, "notifications/tools/list_changed"),
      onStream(idA, "notifications/prompts/list_changed"),
    ]);
    expect(seenB).toEqual([
      onStream(idB, "notifications/tools/list_changed"),
      onStream(idB, "notifications/resources/updated", { uri: "file:///b" }),
    ]);

    // Closing A (notifications/cancelled for its id) leaves B streaming, and A hears nothing more.
    a.close();
    await within(a.closed, "A to close");
    await client.callTool("change-tools");
    await client.callTool("change-prompts");
    await until(() => seenB.length === 3, "the second tools change on B");
    await client.listTools();
    expect(seenA).toHaveLength(2);
    expect(seenB[2]).toEqual(onStream(idB, "notifications/tools/list_changed"));
    expect(seenB).toHaveLength(3);

    b.close();
    await within(b.closed, "B to close");
  });

  it("keeps two streams with identical filters apart", async () => {
    const client = await connect();
    const seen: [string, JSONRPCNotification][] = [];
    const first = client.listen({ toolsListChanged: true }, (n) => seen.push(["first", n]));
    const second = client.listen({ toolsListChanged: true }, (n) => seen.push(["second", n]));
    await within(Promise.all([first.acknowledged, second.acknowledged]), "both acknowledgements");

    await client.callTool("change-tools");
    await client.callTool("change-tools");
    await until(() => seen.length === 4, "two changes on each stream");
    await client.listTools();
    expect(seen).toHaveLength(4);
    const byStream = (name: string) => seen.filter(([who]) => who === name).map(([, n]) => idOf(n));
    const firstIds = byStream("first");
    const secondIds = byStream("second");
    expect(firstIds).toHaveLength(2);
    expect(secondIds).toHaveLength(2);
    // Each listener sees its own stream's id, twice; the two ids differ.
    expect(new Set(firstIds).size).toBe(1);
    expect(new Set(secondIds).size).toBe(1);
    expect(firstIds[0]).not.toEqual(secondIds[0]);

    first.close();
    second.close();
    await within(Promise.all([first.closed, second.closed]), "both streams to close");
  });
});

/** A stdio-like 2026 server (no related request ids) whose listen streams the test scripts. */
class ScriptedServer implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  readonly listens: number[] = [];
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    const { id, method, params } = message as {
      id: number;
      method?: string;
      params?: { notifications?: unknown };
    };
    if (method === "server/discover") {
      queueMicrotask(() => this.onmessage?.({ jsonrpc: "2.0", id, result: DISCOVERED } as never));
    } else if (method === "subscriptions/listen") {
      this.listens.push(id);
      queueMicrotask(() =>
        this.push(id, "notifications/subscriptions/acknowledged", { notifications: params?.notifications }),
      );
    }
  }
  push(id: number, method: string, params: Record<string, unknown> = {}): void {
    this.onmessage?.(onStream(id, method, params) as JSONRPCNotification);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

async function scripted() {
  const server = new ScriptedServer();
  const client = await Client.connect(server);
  clients.push(client);
  return { server, client };
}

describe("Client.listen against a scripted stdio server", () => {
  it("ends the subscription, without listening again, when the server cancels the listen request", async () => {
    const { server, client } = await scripted();
    const sub = client.listen({ toolsListChanged: true }, () => {}, { reconnect: { initialDelayMs: 0 } });
    await sub.acknowledged;
    server.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: server.listens[0], reason: "server shutting down" },
    });
    await expect(within(sub.closed, "the end of the subscription", 1_000)).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.listens).toHaveLength(1);
  });

  it("counts only a stream's first acknowledgement: a repeat neither reconnects nor narrows the filter", async () => {
    const { server, client } = await scripted();
    const seen: string[] = [];
    const reconnects: unknown[] = [];
    const sub = client.listen({ toolsListChanged: true }, (n) => seen.push(n.method), {
      onReconnect: (filter) => reconnects.push(filter),
    });
    await sub.acknowledged;
    const id = server.listens[0] as number;
    server.push(id, "notifications/subscriptions/acknowledged", { notifications: {} });
    server.push(id, "notifications/tools/list_changed");
    expect({ reconnects, seen }).toEqual({ reconnects: [], seen: ["notifications/tools/list_changed"] });
    sub.close();
  });
});
