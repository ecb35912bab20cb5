/**
 * A resource identifier with a query (RFC 9728 §1.2 allows one): its metadata URL keeps the query,
 * the well-known suffix going between the host and the path and query (§3.1). The server publishes
 * that URL in its challenges and serves the document there; the client probes it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { serveHttp } from "../../../src/transports/http/node.js";
import { discoverResource } from "../../../src/transports/http/oauth/discovery.js";
import { resourceMetadataUrl } from "../../../src/transports/http/protected-resource.js";
import { failure, fakeFetch } from "../oauth/fake-fetch.js";
import { post, rpc } from "./helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the server: a resource identifier with a query", () => {
  it.each([
    [
      "https://mcp.example.com/mcp?tenant=acme",
      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp?tenant=acme",
    ],
    [
      "https://mcp.example.com/mcp/?a=1&b=2",
      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp?a=1&b=2",
    ],
    [
      "https://mcp.example.com/?tenant=acme",
      "https://mcp.example.com/.well-known/oauth-protected-resource?tenant=acme",
    ],
    ["https://mcp.example.com/mcp", "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"],
  ])("derives the metadata URL of %s with its query", (resource, expected) => {
    expect(resourceMetadataUrl(resource).href).toBe(expected);
  });

  it("publishes that URL in its challenge and serves the document there", async () => {
    const mcp = new MCPServer("tenant", { version: "1", logger: silentLogger });
    mcp.tool("ping", { description: "Pings." }, () => "pong");
    const http = await serveHttp(mcp, {
      protectedResource: {
        resource: "http://127.0.0.1/mcp?tenant=acme",
        authorizationServers: ["https://auth.example.com"],
      },
      verifyToken: () => undefined,
      requireAuth: true,
    });
    cleanups.push(() => http.close());
    const refused = await post(http.url, rpc("tools/call", { name: "ping", arguments: {} }, 1));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp?tenant=acme"',
    );
    const document = await fetch(new URL("/.well-known/oauth-protected-resource/mcp?tenant=acme", http.url));
    expect(document.status).toBe(200);
    expect(await document.json()).toEqual({
      resource: "http://127.0.0.1/mcp?tenant=acme",
      authorization_servers: ["https://auth.example.com"],
      bearer_methods_supported: ["header"],
    });
  });
});

describe("the client: an MCP server URL with a query", () => {
  const good = {
    resource: "http://127.0.0.1:1234/mcp?tenant=acme",
    authorization_servers: ["https://a.example"],
  };
  const root = "http://127.0.0.1:1234/.well-known/oauth-protected-resource";

  it("probes the path-based well-known URL with the query, then the root", async () => {
    const fake = fakeFetch({});
    await failure(discoverResource(fake.fetch, new URL("http://127.0.0.1:1234/mcp?tenant=acme"), undefined));
    expect(fake.urls()).toStrictEqual([`${root}/mcp?tenant=acme`, root]);
  });

  it("probes the query-only well-known URL of a server at the root, then the root", async () => {
    const fake = fakeFetch({});
    await failure(discoverResource(fake.fetch, new URL("http://127.0.0.1:1234/?tenant=acme"), undefined));
    expect(fake.urls()).toStrictEqual([`${root}?tenant=acme`, root]);
  });

  it("finds the document there", async () => {
    const fake = fakeFetch({ [`${root}/mcp?tenant=acme`]: { body: good } });
    const found = await discoverResource(
      fake.fetch,
      new URL("http://127.0.0.1:1234/mcp?tenant=acme"),
      undefined,
    );
    expect(found.resource).toBe("http://127.0.0.1:1234/mcp?tenant=acme");
    expect(fake.urls()).toStrictEqual([`${root}/mcp?tenant=acme`]);
  });
});
