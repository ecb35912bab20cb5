/**
 * The per-process era cache (spec §5.2): a URL found to be a 2025 server skips the probe on the
 * next connect, is probed again when that assumption fails, and only "auto" connects use it.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { eraCacheKey, knownLegacy, recordEra, verdictRefuted } from "../../src/client/era-cache.js";
import { Client, clearEraCache } from "../../src/client/index.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import { ProtocolError } from "../../src/shared/errors.js";
import { HttpStatusError, HttpTransportError } from "../../src/transports/http/errors.js";
import { createHttpHandler } from "../../src/transports/http/handler.js";
import { toNodeListener } from "../../src/transports/http/node.js";
import { McpError } from "../../src/types/core.js";
import { startLegacyHttpStub } from "../legacy/legacy-http-stub.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  clearEraCache();
});

async function connectAndClose(url: string, options: Parameters<typeof Client.connect>[1] = {}) {
  const client = await Client.connect(url, options);
  const version = client.protocolVersion;
  await client.close();
  return version;
}

/** The methods the stub saw POSTed, in order, from `from` on. */
function posted(seen: string[], from: number): string[] {
  return seen
    .slice(from)
    .filter((line) => line.startsWith("POST "))
    .map((line) => line.split(" ")[1] ?? "");
}

describe("the era cache over HTTP", () => {
  it("probes a 2025 server once, then goes straight to initialize", async () => {
    const stub = await startLegacyHttpStub("jsonrpc-400");
    closers.push(stub.close);
    expect(await connectAndClose(stub.url)).toBe("2025-03-26");
    expect(posted(stub.seen, 0).slice(0, 2)).toEqual(["server/discover", "initialize"]);
    const before = stub.seen.length;
    expect(await connectAndClose(stub.url)).toBe("2025-03-26");
    expect(posted(stub.seen, before)[0]).toBe("initialize");
    expect(posted(stub.seen, before)).not.toContain("server/discover");
  });

  it("always probes with eraCache: false, and after clearEraCache()", async () => {
    const stub = await startLegacyHttpStub("jsonrpc-400");
    closers.push(stub.close);
    await connectAndClose(stub.url);
    let before = stub.seen.length;
    await connectAndClose(stub.url, { eraCache: false });
    expect(posted(stub.seen, before)[0]).toBe("server/discover");
    clearEraCache();
    before = stub.seen.length;
    await connectAndClose(stub.url);
    expect(posted(stub.seen, before)[0]).toBe("server/discover");
  });

  it("leaves explicit modes alone: mode legacy neither reads nor writes the cache", async () => {
    const stub = await startLegacyHttpStub("jsonrpc-400");
    closers.push(stub.close);
    await connectAndClose(stub.url, { mode: "legacy" });
    expect(knownLegacy(eraCacheKey(stub.url) ?? "")).toBeUndefined();
  });

  it("probes again when the remembered server has become modern-only, and then forgets it", async () => {
    // One endpoint that answers as a minimal 2025 server until it is "upgraded" to our modern-only one.
    const mcp = new MCPServer("upgraded", { version: "2", logger: silentLogger });
    const modern = toNodeListener(createHttpHandler(mcp, { legacy: false }));
    let upgraded = false;
    const methods: string[] = [];
    const server = createServer(async (req, res) => {
      if (upgraded) return modern(req, res);
      if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end();
      let text = "";
      for await (const chunk of req) text += chunk;
      const message = JSON.parse(text) as { id?: number; method?: string };
      methods.push(String(message.method));
      if (message.method === "initialize") {
        const result = {
          protocolVersion: "2025-11-25",
          capabilities: {},
          serverInfo: { name: "old", version: "1" },
        };
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
        return void res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      }
      if (message.id === undefined) return void res.writeHead(202).end();
      const error = { code: -32000, message: "Bad Request: Server not initialized" };
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: null, error }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    expect(await connectAndClose(url)).toBe("2025-11-25");
    expect(methods.slice(0, 2)).toEqual(["server/discover", "initialize"]);
    expect(knownLegacy(eraCacheKey(url) ?? "")).toBe("legacy");

    upgraded = true;
    expect(await connectAndClose(url)).toBe("2026-07-28");
    expect(knownLegacy(eraCacheKey(url) ?? "")).toBeUndefined();
  });
});

describe("a remembered HTTP+SSE verdict", () => {
  it("is refuted by a server that no longer serves the stream: probes, connects modern, forgets", async () => {
    const mcp = new MCPServer("upgraded", { version: "2", logger: silentLogger });
    const modern = toNodeListener(createHttpHandler(mcp));
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.headers["mcp-method"] ?? ""}`);
      return modern(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    recordEra(eraCacheKey(url) ?? "", "sse");
    expect(await connectAndClose(url)).toBe("2026-07-28");
    expect(seen.slice(0, 2)).toEqual(["GET ", "POST server/discover"]);
    expect(knownLegacy(eraCacheKey(url) ?? "")).toBeUndefined();
  });
});

describe("era cache keys and verdicts", () => {
  it("keys URLs and commands the client opens itself, never transports or servers", () => {
    expect(eraCacheKey("http://127.0.0.1:1/mcp")).toBe("http http://127.0.0.1:1/mcp");
    expect(eraCacheKey(new URL("http://127.0.0.1:1/mcp"))).toBe("http http://127.0.0.1:1/mcp");
    const stdio = eraCacheKey({ command: "node", args: ["server.js"] });
    expect(stdio).toBe('stdio ["node",["server.js"],""]');
    expect(eraCacheKey({ command: "node", args: ["other.js"] })).not.toBe(stdio);
    expect(eraCacheKey({ command: "node", args: ["server.js"], cwd: "/srv" })).not.toBe(stdio);
    expect(eraCacheKey(new MCPServer("x", { logger: silentLogger }))).toBeUndefined();
    expect(
      eraCacheKey({ start: async () => {}, send: async () => {}, close: async () => {} }),
    ).toBeUndefined();
    expect(eraCacheKey("not a url")).toBeUndefined();
  });

  it("remembers 2025 verdicts only (and over which transport), the newest 256", () => {
    recordEra("a", "legacy");
    expect(knownLegacy("a")).toBe("legacy");
    recordEra("a", "sse");
    expect(knownLegacy("a")).toBe("sse");
    recordEra("a", "modern");
    expect(knownLegacy("a")).toBeUndefined();
    for (let index = 0; index < 257; index++) recordEra(`k${index}`, index % 2 === 0 ? "legacy" : "sse");
    expect(knownLegacy("k0")).toBeUndefined();
    expect(knownLegacy("k1")).toBe("sse");
    expect(knownLegacy("k256")).toBe("legacy");
  });

  it("re-probes on a refusal, never on an outage, an abort or an auth refusal", () => {
    expect(verdictRefuted(new McpError(-32601, "Method not found"))).toBe(true);
    expect(verdictRefuted(new HttpStatusError(400, "HTTP 400"))).toBe(true);
    expect(verdictRefuted(new ProtocolError("odd answer"))).toBe(true);
    expect(verdictRefuted(new HttpStatusError(401, "HTTP 401"))).toBe(false);
    expect(verdictRefuted(new HttpStatusError(403, "HTTP 403"))).toBe(false);
    expect(verdictRefuted(new HttpTransportError("ECONNREFUSED"))).toBe(false);
    expect(verdictRefuted(new Error("boom"))).toBe(false);
  });
});
