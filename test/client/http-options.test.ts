// Client.connect's `http` options: what a URL target's requests carry on the 2026-07-28 wire, and
// the refusal of the options with any other target.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import { createHttpHandler } from "../../src/transports/http/handler.js";
import { toNodeListener } from "../../src/transports/http/node.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe("Client.connect(url, { http })", () => {
  it("puts the token and the headers on every POST", async () => {
    const mcp = new MCPServer("headers", { version: "1", logger: silentLogger });
    mcp.tool("ping", { description: "pong" }, () => "pong");
    const listener = toNodeListener(createHttpHandler(mcp));
    const seen: { method: string; authorization?: string; tenant?: string | string[] }[] = [];
    const server = createServer((req, res) => {
      seen.push({
        method: String(req.headers["mcp-method"]),
        authorization: req.headers.authorization,
        tenant: req.headers["x-tenant"],
      });
      return listener(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    let issued = 0;
    const client = await Client.connect(url, {
      http: { authProvider: () => `token-${++issued}`, headers: { "x-tenant": "acme" } },
    });
    closers.push(() => client.close());
    expect((await client.callTool("ping")).content).toEqual([{ type: "text", text: "pong" }]);
    expect(seen).toEqual([
      { method: "server/discover", authorization: "Bearer token-1", tenant: "acme" },
      { method: "tools/call", authorization: "Bearer token-2", tenant: "acme" },
    ]);
  });

  it("refuses http options with a target that is not a URL, before opening anything", async () => {
    const mcp = new MCPServer("in-process", { logger: silentLogger });
    const failure = await Client.connect(mcp, { http: { headers: { "x-tenant": "acme" } } }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).message).toBe(
      "Client.connect's http options apply to a URL target; give a transport its own",
    );
  });
});
