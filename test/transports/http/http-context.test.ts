// Handlers see the HTTP request that carried their call (ctx.http): a header, and the web Request,
// on serveHttp's node path, on the web handler, and on a 2025 session; nothing off HTTP.
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/client.js";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { SseClientTransport } from "../../../src/transports/http/legacy-sse-client.js";
import { httpPlusSse } from "../../../src/transports/http/legacy-sse-server.js";
import { serveHttp } from "../../../src/transports/http/node.js";
import { signalled } from "../../helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function tenantServer() {
  const mcp = new MCPServer("tenants", { logger: silentLogger });
  mcp.tool("whereami", {}, (_args, ctx) => {
    const http = ctx.http;
    if (http === undefined) return "not over HTTP";
    const request = http.request();
    return `${http.header("X-Tenant")} ${request.method} ${new URL(request.url).pathname} ${request.headers.get("x-tenant")}`;
  });
  mcp.tool("whoami", {}, (_args, ctx) => ctx.authInfo?.subject ?? "anonymous");
  return mcp;
}

const tenant = { headers: { "x-tenant": "acme" } };

describe("ctx.http", () => {
  it("over serveHttp (node:http, no Request built unless asked)", async () => {
    const http = await serveHttp(tenantServer(), { port: 0 });
    closers.push(() => http.close());
    const client = await Client.connect(http.url, { http: tenant });
    closers.push(() => client.close());
    expect((await client.callTool("whereami")).content).toEqual([
      { type: "text", text: "acme POST /mcp acme" },
    ]);
  });

  it("over serveHttp, the web Request a handler asked for aborts when the client goes away", async () => {
    const mcp = new MCPServer("watcher", { logger: silentLogger });
    const started = signalled();
    const aborted = signalled();
    mcp.tool("watch", {}, async (_args, ctx) => {
      const signal = ctx.http?.request().signal;
      await new Promise<void>((resolve) => {
        signal?.addEventListener("abort", () => {
          aborted.fire();
          resolve();
        });
        started.fire();
      });
      return "gone";
    });
    const http = await serveHttp(mcp, { port: 0 });
    closers.push(() => http.close());
    const client = await Client.connect(http.url);
    closers.push(() => client.close());
    const cancel = new AbortController();
    const call = client.callTool("watch", {}, { signal: cancel.signal }).catch((error: unknown) => error);
    await started.done;
    cancel.abort();
    await aborted.done;
    expect(await call).toBeInstanceOf(Error);
  });

  it("through the web handler", async () => {
    const handler = createHttpHandler(tenantServer());
    const client = await Client.connect("http://in-process.test/mcp", {
      http: { ...tenant, fetch: (url, init) => handler(new Request(url, init)) },
    });
    closers.push(() => client.close());
    expect((await client.callTool("whereami")).content).toEqual([
      { type: "text", text: "acme POST /mcp acme" },
    ]);
  });

  it("on a 2025 session", async () => {
    const http = await serveHttp(tenantServer(), { port: 0 });
    closers.push(() => http.close());
    const client = await Client.connect(http.url, { http: tenant, mode: "legacy" });
    closers.push(() => client.close());
    expect(client.era).toBe("legacy");
    expect((await client.callTool("whereami")).content).toEqual([
      { type: "text", text: "acme POST /mcp acme" },
    ]);
  });

  it("on an HTTP+SSE (2024-11-05) stream, with the POST's own token", async () => {
    const http = await serveHttp(tenantServer(), {
      port: 0,
      legacy: { sse: httpPlusSse },
      verifyToken: (request) => {
        const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
        return token ? { token, clientId: "app", scopes: [], subject: token } : undefined;
      },
    });
    closers.push(() => http.close());
    const transport = new SseClientTransport(http.url, { ...tenant, authProvider: () => "alice" });
    const client = await Client.connect(transport, { mode: "legacy" });
    closers.push(() => client.close());
    expect((await client.callTool("whereami")).content).toEqual([
      { type: "text", text: "acme POST /mcp acme" },
    ]);
    expect((await client.callTool("whoami")).content).toEqual([{ type: "text", text: "alice" }]);
  });

  it("is undefined in memory", async () => {
    const client = await Client.connect(tenantServer());
    expect((await client.callTool("whereami")).content).toEqual([{ type: "text", text: "not over HTTP" }]);
  });
});
