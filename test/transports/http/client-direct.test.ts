/**
 * On Node the client posts through `node:http` when no `fetch` is given. Each case runs twice,
 * once that way and once through fetch (a `fetch` option calling the global one), against a raw
 * TCP server: the request bytes on the wire and everything the transport reports must be equal.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { directPostAvailable } from "../../../src/transports/http/node-post.js";
import type { JSONRPCMessage } from "../../../src/types/index.js";
import { meta } from "../../helpers.js";
import { both, call, jsonResult, type Options, rawServer, response } from "./raw-server.js";

describe("the direct path is what the transport takes by default on Node", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("is available with Node's own fetch, and not once fetch is replaced", async () => {
    expect(directPostAvailable()).toBe(true);
    const calls: string[] = [];
    vi.stubGlobal("fetch", async (_url: URL, init: RequestInit) => {
      calls.push(String(init.method));
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }), {
        headers: { "content-type": "application/json" },
      });
    });
    expect(directPostAvailable()).toBe(false);
    const transport = new StreamableHttpClientTransport("http://127.0.0.1:9/mcp");
    await transport.send(call() as JSONRPCMessage);
    expect(calls).toEqual(["POST"]);
  });

  it("is not taken once undici's global dispatcher is one with options (a proxy, a CA)", () => {
    const key = Symbol.for("undici.globalDispatcher.1");
    const global = globalThis as Record<symbol, unknown>;
    const before = global[key];
    const options = Symbol("options");
    try {
      global[key] = new (class ProxyAgent {})();
      expect(directPostAvailable()).toBe(false);
      global[key] = Object.assign(new (class Agent {})(), { [options]: { connect: { ca: "pem" } } });
      expect(directPostAvailable()).toBe(false);
      global[key] = Object.assign(new (class Agent {})(), { [options]: { connect: undefined } });
      expect(directPostAvailable()).toBe(true);
    } finally {
      global[key] = before;
    }
  });
});

describe("requests on the wire", () => {
  const cases: [string, Record<string, unknown>, Options][] = [
    ["a tools/call", call("echo", { a: 1 }), {}],
    ["a name that needs base64", call("café ☕"), {}],
    [
      "extra headers as a record, in mixed case",
      call(),
      { headers: { "X-Tenant": "acme", accept: "text/html" } },
    ],
    ["extra headers as Headers", call(), { headers: new Headers({ "X-Tenant": "acme", "x-b": "1" }) }],
    [
      "extra headers as pairs, repeated",
      call(),
      {
        headers: [
          ["X-A", "1"],
          ["x-a", "2"],
          ["Cookie", "a=1"],
          ["cookie", "b=2"],
        ],
      },
    ],
    ["a bearer token", call(), { authProvider: () => "tok-1" }],
    [
      "a user agent and encodings of its own",
      call(),
      { headers: { "User-Agent": "mine/1", "Accept-Encoding": "identity" } },
    ],
    ["a header fetch treats specially", call(), { headers: { range: "bytes=0-" } }],
    ["a header value with edge whitespace", call(), { headers: { "x-pad": " padded " } }],
    [
      "Mcp-Param headers",
      call("route", { region: "eu" }),
      { paramHeaders: () => [{ name: "Region", path: ["region"], type: "string" }] },
    ],
  ];

  it.each(cases)("%s", async (_name, message, options) => {
    const [direct, viaFetch] = await both(jsonResult, message, options);
    expect(direct.requests).toEqual(viaFetch.requests);
    expect(direct.requests).toHaveLength(1);
    expect(direct).toEqual(viaFetch);
  });

  it("are the same for a notification", async () => {
    const [direct, viaFetch] = await both(() => response("202 Accepted", []), {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    expect(direct).toEqual(viaFetch);
    expect(direct.outcome).toBe("sent");
  });
});

describe("failures and cancellation", () => {
  it("a refused connection fails alike (and is retried once, as it reached no server)", async () => {
    const server = await rawServer(jsonResult);
    await server.close();
    const outcomes: string[] = [];
    for (const options of [{}, { fetch: (url: URL, init: RequestInit) => fetch(url, init) }]) {
      const transport = new StreamableHttpClientTransport(server.url, options);
      outcomes.push(
        await transport.send(call() as JSONRPCMessage).then(
          () => "sent",
          (e: Error) => `${e.name}: ${e.message}`,
        ),
      );
    }
    // undici keeps the system error in `cause`: its code says what happened, not only "fetch failed".
    expect(outcomes[0]).toBe(
      `HttpTransportError: tools/call: the POST failed (fetch failed: connect ECONNREFUSED 127.0.0.1:${server.url.port})`,
    );
    expect(outcomes[0]).toBe(outcomes[1]);
  });

  it("cancelling an exchange closes its connection, and sends nothing else", async () => {
    for (const options of [{}, { fetch: (url: URL, init: RequestInit) => fetch(url, init) }]) {
      const server = await rawServer(() => undefined);
      const transport = new StreamableHttpClientTransport(server.url, options);
      const sending = transport.send(call("slow", {}, 5) as JSONRPCMessage);
      await vi.waitFor(() => expect(server.seen).toHaveLength(1));
      transport.cancel(5);
      await sending;
      await vi.waitFor(() => expect(server.closes()).toBe(1));
      expect(server.seen).toHaveLength(1);
      await server.close();
    }
  });

  it("close() aborts exchanges in flight", async () => {
    const server = await rawServer(() => undefined);
    const transport = new StreamableHttpClientTransport(server.url);
    const sending = transport.send(call("slow", {}, 6) as JSONRPCMessage);
    await vi.waitFor(() => expect(server.seen).toHaveLength(1));
    await transport.close();
    await sending;
    await vi.waitFor(() => expect(server.closes()).toBe(1));
    await server.close();
  });

  it("keeps one connection alive across exchanges", async () => {
    const server = await rawServer(jsonResult);
    const transport = new StreamableHttpClientTransport(server.url);
    for (let id = 1; id <= 3; id++) await transport.send(call("echo", {}, id) as JSONRPCMessage);
    await transport.send({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "s", _meta: meta() },
    } as JSONRPCMessage);
    expect(server.seen).toHaveLength(4);
    expect(server.closes()).toBe(0);
    await transport.close();
    await server.close();
  });
});
