/**
 * A `Client`'s cached `private` results belong to one authorization context (spec: caching, "private
 * entries MUST NOT be shared across authorization contexts"): a new sign-in, which may be another
 * user, drops them; a refresh of the same grant keeps them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { MCPServer, silentLogger } from "../../src/server/index.js";
import type { AuthInfo } from "../../src/shared/dispatch.js";
import { StreamableHttpClientTransport } from "../../src/transports/http/client.js";
import type { HttpAuthProvider } from "../../src/transports/http/index.js";
import { serveHttp } from "../../src/transports/http/node.js";

const USERS: Record<string, AuthInfo> = {
  "t-ada": { token: "t-ada", clientId: "app", scopes: ["admin"], subject: "ada" },
  "t-ada-refreshed": { token: "t-ada-refreshed", clientId: "app", scopes: ["admin"], subject: "ada" },
  "t-bob": { token: "t-bob", clientId: "app", scopes: [], subject: "bob" },
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server whose tools/list depends on the caller (so private), cached for a minute, counting lists. */
async function tenantServer(hold: Promise<void> = Promise.resolve()) {
  const mcp = new MCPServer("tenant", {
    logger: silentLogger,
    cacheHints: { "tools/list": { ttlMs: 60_000, cacheScope: "private" } },
  });
  mcp.tool("search", { description: "for everyone" }, () => "found");
  mcp.tool("purge", { visible: (ctx) => ctx.authInfo?.scopes.includes("admin") === true }, () => "purged");
  const lists: string[] = [];
  mcp.server.middleware.push(async (ctx, next) => {
    if (ctx.method === "tools/list") {
      lists.push(ctx.authInfo?.subject ?? "anonymous");
      if (ctx.authInfo?.subject === "ada") await hold;
    }
    return next(ctx);
  });
  const http = await serveHttp(mcp, {
    requireAuth: true,
    verifyToken: (request) => USERS[request.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""],
  });
  cleanups.push(() => http.close());
  return { url: http.url, lists };
}

/** A provider whose sign-ins the test drives: `authGrant` changes with each new authorization. */
function signedIn(token: string): HttpAuthProvider & { current: string; authGrant: number } {
  return {
    current: token,
    token() {
      return this.current;
    },
    authGrant: 1,
  };
}

const names = (result: { tools: { name: string }[] }) => result.tools.map((tool) => tool.name);

describe("Client cache across authorizations", () => {
  it("drops private entries when another user signs in, and keeps them across a refresh", async () => {
    const { url, lists } = await tenantServer();
    const provider = signedIn("t-ada");
    const client = await Client.connect(new StreamableHttpClientTransport(url, { authProvider: provider }));
    cleanups.push(() => client.close());

    expect(names(await client.listTools())).toEqual(["search", "purge"]);
    // A refresh: a new access token of the same grant. The listing stays cached.
    provider.current = "t-ada-refreshed";
    expect(names(await client.listTools())).toEqual(["search", "purge"]);
    expect(lists).toEqual(["ada"]);

    // A new sign-in, as bob: ada's private listing must not answer him.
    provider.current = "t-bob";
    provider.authGrant = 2;
    expect(names(await client.listTools())).toEqual(["search"]);
    expect(names(await client.listTools())).toEqual(["search"]);
    expect(lists).toEqual(["ada", "bob"]);
  });

  it("does not store a listing requested under the previous authorization", async () => {
    let release!: () => void;
    const { url, lists } = await tenantServer(new Promise((resolve) => (release = resolve)));
    const provider = signedIn("t-ada");
    const client = await Client.connect(new StreamableHttpClientTransport(url, { authProvider: provider }));
    cleanups.push(() => client.close());
    // ada's listing is in flight when bob signs in and lists; then ada's answer lands.
    const adas = client.listTools();
    await expect.poll(() => lists).toEqual(["ada"]);
    provider.current = "t-bob";
    provider.authGrant = 2;
    expect(names(await client.listTools())).toEqual(["search"]);
    release();
    expect(names(await adas)).toEqual(["search", "purge"]);
    expect(names(await client.listTools())).toEqual(["search"]);
  });
});
