/**
 * CORS for the listed origins only, over loopback: the preflight a browser sends before our own
 * fetch client's POST, the headers a page may read on JSON and SSE answers, and nothing at all for
 * origins that are not listed or for endpoints without a list.
 */
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { type ServeHttpOptions, serveHttp } from "../../../src/transports/http/node.js";
import { post, rpc, startServer } from "./helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const APP = "https://app.example.com";

async function serve(options: ServeHttpOptions = { allowedOrigins: [APP], allowedHosts: ["127.0.0.1"] }) {
  const mcp = new MCPServer("cors", { version: "1", logger: silentLogger });
  mcp.tool("echo", { description: "Echo." }, () => "hi");
  const http = await serveHttp(mcp, options);
  cleanups.push(() => http.close());
  return http;
}

const PREFLIGHT_HEADERS =
  "content-type, accept, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, authorization";

function preflight(url: URL, origin: string, requestHeaders = PREFLIGHT_HEADERS, method = "POST") {
  return fetch(url, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": requestHeaders,
    },
  });
}

function discover(url: URL, origin?: string) {
  return post(url, rpc("server/discover"), { origin });
}

describe("CORS for allowedOrigins", () => {
  it("answers a listed origin's preflight with exactly what it asked for", async () => {
    const http = await serve();
    const response = await preflight(http.url, APP);
    expect(response.status).toBe(204);
    const cors: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name.startsWith("access-control") || name === "vary") cors[name] = value;
    });
    expect(cors).toEqual({
      "access-control-allow-origin": APP,
      "access-control-allow-methods": "POST, GET, DELETE",
      "access-control-allow-headers": PREFLIGHT_HEADERS,
      "access-control-max-age": "600",
      vary: "Origin",
    });
  });

  it("refuses a preflight for a header or method no MCP client sends", async () => {
    const http = await serve();
    expect((await preflight(http.url, APP, "content-type, x-custom")).status).toBe(403);
    expect((await preflight(http.url, APP, "content-type", "PUT")).status).toBe(403);
    const refused = await preflight(http.url, APP, "x-custom");
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets the page read the answer and the MCP headers", async () => {
    const http = await serve();
    const response = await discover(http.url, APP);
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
    expect(response.headers.get("access-control-expose-headers")).toBe(
      "mcp-session-id, mcp-protocol-version, www-authenticate",
    );
    expect(response.headers.get("vary")).toBe("Origin");
    expect((await response.json()).result.supportedVersions).toContain("2026-07-28");
  });

  it("adds them to event-stream answers", async () => {
    const endpoint = await startServer({ allowedOrigins: [APP], allowedHosts: ["127.0.0.1"] });
    cleanups.push(() => endpoint.close());
    const body = rpc("tools/call", { name: "progress" }, 1);
    body.params._meta = { ...body.params._meta, progressToken: "p1" } as never;
    const response = await post(endpoint.url, body, { origin: APP });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
    expect(response.headers.get("access-control-expose-headers")).toContain("mcp-session-id");
    expect(await response.text()).toContain('"progressed"');
  });

  it("adds them to error answers too, so the page can read why", async () => {
    const http = await serve();
    const response = await fetch(http.url, {
      method: "POST",
      headers: { origin: APP, "content-type": "text/plain" },
      body: "x",
    });
    expect(response.status).toBe(415);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("gives nothing to an origin that is not listed: 403 as before, no CORS headers", async () => {
    const http = await serve();
    const elsewhere = await preflight(http.url, "https://evil.example.com");
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get("access-control-allow-origin")).toBeNull();
    const posted = await discover(http.url, "https://evil.example.com");
    expect(posted.status).toBe(403);
    expect(posted.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("still checks Host on a preflight", async () => {
    const http = await serve();
    // fetch cannot set Host: a raw request carries the rebound name.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(http.url, {
        method: "OPTIONS",
        headers: { host: "rebound.example.com", origin: APP, "access-control-request-method": "POST" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(421);
  });

  it("answers no CORS at all on a loopback endpoint without a list", async () => {
    const http = await serve({});
    const local = "http://localhost:5173";
    const response = await preflight(http.url, local);
    expect(response.status).toBe(405);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    const posted = await discover(http.url, local);
    expect(posted.status).toBe(200);
    expect(posted.headers.get("access-control-allow-origin")).toBeNull();
  });
});
