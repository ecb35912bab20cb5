import { describe, expect, it } from "vitest";
import { ListCache, MAX_CACHE_TTL_MS } from "../../src/client/cache.js";
import { Client } from "../../src/client/client.js";
import { listAll } from "../../src/client/pages.js";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import type { InputRequest } from "../../src/types/index.js";
import { wireTap } from "../helpers.js";
import { bare, connectTapped, sentFor, stubServer } from "./stubs.js";

const ELICIT: InputRequest = {
  method: "elicitation/create",
  params: { message: "ok?", requestedSchema: { type: "object", properties: {} } },
};

function clock() {
  let now = 1_000;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("ListCache", () => {
  it("is fresh while now < receivedAt + ttlMs", () => {
    const time = clock();
    const cache = new ListCache({ now: time.now });
    cache.set("p", "tools/list", undefined, { tools: [], ttlMs: 100, cacheScope: "public" });
    expect(cache.get("p", "tools/list")).toEqual({ tools: [], ttlMs: 100, cacheScope: "public" });
    expect(cache.scopeOf("p", "tools/list")).toBe("public");
    time.advance(99);
    expect(cache.get("p", "tools/list")).toBeDefined();
    time.advance(1);
    expect(cache.get("p", "tools/list")).toBeUndefined();
  });

  it.each([
    ["missing", {}],
    ["zero", { ttlMs: 0 }],
    ["negative", { ttlMs: -5 }],
  ])("never stores a %s ttlMs, and drops the warm entry it supersedes", (_name, hints) => {
    const cache = new ListCache();
    cache.set("p", "tools/list", undefined, { tools: [], ttlMs: 1000 });
    cache.set("p", "tools/list", undefined, { tools: [], ...hints });
    expect(cache.size).toBe(0);
  });

  it("keys by method, cursor or uri, and partition; serves deep copies", () => {
    const cache = new ListCache();
    const page = { tools: [{ name: "a" }], ttlMs: 1000, cacheScope: "private" };
    cache.set("p", "tools/list", "c1", page);
    expect(cache.get("p", "tools/list")).toBeUndefined();
    expect(cache.get("p", "tools/list", "")).toBeUndefined();
    expect(cache.get("other", "tools/list", "c1")).toBeUndefined();
    cache.set("p", "tools/list", "", { tools: [], ttlMs: 1000 });
    expect(cache.get("p", "tools/list")).toBeUndefined(); // "" is a cursor, not the first page
    const served = cache.get("p", "tools/list", "c1") as { tools: { name: string }[] };
    served.tools[0]!.name = "mutated";
    page.tools[0]!.name = "mutated too";
    expect(cache.get("p", "tools/list", "c1")).toEqual({
      tools: [{ name: "a" }],
      ttlMs: 1000,
      cacheScope: "private",
    });
  });

  it("refuses methods that are not cacheable and input_required results", () => {
    const cache = new ListCache();
    cache.set("p", "tools/call", undefined, { content: [], ttlMs: 1000 });
    cache.set("p", "resources/read", "x://1", {
      resultType: "input_required",
      requestState: "s",
      ttlMs: 1000,
    });
    expect(cache.size).toBe(0);
  });

  it("caps ttlMs at a day and the entry count FIFO", () => {
    const time = clock();
    const cache = new ListCache({ now: time.now, maxEntries: 2 });
    cache.set("p", "resources/read", "a", { contents: [], ttlMs: Number.MAX_SAFE_INTEGER });
    time.advance(MAX_CACHE_TTL_MS);
    expect(cache.get("p", "resources/read", "a")).toBeUndefined();
    cache.set("p", "resources/read", "b", { contents: [], ttlMs: 10 });
    cache.set("p", "resources/read", "c", { contents: [], ttlMs: 10 });
    expect(cache.size).toBe(2);
    expect(cache.get("p", "resources/read", "a")).toBeUndefined();
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("refuses maxEntries %s", (maxEntries) => {
    expect(() => new ListCache({ maxEntries })).toThrow(
      new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`),
    );
  });

  it("bounds the stored JSON text by maxBytes: the oldest goes first, a larger result is not kept", () => {
    const cache = new ListCache({ maxBytes: 1000 });
    const read = (text: string) => ({ contents: [{ uri: "x://", text }], ttlMs: 1000 });
    const size = JSON.stringify(read("")).length;
    cache.set("p", "resources/read", "a", read("a".repeat(400 - size)));
    cache.set("p", "resources/read", "b", read("b".repeat(400 - size)));
    expect(cache.size).toBe(2);
    cache.set("p", "resources/read", "c", read("c".repeat(400 - size)));
    expect(cache.get("p", "resources/read", "a")).toBeUndefined();
    expect(cache.size).toBe(2);
    // Dropping entries gives their room back: after "b" goes, a 600-byte entry fits beside "c".
    cache.delete("p", "resources/read", "b");
    cache.set("p", "resources/read", "d", read("d".repeat(600 - size)));
    expect(cache.size).toBe(2);
    cache.set("p", "resources/read", "c", read("c".repeat(1001 - size)));
    expect(cache.get("p", "resources/read", "c")).toBeUndefined();
    expect(cache.get("p", "resources/read", "d")).toBeDefined();
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("refuses maxBytes %s", (maxBytes) => {
    expect(() => new ListCache({ maxBytes })).toThrow(
      new RangeError(`maxBytes must be a positive integer, got ${maxBytes}`),
    );
  });

  it("evicts on list-changed and updated notifications", () => {
    const cache = new ListCache();
    const fill = () => {
      for (const method of ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]) {
        cache.set("p", method, undefined, { ttlMs: 1000 });
      }
      cache.set("p", "resources/read", "x://1", { contents: [], ttlMs: 1000 });
      cache.set("p", "resources/read", "x://2", { contents: [], ttlMs: 1000 });
    };
    fill();
    cache.evictFor({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(cache.get("p", "tools/list")).toBeUndefined();
    expect(cache.size).toBe(5);
    cache.evictFor({ jsonrpc: "2.0", method: "notifications/resources/list_changed" });
    expect(cache.size).toBe(3);
    cache.evictFor({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "x://1" } });
    expect(cache.get("p", "resources/read", "x://1")).toBeUndefined();
    expect(cache.get("p", "resources/read", "x://2")).toBeDefined();
    cache.evictFor({ jsonrpc: "2.0", method: "notifications/prompts/list_changed" });
    expect(cache.get("p", "prompts/list")).toBeUndefined();
    // An update without a string uri names nothing: nothing goes.
    cache.evictFor({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: 2 } });
    expect(cache.size).toBe(1);
  });

  it("an update naming a URI evicts the reads of its sub-resources too: it may stand for them", () => {
    // A server may tell a change under a subscribed URI as that URI's (ours does, for a reader
    // that has fallen behind): the sub-resource that changed is not named.
    const cache = new ListCache();
    for (const uri of ["file:///logs", "file:///logs/today.txt", "file:///logsheet", "file:///"]) {
      cache.set("p", "resources/read", uri, { contents: [], ttlMs: 1000 });
    }
    cache.evictFor({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "file:///logs" },
    });
    expect(cache.get("p", "resources/read", "file:///logs")).toBeUndefined();
    expect(cache.get("p", "resources/read", "file:///logs/today.txt")).toBeUndefined();
    expect(cache.get("p", "resources/read", "file:///logsheet")).toBeDefined();
    // A change below a URI says nothing of the URI above it.
    expect(cache.get("p", "resources/read", "file:///")).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it("after a listen stream drops, evicts everything its filter was keeping fresh, and only that", () => {
    const cache = new ListCache();
    for (const method of ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]) {
      cache.set("p", method, undefined, { ttlMs: 1000 });
    }
    cache.set("p", "resources/read", "x://1", { contents: [], ttlMs: 1000 });
    cache.set("p", "resources/read", "x://2", { contents: [], ttlMs: 1000 });
    cache.evictSubscribed({
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ["x://2"],
    });
    expect(cache.get("p", "tools/list")).toBeDefined();
    expect(cache.get("p", "resources/read", "x://1")).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it("after a drop, evicts the reads of a subscribed URI's sub-resources too (their updates were lost)", () => {
    const cache = new ListCache();
    for (const uri of [
      "file:///logs",
      "file:///logs/today.txt",
      "file:///logs/2026/jan.txt",
      "file:///logsheet",
    ]) {
      cache.set("p", "resources/read", uri, { contents: [], ttlMs: 1000 });
    }
    cache.evictSubscribed({ resourceSubscriptions: ["file:///logs"] });
    expect(cache.get("p", "resources/read", "file:///logs")).toBeUndefined();
    expect(cache.get("p", "resources/read", "file:///logs/today.txt")).toBeUndefined();
    expect(cache.get("p", "resources/read", "file:///logs/2026/jan.txt")).toBeUndefined();
    // Not under the subscribed URI: a name that merely starts the same way stays.
    expect(cache.get("p", "resources/read", "file:///logsheet")).toBeDefined();
    expect(cache.size).toBe(1);
  });
});

/** Our Server with a tools list and a resource cached for a minute; the resource asks when told to. */
function cachingServer(options: { ask?: () => boolean } = {}) {
  return new Server("cached", {
    logger: silentLogger,
    cacheHints: {
      "tools/list": { ttlMs: 60_000, cacheScope: "public" },
      "resources/read": { ttlMs: 60_000, cacheScope: "private" },
    },
    onListTools: () => ({ tools: [] }),
    onReadResource: (_ctx, params) => {
      if (options.ask?.() && !params.inputResponses) {
        return { resultType: "input_required", inputRequests: { ok: ELICIT }, requestState: "s" };
      }
      return { contents: [{ uri: params.uri, text: "body" }] };
    },
  });
}

const ACCEPT = { elicitation: () => ({ action: "accept" as const, content: {} }) };

describe("Client cache (python tests/client/test_client_caching.py)", () => {
  it("serves a fresh list from the cache; refresh refetches; bypass neither reads nor writes", async () => {
    const { client, tap } = await connectTapped(cachingServer());
    await client.listTools();
    await client.listTools();
    expect(sentFor(tap, "tools/list")).toHaveLength(1);
    await client.listTools(undefined, { cacheMode: "refresh" });
    expect(sentFor(tap, "tools/list")).toHaveLength(2);
    await client.listTools(undefined, { cacheMode: "bypass" });
    await client.listTools();
    expect(sentFor(tap, "tools/list")).toHaveLength(3);
    await client.listTools("next-page");
    expect(sentFor(tap, "tools/list")).toHaveLength(4);
  });

  it("an empty-string cursor is a page of its own, not the first page", async () => {
    // Each page names the cursor it answered, so a page served for the other shows.
    const server = new Server("pages", {
      logger: silentLogger,
      cacheHints: { "tools/list": { ttlMs: 60_000, cacheScope: "private" } },
      onListTools: (_ctx, params) => ({
        tools: [{ name: `page-${JSON.stringify(params.cursor ?? null)}`, inputSchema: { type: "object" } }],
      }),
    });
    const { client, tap } = await connectTapped(server);
    const names = async (cursor?: string) => (await client.listTools(cursor)).tools.map((tool) => tool.name);
    expect(await names()).toEqual(["page-null"]);
    expect(await names("")).toEqual(['page-""']);
    expect(await names("")).toEqual(['page-""']);
    expect(await names()).toEqual(["page-null"]);
    expect(sentFor(tap, "tools/list").map((sent) => bare(sent.params))).toEqual([{}, { cursor: "" }]);
  });

  it("with the server's default hints (ttlMs 0) nothing is cached", async () => {
    const server = new Server("plain", { logger: silentLogger, onListTools: () => ({ tools: [] }) });
    const { client, tap } = await connectTapped(server);
    await client.listTools();
    await client.listTools();
    expect(sentFor(tap, "tools/list")).toHaveLength(2);
  });

  it("cache: false turns it off", async () => {
    const { client, tap } = await connectTapped(cachingServer(), { cache: false });
    await client.listTools();
    await client.listTools();
    expect(sentFor(tap, "tools/list")).toHaveLength(2);
    expect(client.cache).toBeUndefined();
  });

  it.each([
    ["requestState", { requestState: "persisted" }],
    ["inputResponses", { inputResponses: { ok: { action: "accept" as const, content: {} } } }],
  ])("a read seeded with %s skips the cache and ignores cacheMode", async (_name, seed) => {
    const { client, tap } = await connectTapped(cachingServer(), ACCEPT);
    await client.readResource("x://1");
    expect(sentFor(tap, "resources/read")).toHaveLength(1);
    const seeded = await client.readResource("x://1", { ...seed, cacheMode: "use" });
    expect(seeded.contents).toEqual([{ uri: "x://1", text: "body" }]);
    expect(sentFor(tap, "resources/read")).toHaveLength(2);
    // The seeded result was not written either: drop the warm entry and a plain read goes out.
    client.cache?.clear();
    await client.readResource("x://2", seed);
    await client.readResource("x://2");
    expect(sentFor(tap, "resources/read")).toHaveLength(4);
  });

  it("a terminal read reached through driver rounds is never cached", async () => {
    const { client, tap } = await connectTapped(cachingServer({ ask: () => true }), ACCEPT);
    await client.readResource("x://1");
    expect(sentFor(tap, "resources/read")).toHaveLength(2);
    expect(client.cache?.size).toBe(0);
    await client.readResource("x://1");
    expect(sentFor(tap, "resources/read")).toHaveLength(4);
  });

  it("a refresh that resolves to input_required purges the warm entry", async () => {
    let ask = false;
    const { client, tap } = await connectTapped(cachingServer({ ask: () => ask }), ACCEPT);
    await client.readResource("x://1");
    await client.readResource("x://1");
    expect(sentFor(tap, "resources/read")).toHaveLength(1);
    ask = true;
    await client.readResource("x://1", { cacheMode: "refresh" });
    expect(client.cache?.size).toBe(0);
    ask = false;
    await client.readResource("x://1");
    expect(sentFor(tap, "resources/read")).toHaveLength(4);
  });

  it("two clients sharing a ListCache never see each other's entries", async () => {
    const cache = new ListCache();
    const server = cachingServer();
    const tapA = wireTap();
    const tapB = wireTap();
    const a = await Client.connect(new MemoryTransport(server, { onWire: tapA.onWire }), { cache });
    const b = await Client.connect(new MemoryTransport(server, { onWire: tapB.onWire }), { cache });
    await a.listTools();
    await b.listTools();
    expect(sentFor(tapA, "tools/list")).toHaveLength(1);
    expect(sentFor(tapB, "tools/list")).toHaveLength(1);
    expect(cache.size).toBe(2);
  });

  it("a list-changed notification outside any request evicts the entry", async () => {
    const { client, tap } = await connectTapped(cachingServer());
    await client.listTools();
    client.session.connection.onNotification?.({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
    await client.listTools();
    expect(sentFor(tap, "tools/list")).toHaveLength(2);
  });

  it.each([
    ["tools/list", "notifications/tools/list_changed", undefined],
    ["resources/read", "notifications/resources/updated", { uri: "x://1" }],
  ])("a %s answer sent before a %s that arrived first is not stored", async (method, notice, params) => {
    // Over HTTP the notification comes on the listen stream, the answer on its POST: the notice can
    // overtake an answer the server computed before the change.
    let client: Client | undefined;
    const notify = () =>
      client?.session.connection.onNotification?.({
        jsonrpc: "2.0",
        method: notice,
        ...(params ? { params } : {}),
      });
    const server = stubServer((m, p) => {
      if (m !== method) return undefined;
      notify();
      const hints = { resultType: "complete", ttlMs: 60_000, cacheScope: "private" };
      return m === "tools/list"
        ? { ...hints, tools: [] }
        : { ...hints, contents: [{ uri: p.uri, text: "old" }] };
    });
    const connected = await connectTapped(server);
    client = connected.client;
    const read = () =>
      method === "tools/list" ? connected.client.listTools() : connected.client.readResource("x://1");
    await read();
    expect(connected.client.cache?.size).toBe(0);
    await read();
    expect(sentFor(connected.tap, method)).toHaveLength(2);
  });

  it("a first page fetched anew drops the cached later pages of the older listing", async () => {
    let version = 1;
    const server = new Server("pages", {
      logger: silentLogger,
      cacheHints: { "tools/list": { ttlMs: 60_000, cacheScope: "private" } },
      onListTools: (_ctx, params) => ({
        tools: [{ name: `v${version}-${params.cursor ?? "first"}`, inputSchema: { type: "object" } }],
        ...(params.cursor === undefined ? { nextCursor: "2" } : {}),
      }),
    });
    const { client, tap } = await connectTapped(server);
    const names = async () => (await listAll(client, "tools")).map((tool) => tool.name);
    expect(await names()).toEqual(["v1-first", "v1-2"]);
    version = 2;
    await client.listTools(undefined, { cacheMode: "refresh" });
    expect(await names()).toEqual(["v2-first", "v2-2"]);
    expect(sentFor(tap, "tools/list").map((sent) => bare(sent.params))).toEqual([
      {},
      { cursor: "2" },
      {},
      { cursor: "2" },
    ]);
    expect(client.cache?.size).toBe(2);
  });

  it("a negative ttlMs from the server counts as 0: the result is used, never cached", async () => {
    const server = stubServer((method) =>
      method === "tools/list"
        ? { resultType: "complete", tools: [], ttlMs: -5, cacheScope: "public" }
        : undefined,
    );
    const { client, tap } = await connectTapped(server);
    expect(await client.listTools()).toEqual({
      resultType: "complete",
      tools: [],
      ttlMs: 0,
      cacheScope: "public",
    });
    await client.listTools();
    expect(sentFor(tap, "tools/list")).toHaveLength(2);
    expect(client.cache?.size).toBe(0);
  });

  it("a ttlMs past 2^53 (a 64-bit 'forever') is still an integer >= 0: the result is used and cached", async () => {
    // 2^63 - 1 (Long.MAX_VALUE, math.MaxInt64) parses to 2^63: an integer, though not a safe one.
    const forever = 2 ** 63;
    const server = stubServer((method) =>
      method === "tools/list"
        ? { resultType: "complete", tools: [], ttlMs: forever, cacheScope: "public" }
        : undefined,
    );
    const { client, tap } = await connectTapped(server);
    expect(await client.listTools()).toEqual({
      resultType: "complete",
      tools: [],
      ttlMs: forever,
      cacheScope: "public",
    });
    await client.listTools();
    expect(sentFor(tap, "tools/list")).toHaveLength(1);
  });

  it("close() drops the client's entries: a closed client answers nothing from the cache", async () => {
    const cache = new ListCache();
    const server = cachingServer();
    const other = await connectTapped(server, { cache });
    await other.client.listTools();
    const { client } = await connectTapped(server, { cache });
    await client.listTools();
    await client.readResource("x://1");
    expect(cache.size).toBe(3);
    await client.close();
    expect(cache.size).toBe(1);
    const uncached = await connectTapped(server, { cache: false });
    await uncached.client.close();
    const refusal = await uncached.client.listTools().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(Error);
    await expect(client.listTools()).rejects.toEqual(refusal);
    // Another client of the same ListCache keeps its entries.
    await other.client.listTools();
    expect(sentFor(other.tap, "tools/list")).toHaveLength(1);
  });

  it("a stub without hints (legacy-shaped results) is never cached", async () => {
    const server = stubServer((method) => (method === "tools/list" ? { tools: [] } : undefined));
    const { client } = await connectTapped(server);
    await client.listTools();
    await client.listTools();
    expect(server.seen.filter((s) => s.method === "tools/list")).toHaveLength(2);
  });
});
