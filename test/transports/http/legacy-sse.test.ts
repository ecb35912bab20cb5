// The deprecated HTTP+SSE transport (2024-11-05), against a hand-written server of that revision on
// real loopback sockets: Client.connect(url) falls back to it by itself, the exact requests on the
// wire, server requests answered over the stream, and the refusals (another origin, not SSE).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/client.js";
import { eraCacheKey, knownLegacy } from "../../../src/client/era-cache.js";
import { clearEraCache } from "../../../src/client/index.js";
import { ConnectionClosedError } from "../../../src/shared/errors.js";
import { HttpStatusError, HttpTransportError } from "../../../src/transports/http/errors.js";
import { SseClientTransport } from "../../../src/transports/http/legacy-sse-client.js";
import { type LegacySseServer, startLegacySseServer } from "../../fixtures/legacy/sse-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  clearEraCache();
});

async function server(options: Parameters<typeof startLegacySseServer>[0] = {}): Promise<LegacySseServer> {
  const sse = await startLegacySseServer(options);
  closers.push(() => sse.close());
  return sse;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5_000) throw new Error("timed out waiting");
    await pause(5);
  }
}

const ROOTS = async () => ({
  roots: [
    { uri: "file:///work", name: "work" },
    { uri: "file:///home", name: "home" },
  ],
});

describe("HTTP+SSE (2024-11-05)", () => {
  it("Client.connect(url) falls back to it after a 405 on both eras' POSTs, then works end to end", async () => {
    const sse = await server();
    const client = await Client.connect(sse.url, { listRoots: ROOTS, eraCache: false });
    closers.push(() => client.close());
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2024-11-05");
    expect(client.serverInfo).toEqual({ name: "old-sse", version: "0.9.0" });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["echo", "roots"]);
    expect((await client.callTool("echo", { text: "hi" })).content).toEqual([
      { type: "text", text: "echo: hi" },
    ]);
    // A server request over the stream, answered with a POST to the endpoint.
    expect((await client.callTool("roots")).content).toEqual([{ type: "text", text: "roots: 2" }]);

    const wire = sse.hits.map((hit) => ({
      request: `${hit.method} ${hit.path}`,
      method: (hit.body as { method?: string } | undefined)?.method,
    }));
    expect(wire.slice(0, 5)).toEqual([
      { request: "POST /sse", method: "server/discover" },
      { request: "POST /sse", method: "initialize" },
      { request: "GET /sse", method: undefined },
      { request: "POST /messages?sessionId=s1", method: "initialize" },
      { request: "POST /messages?sessionId=s1", method: "notifications/initialized" },
    ]);
    const rootsAnswer = sse.hits.find((hit) => (hit.body as { id?: string } | undefined)?.id === "srv-1");
    expect(rootsAnswer?.body).toEqual({ jsonrpc: "2.0", id: "srv-1", result: await ROOTS() });
    // The 2025 handshake, not the 2026 envelope, on the stream's session.
    const initialize = sse.hits[3]?.body as { params: Record<string, unknown> };
    expect(initialize.params).toMatchObject({ protocolVersion: "2025-11-25", capabilities: { roots: {} } });
    expect(initialize.params._meta ?? {}).not.toHaveProperty(["io.modelcontextprotocol/protocolVersion"]);
  });

  it("the transport on its own: no POST to the stream URL, and a bearer token on every request", async () => {
    const sse = await server();
    const transport = new SseClientTransport(sse.url, { authProvider: () => "t0ken" });
    const client = await Client.connect(transport, { mode: "legacy" });
    closers.push(() => client.close());
    expect((await client.callTool("echo", { text: "x" })).content).toEqual([
      { type: "text", text: "echo: x" },
    ]);
    expect(transport.endpoint?.href).toBe(new URL("/messages?sessionId=s1", sse.url).href);
    expect(sse.hits.some((hit) => hit.method === "POST" && hit.path === "/sse")).toBe(false);
    expect(sse.hits.every((hit) => hit.authorization === "Bearer t0ken")).toBe(true);
  });

  // A provider's per-request credentials: how OAuthClientProvider keeps a token to the resource it
  // was issued for (RFC 8707) and signs DPoP proofs. The HTTP+SSE transport used to call token()
  // alone, so it handed a stored token to any server and never sent a DPoP-bound one as such.
  it("asks a provider with headers() for each request's credentials, naming the method and URL", async () => {
    const sse = await server();
    const asked: string[] = [];
    const transport = new SseClientTransport(sse.url, {
      authProvider: {
        token: () => "never-used",
        headers: async ({ method, url }) => {
          asked.push(`${method} ${url.pathname}${url.search}`);
          return { token: "per-request", headers: [["Authorization", `Bearer per-request-${method}`]] };
        },
      },
    });
    const client = await Client.connect(transport, { mode: "legacy" });
    closers.push(() => client.close());
    await client.callTool("echo", { text: "x" });
    expect(asked[0]).toBe("GET /sse");
    expect(asked.slice(1).every((line) => line === "POST /messages?sessionId=s1")).toBe(true);
    expect(sse.hits.map((hit) => `${hit.method} ${hit.authorization}`)).toEqual(
      sse.hits.map((hit) => `${hit.method} Bearer per-request-${hit.method}`),
    );
    expect(sse.hits.some((hit) => hit.authorization?.includes("never-used"))).toBe(false);
  });

  it("refuses an endpoint on another origin: nothing is ever posted there", async () => {
    let elsewhereHits = 0;
    const elsewhere = createServer((_req, res) => {
      elsewhereHits++;
      res.writeHead(202).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => elsewhere.close(() => resolve())));
    const port = (elsewhere.address() as AddressInfo).port;
    const sse = await server({ endpoint: () => `http://127.0.0.1:${port}/messages` });
    const transport = new SseClientTransport(sse.url, { authProvider: () => "secret-token" });
    await expect(Client.connect(transport, { mode: "legacy" })).rejects.toThrow(
      `The HTTP+SSE stream named an endpoint on another origin (http://127.0.0.1:${port}); refused`,
    );
    expect(elsewhereHits).toBe(0);
  });

  it("endpointTimeoutMs also bounds a GET the server never answers: start() fails in time, the GET abandoned", async () => {
    let abandoned = false;
    const silent = createServer((req) => {
      req.socket.once("close", () => {
        abandoned = true;
      });
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    closers.push(() => {
      silent.closeAllConnections();
      return new Promise((resolve) => silent.close(() => resolve()));
    });
    const port = (silent.address() as AddressInfo).port;
    const transport = new SseClientTransport(`http://127.0.0.1:${port}/sse`, { endpointTimeoutMs: 100 });
    const started = Date.now();
    const outcome = await Promise.race([
      transport.start().then(
        () => "started",
        (error: unknown) => error,
      ),
      pause(3_000).then(() => "still waiting after 3 s"),
    ]);
    expect(outcome).toEqual(new HttpTransportError("The HTTP+SSE stream named no endpoint in time"));
    expect(Date.now() - started).toBeLessThan(2_000);
    await until(() => abandoned);
  });

  it("a URL that is not an HTTP+SSE server either keeps the first answer's error", async () => {
    const sse = await server({ getStatus: 404 });
    const failure = await Client.connect(sse.url, { eraCache: false }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HttpStatusError);
    expect((failure as HttpStatusError).status).toBe(405);
    expect(sse.hits.map((hit) => `${hit.method} ${hit.path}`)).toEqual([
      "POST /sse",
      "POST /sse",
      "GET /sse",
    ]);
  });

  it("a stream that drops mid-session fails the call in flight instead of hanging", async () => {
    const sse = await server();
    let answered!: () => void;
    const listRoots = () =>
      new Promise<never>(() => {
        answered();
      });
    const asked = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const client = await Client.connect(new SseClientTransport(sse.url), { mode: "legacy", listRoots });
    closers.push(() => client.close());
    const call = client.callTool("roots");
    await asked;
    sse.dropStreams();
    await expect(call).rejects.toThrow();
  });

  it("remembers an HTTP+SSE server: the next connect opens the stream without a POST first", async () => {
    const sse = await server();
    const first = await Client.connect(sse.url);
    await first.close();
    expect(knownLegacy(eraCacheKey(sse.url) ?? "")).toBe("sse");
    const before = sse.hits.length;
    const second = await Client.connect(sse.url);
    closers.push(() => second.close());
    expect(second.protocolVersion).toBe("2024-11-05");
    expect(sse.hits.slice(before, before + 2).map((hit) => `${hit.method} ${hit.path}`)).toEqual([
      "GET /sse",
      "POST /messages?sessionId=s2",
    ]);
    expect((await second.callTool("echo", { text: "again" })).content).toEqual([
      { type: "text", text: "echo: again" },
    ]);
  });

  it("Client.connect's http options reach both eras' POSTs, the stream and every message", async () => {
    const sse = await server({ token: "sse-token-42" });
    const client = await Client.connect(sse.url, {
      eraCache: false,
      http: { authProvider: () => "sse-token-42", headers: { "x-tenant": "acme" } },
    });
    closers.push(() => client.close());
    expect((await client.callTool("echo", { text: "authorized" })).content).toEqual([
      { type: "text", text: "echo: authorized" },
    ]);
    expect(sse.hits.map((hit) => `${hit.method} ${hit.path}`).slice(0, 3)).toEqual([
      "POST /sse",
      "POST /sse",
      "GET /sse",
    ]);
    expect(sse.hits.length).toBeGreaterThan(5);
    expect(sse.hits.every((hit) => hit.authorization === "Bearer sse-token-42")).toBe(true);
    expect(sse.hits.every((hit) => hit.tenant === "acme")).toBe(true);
  });

  it("close() aborts the POSTs in flight: the server sees them abandoned, their sends reject as closed", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sse = await server({ hold: (message) => (message.method === "tools/call" ? released : undefined) });
    closers.push(async () => release()); // before the server closes, which waits for held POSTs
    const transport = new SseClientTransport(sse.url);
    const client = await Client.connect(transport, { mode: "legacy" });
    closers.push(() => client.close());
    const held = () =>
      sse.hits.filter((hit) => (hit.body as { method?: string } | undefined)?.method === "tools/call");
    const call = client.callTool("echo", { text: "late" });
    call.catch(() => {}); // awaited below
    const direct = transport.send({
      jsonrpc: "2.0",
      id: "direct",
      method: "tools/call",
      params: { name: "echo", arguments: { text: "direct" } },
    });
    const outcome = direct.then(
      () => "resolved",
      (error: unknown) => error,
    );
    await until(() => held().length === 2);
    await client.close();
    await expect(call).rejects.toBeInstanceOf(ConnectionClosedError);
    const settled = await Promise.race([outcome, pause(2_000).then(() => "still in flight")]);
    expect(settled).toBeInstanceOf(ConnectionClosedError);
    expect((settled as Error).message).toBe("The HTTP+SSE transport closed");
    // The stream's GET is abandoned too; the POSTs are what close() used to leave running.
    const abandonedPosts = () => sse.abandoned.filter((hit) => hit.method === "POST");
    await until(() => abandonedPosts().length === 2);
    expect(abandonedPosts()).toEqual(expect.arrayContaining(held()));
  });

  it("the pinned modern mode never falls back", async () => {
    const sse = await server();
    const client = await Client.connect(sse.url, { mode: "2026-07-28" });
    closers.push(() => client.close());
    await expect(client.listTools()).rejects.toBeInstanceOf(HttpStatusError);
    expect(sse.hits.map((hit) => `${hit.method} ${hit.path}`)).toEqual(["POST /sse"]);
  });
});
