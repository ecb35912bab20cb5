/**
 * A resource identifier with a query (RFC 9728 §1.2 allows one): its metadata URL keeps the query,
 * the well-known suffix going between the host and the path and query (§3.1). The server publishes
 * that URL in its challenges and serves the document there; the client probes it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { serveHttp } from "../../../src/transports/http/node.js";
import { discoverResource, type OAuthFetch } from "../../../src/transports/http/oauth/discovery.js";
import { OAuthClientProvider, OAuthError } from "../../../src/transports/http/oauth/index.js";
import { resourceMetadataUrl } from "../../../src/transports/http/protected-resource.js";
import { failure, fakeFetch } from "../oauth/fake-fetch.js";
import { freePort } from "../oauth/world.js";
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

describe("the client: the document's resource must carry the server URL's query", () => {
  /** serveHttp on a known port, publishing `resource` (`{origin}` replaced by its own origin). */
  async function publishing(resource: string) {
    const origin = `http://127.0.0.1:${await freePort()}`;
    const mcp = new MCPServer("tenant", { version: "1", logger: silentLogger });
    mcp.tool("ping", { description: "Pings." }, () => "pong");
    const http = await serveHttp(mcp, {
      port: Number(new URL(origin).port),
      protectedResource: {
        resource: resource.replace("{origin}", origin),
        authorizationServers: ["https://auth.example.com"],
      },
      verifyToken: () => undefined,
      requireAuth: true,
    });
    cleanups.push(() => http.close());
    return origin;
  }

  const mismatch = (origin: string) =>
    `the protected resource metadata names a resource other than ${origin}/mcp`;

  it("refuses a document for another tenant, found at the well-known URL", async () => {
    const origin = await publishing("{origin}/mcp?tenant=other");
    const error = await failure(discoverResource(fetch, new URL(`${origin}/mcp?tenant=acme`), undefined));
    expect([error.code, error.message]).toEqual(["resource_mismatch", mismatch(origin)]);
  });

  it("refuses it through the provider, before any authorization server is asked", async () => {
    const origin = await publishing("{origin}/mcp?tenant=other");
    const urls: string[] = [];
    const recording: OAuthFetch = (input, init) => {
      urls.push(input.href);
      return fetch(input, init);
    };
    let authorized = 0;
    const oauth = new OAuthClientProvider({
      redirectUri: "http://127.0.0.1:8765/callback",
      authorize: async (url) => {
        authorized++;
        return url;
      },
      fetch: recording,
    });
    const refused = await Client.connect(
      new StreamableHttpClientTransport(new URL(`${origin}/mcp?tenant=acme`), { authProvider: oauth }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OAuthError);
    expect([(refused as OAuthError).code, (refused as OAuthError).message]).toEqual([
      "resource_mismatch",
      mismatch(origin),
    ]);
    // Only the document the challenge pointed at was read.
    expect(urls).toStrictEqual([`${origin}/.well-known/oauth-protected-resource/mcp?tenant=other`]);
    expect(authorized).toBe(0);
  });

  it.each([
    ["the same query", "{origin}/mcp?tenant=acme", "/mcp?tenant=acme"],
    ["no query (the whole path)", "{origin}/mcp", "/mcp?tenant=acme"],
    ["the same query on a path prefix", "{origin}/?tenant=acme", "/mcp?tenant=acme"],
  ])("accepts a resource with %s", async (_name, published, path) => {
    const origin = await publishing(published);
    const found = await discoverResource(fetch, new URL(`${origin}${path}`), undefined);
    expect(found.resource).toBe(published.replace("{origin}", origin));
  });

  it.each([
    ["another query", "{origin}/mcp?tenant=other", "/mcp?tenant=acme"],
    ["a query the server URL lacks", "{origin}/mcp?tenant=acme", "/mcp"],
    ["a query with more in it", "{origin}/mcp?tenant=acme&x=1", "/mcp?tenant=acme"],
    ["a query with less in it", "{origin}/mcp?tenant=acme", "/mcp?tenant=acme&x=1"],
  ])("refuses a resource with %s", async (_name, published, path) => {
    const origin = await publishing(published);
    const error = await failure(discoverResource(fetch, new URL(`${origin}${path}`), undefined));
    expect([error.code, error.message]).toEqual(["resource_mismatch", mismatch(origin)]);
  });
});
