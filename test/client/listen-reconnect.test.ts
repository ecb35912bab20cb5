/**
 * A listen stream that drops without the server's response is opened again (spec §3.3: the
 * client MAY), over real loopback HTTP: the new acknowledgement reaches `onReconnect`, cached lists
 * the stream kept fresh are dropped, and a graceful close, `close()` or an exhausted budget stop it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { HttpTransportError } from "../../src/transports/http/errors.js";
import { serveHttp } from "../../src/transports/http/node.js";
import type { JSONRPCNotification, ServerCapabilities, SubscriptionFilter } from "../../src/types/index.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error("condition not reached");
}

const FAST = { initialDelayMs: 10, maxDelayMs: 40, maxAttempts: 3 };

async function setUp() {
  // tools/list is cacheable for a minute, so only an eviction makes a later listTools ask again.
  const mcp = new MCPServer("live", {
    logger: silentLogger,
    listChanged: true,
    cacheHints: { "tools/list": { ttlMs: 60_000, cacheScope: "private" } },
  });
  mcp.tool("first", {}, () => "one");
  const http = await serveHttp(mcp, { port: 0 });
  let listens = 0;
  http.server.on("request", (req) => {
    if (req.headers["mcp-method"] === "subscriptions/listen") listens++;
  });
  cleanups.push(() => http.close());
  const client = await Client.connect(http.url);
  cleanups.push(() => client.close());
  return { mcp, http, client, listens: () => listens };
}

describe("client.listen after a dropped stream", () => {
  it("listens again, reports the new acknowledgement and forgets the cached lists", async () => {
    const { mcp, http, client, listens } = await setUp();
    const seen: JSONRPCNotification[] = [];
    const reacknowledged: SubscriptionFilter[] = [];
    const sub = client.listen({ toolsListChanged: true }, (n) => seen.push(n), {
      reconnect: FAST,
      onReconnect: (filter) => reacknowledged.push(filter),
    });
    await sub.acknowledged;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["first"]);

    http.server.closeAllConnections(); // the stream breaks off: no response, no graceful close
    mcp.tool("added-while-down", {}, () => "two");
    await until(() => reacknowledged.length === 1);
    expect(reacknowledged).toEqual([{ toolsListChanged: true }]);
    expect(listens()).toBe(2);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["first", "added-while-down"]);

    mcp.tool("added-after", {}, () => "three");
    await until(() => seen.length > 0);
    expect(seen.at(-1)?.method).toBe("notifications/tools/list_changed");
    sub.close();
    await sub.closed;
  });

  it("does not listen again after the server's graceful close", async () => {
    const { mcp, client, listens } = await setUp();
    const sub = client.listen({ toolsListChanged: true }, () => {}, { reconnect: FAST });
    await sub.acknowledged;
    mcp.server.closeSubscriptions();
    await sub.closed;
    await new Promise((r) => setTimeout(r, 50));
    expect(listens()).toBe(1);
  });

  it("stops waiting when closed during the back-off", async () => {
    const { http, client, listens } = await setUp();
    const sub = client.listen({ toolsListChanged: true }, () => {}, {
      reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000, maxAttempts: 5 },
    });
    await sub.acknowledged;
    http.server.closeAllConnections();
    await new Promise((r) => setTimeout(r, 50));
    sub.close();
    await expect(sub.closed).resolves.toBeUndefined();
    expect(listens()).toBe(1);
  });

  it("fails closed with the drop when reconnect is false", async () => {
    const { http, client, listens } = await setUp();
    const sub = client.listen({ toolsListChanged: true }, () => {}, { reconnect: false });
    await sub.acknowledged;
    http.server.closeAllConnections();
    await expect(sub.closed).rejects.toBeInstanceOf(HttpTransportError);
    expect(listens()).toBe(1);
  });

  it("gives up after maxAttempts drops in a row, rejecting closed with the last one", async () => {
    const { http, client, listens } = await setUp();
    const sub = client.listen({ toolsListChanged: true }, () => {}, { reconnect: FAST });
    await sub.acknowledged;
    // From now on every listen POST reaches the server and has its connection cut at once.
    http.server.on("request", (req) => {
      if (req.headers["mcp-method"] === "subscriptions/listen") req.socket.destroy();
    });
    http.server.closeAllConnections();
    const error = await sub.closed.then(
      () => "resolved",
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HttpTransportError);
    expect(listens()).toBe(1 + FAST.maxAttempts);
  });

  it.each([
    [503, 1 + FAST.maxAttempts],
    [502, 1 + FAST.maxAttempts],
    [404, 2],
    [400, 2],
    [500, 2],
  ])(
    "after a drop, a listen answered HTTP %i is tried again only if the status is transient",
    async (status, expected) => {
      const { http, client, listens } = await setUp();
      const sub = client.listen({ toolsListChanged: true }, () => {}, { reconnect: FAST });
      await sub.acknowledged;
      http.server.prependListener("request", (req, res) => {
        if (req.headers["mcp-method"] !== "subscriptions/listen") return;
        res.writeHead(status, { "content-type": "text/plain" }).end("not now");
      });
      http.server.closeAllConnections();
      const error = await sub.closed.then(
        () => "resolved",
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HttpTransportError);
      expect((error as { status?: number }).status).toBe(status);
      expect(listens()).toBe(expected);
    },
  );

  it("counts only drops in a row: an acknowledged stream starts the count again", async () => {
    const { http, client, listens } = await setUp();
    let reconnects = 0;
    const sub = client.listen({ toolsListChanged: true }, () => {}, {
      reconnect: { ...FAST, maxAttempts: 1 },
      onReconnect: () => reconnects++,
    });
    await sub.acknowledged;
    for (let drop = 1; drop <= 3; drop++) {
      http.server.closeAllConnections();
      await until(() => reconnects === drop);
    }
    expect(listens()).toBe(4);
    sub.close();
    await sub.closed;
  });
});

describe("an async onReconnect that rejects", () => {
  it("is reported as a warning, not an unhandled rejection, and the stream stays open", async () => {
    const mcp = new MCPServer("live", { logger: silentLogger, listChanged: true });
    mcp.tool("first", {}, () => "one");
    const http = await serveHttp(mcp, { port: 0 });
    cleanups.push(() => http.close());
    const warnings: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    cleanups.push(async () => void process.off("unhandledRejection", onUnhandled));
    const client = await Client.connect(http.url, { onWarning: (m) => warnings.push(m) });
    cleanups.push(() => client.close());
    let reconnects = 0;
    const heard: string[] = [];
    const sub = client.listen({ toolsListChanged: true }, (n) => heard.push(n.method), {
      reconnect: FAST,
      onReconnect: async () => {
        reconnects++;
        throw new Error("re-read failed");
      },
    });
    await sub.acknowledged;
    http.server.closeAllConnections();
    await until(() => reconnects === 1);
    mcp.tool("second", {}, () => "two");
    await until(() => heard.length === 1);
    expect(unhandled).toEqual([]);
    expect(warnings).toEqual([
      "A listener of notifications/subscriptions/acknowledged failed: re-read failed",
    ]);
    sub.close();
    await sub.closed;
  });
});

describe("a resource subscription re-opened after a drop", () => {
  it("forgets the cached reads of the subscribed URI's sub-resources, whose updates were lost", async () => {
    const mcp = new MCPServer("logs", {
      logger: silentLogger,
      listChanged: true,
      cacheHints: { "resources/read": { ttlMs: 60_000, cacheScope: "private" } },
    });
    let version = 1;
    mcp.resource("file:///logs/{day}", {}, ({ day }) => `${day} v${version}`);
    const http = await serveHttp(mcp, { port: 0 });
    cleanups.push(() => http.close());
    const client = await Client.connect(http.url);
    cleanups.push(() => client.close());
    let reconnects = 0;
    const sub = client.listen({ resourceSubscriptions: ["file:///logs"] }, () => {}, {
      reconnect: FAST,
      onReconnect: () => reconnects++,
    });
    await sub.acknowledged;
    const read = async () => (await client.readResource("file:///logs/today")).contents[0];
    expect(await read()).toMatchObject({ text: "today v1" });

    http.server.closeAllConnections();
    version = 2; // changed while the stream was down: its notifications/resources/updated is lost
    await until(() => reconnects === 1);
    expect(await read()).toMatchObject({ text: "today v2" });
    sub.close();
    await sub.closed;
  });
});

describe("a stream re-opened on a server that now agrees to less", () => {
  it("forgets what the stream that dropped was keeping fresh, not only what the new one covers", async () => {
    const logs = (version: number, capabilities?: ServerCapabilities) => {
      const mcp = new MCPServer("logs", {
        logger: silentLogger,
        listChanged: true,
        cacheHints: { "resources/read": { ttlMs: 60_000, cacheScope: "private" } },
        ...(capabilities ? { capabilities } : {}),
      });
      mcp.tool("tail", {}, () => "…");
      mcp.resource("file:///logs/{day}", {}, ({ day }) => `${day} v${version}`);
      return mcp;
    };
    const before = await serveHttp(logs(1), { port: 0 });
    const client = await Client.connect(before.url);
    cleanups.push(() => client.close());
    const reacknowledged: SubscriptionFilter[] = [];
    const sub = client.listen({ toolsListChanged: true, resourceSubscriptions: ["file:///logs"] }, () => {}, {
      reconnect: { ...FAST, maxAttempts: 10 },
      onReconnect: (filter) => reacknowledged.push(filter),
    });
    cleanups.push(async () => sub.close());
    expect(await sub.acknowledged).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ["file:///logs"],
    });
    const read = async () => (await client.readResource("file:///logs/today")).contents[0];
    expect(await read()).toMatchObject({ text: "today v1" });

    // Redeployed on the same address: the content changed, and resource subscriptions are gone.
    before.server.closeAllConnections();
    await before.close();
    const after = await serveHttp(logs(2, { resources: { subscribe: false, listChanged: true } }), {
      port: Number(before.url.port),
    });
    cleanups.push(() => after.close());
    await until(() => reacknowledged.length === 1);
    expect(reacknowledged).toEqual([{ toolsListChanged: true }]);
    expect(await read()).toMatchObject({ text: "today v2" });
  });
});

describe("client.listen's reconnect options", () => {
  it("an option given as undefined takes its default: five attempts, not endless ones", async () => {
    const { http, client, listens } = await setUp();
    const sub = client.listen({ toolsListChanged: true }, () => {}, {
      reconnect: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: undefined },
    });
    cleanups.push(async () => sub.close());
    await sub.acknowledged;
    http.server.on("request", (req) => {
      if (req.headers["mcp-method"] === "subscriptions/listen") req.socket.destroy();
    });
    http.server.closeAllConnections();
    const outcome = await Promise.race([
      sub.closed.then(
        () => "resolved",
        (e: unknown) => e,
      ),
      new Promise((r) => setTimeout(() => r("still listening"), 2_000)),
    ]);
    expect(outcome).toBeInstanceOf(HttpTransportError);
    expect(listens()).toBe(1 + 5);
  });

  it("a delay given as undefined takes its default (1 s) rather than listening again at once", async () => {
    const { http, client, listens } = await setUp();
    const sub = client.listen({ toolsListChanged: true }, () => {}, {
      reconnect: { initialDelayMs: undefined, maxAttempts: 3 },
    });
    cleanups.push(async () => sub.close());
    await sub.acknowledged;
    http.server.closeAllConnections();
    await new Promise((r) => setTimeout(r, 300));
    expect(listens()).toBe(1);
  });

  it.each([
    ["maxAttempts", Number.NaN, "reconnect.maxAttempts must be a non-negative integer, got NaN"],
    ["maxAttempts", 1.5, "reconnect.maxAttempts must be a non-negative integer, got 1.5"],
    ["initialDelayMs", Number.NaN, "reconnect.initialDelayMs must be a non-negative number, got NaN"],
    ["maxDelayMs", -1, "reconnect.maxDelayMs must be a non-negative number, got -1"],
    [
      "maxDelayMs",
      Number.POSITIVE_INFINITY,
      "reconnect.maxDelayMs must be a non-negative number, got Infinity",
    ],
  ])("refuses %s: %s before listening", async (key, value, message) => {
    const reconnect = { [key]: value };
    const { client, listens } = await setUp();
    expect(() => client.listen({ toolsListChanged: true }, () => {}, { reconnect })).toThrow(
      new RangeError(message),
    );
    expect(listens()).toBe(0);
  });

  it("accepts maxAttempts: Infinity, for a host that listens for as long as it runs", async () => {
    const { client } = await setUp();
    const sub = client.listen({ toolsListChanged: true }, () => {}, {
      reconnect: { maxAttempts: Number.POSITIVE_INFINITY },
    });
    await sub.acknowledged;
    sub.close();
    await sub.closed;
  });
});
