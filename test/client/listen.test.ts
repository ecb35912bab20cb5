import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { serveHttp } from "../../src/transports/http/node.js";
import type { JSONRPCNotification } from "../../src/types/index.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function liveServer() {
  const mcp = new MCPServer("live", { logger: silentLogger, listChanged: true });
  mcp.tool("first", {}, () => "one");
  mcp.prompt("p", {}, () => "hi");
  return mcp;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error("condition not reached");
}

describe.each([
  ["in memory", async (mcp: MCPServer) => mcp],
  [
    "over HTTP",
    async (mcp: MCPServer) => {
      const http = await serveHttp(mcp, { port: 0 });
      cleanups.push(() => http.close());
      return http.url.href;
    },
  ],
])("client.listen %s", (_label, target) => {
  it("acknowledges the honoured filter, delivers only asked-for changes and evicts the cached list", async () => {
    const mcp = liveServer();
    const client = await Client.connect(await target(mcp));
    cleanups.push(() => client.close());
    const seen: JSONRPCNotification[] = [];
    const sub = client.listen({ toolsListChanged: true, resourcesListChanged: true }, (n) => seen.push(n));
    expect(await sub.acknowledged).toEqual({ toolsListChanged: true });
    mcp.prompt("q", {}, () => "again");
    mcp.tool("second", {}, () => "two");
    await until(() => seen.length === 1);
    expect(seen[0]?.method).toBe("notifications/tools/list_changed");
    expect(seen[0]?.params?._meta).toHaveProperty(["io.modelcontextprotocol/subscriptionId"]);
    mcp.server.closeSubscriptions();
    await sub.closed;
  });

  it("close() ends the stream on the client side and frees the server's slot", async () => {
    const mcp = liveServer();
    const client = await Client.connect(await target(mcp));
    cleanups.push(() => client.close());
    const sub = client.listen({ toolsListChanged: true });
    await sub.acknowledged;
    sub.close();
    await sub.closed;
    const again = client.listen({ toolsListChanged: true });
    expect(await again.acknowledged).toEqual({ toolsListChanged: true });
    again.close();
    await again.closed;
  });

  it("rejects acknowledged and closed when the server does not serve listen", async () => {
    const quiet = new MCPServer("quiet", { logger: silentLogger });
    quiet.tool("t", {}, () => "x");
    const client = await Client.connect(await target(quiet));
    cleanups.push(() => client.close());
    const sub = client.listen({ toolsListChanged: true });
    await expect(sub.acknowledged).rejects.toMatchObject({ code: -32601 });
    await expect(sub.closed).rejects.toMatchObject({ code: -32601 });
  });
});
