/**
 * The endpoint as an OAuth protected resource: its RFC 9728 document, the challenges that point
 * to it, and the scope rung (403 insufficient_scope) — on the wire over loopback, for both eras,
 * and end to end with our own OAuth client stepping up against it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import type { AuthInfo } from "../../../src/shared/dispatch.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { type ServeHttpOptions, serveHttp } from "../../../src/transports/http/node.js";
import { OAuthClientProvider } from "../../../src/transports/http/oauth/index.js";
import {
  createResourceMetadataHandler,
  resourceMetadataUrl,
} from "../../../src/transports/http/protected-resource.js";
import { consent, freePort, MockAuthorizationServer } from "../oauth/world.js";
import { post, rpc } from "./helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TOKENS: Record<string, AuthInfo> = {
  "read-only": { token: "read-only", clientId: "c", scopes: ["files:read"] },
  "read-write": { token: "read-write", clientId: "c", scopes: ["files:read", "files:write"] },
};

function files() {
  const mcp = new MCPServer("files", { version: "1", logger: silentLogger });
  mcp.tool("read", { description: "Reads." }, () => "contents");
  mcp.tool("write", { description: "Writes." }, (_args, ctx) => `written by ${ctx.authInfo?.clientId}`);
  return mcp;
}

async function serve(options: Partial<ServeHttpOptions> = {}) {
  const http = await serveHttp(files(), {
    protectedResource: {
      resource: "http://127.0.0.1/mcp",
      authorizationServers: ["https://auth.example.com"],
      scopesSupported: ["files:read", "files:write"],
      resourceName: "Files",
    },
    verifyToken: (request) => TOKENS[request.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""],
    requiredScopes: ({ method, name }) =>
      method === "tools/call" ? (name === "write" ? ["files:write"] : ["files:read"]) : undefined,
    ...options,
  });
  cleanups.push(() => http.close());
  return http;
}

function call(url: URL, name: string, token?: string) {
  const authorization = token ? `Bearer ${token}` : undefined;
  return post(url, rpc("tools/call", { name, arguments: {} }, 7), { authorization });
}

describe("the protected resource metadata document", () => {
  it("is served at the path-based well-known URL, readable from any origin", async () => {
    const http = await serve();
    const url = new URL("/.well-known/oauth-protected-resource/mcp", http.url);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(await response.json()).toEqual({
      resource: "http://127.0.0.1/mcp",
      authorization_servers: ["https://auth.example.com"],
      bearer_methods_supported: ["header"],
      scopes_supported: ["files:read", "files:write"],
      resource_name: "Files",
    });
    expect((await fetch(url, { method: "OPTIONS" })).status).toBe(204);
    const post = await fetch(url, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    expect((await fetch(new URL("/.well-known/oauth-protected-resource", http.url))).status).toBe(404);
  });

  it("derives its URL from the resource, and the web handler serves the same document", async () => {
    expect(resourceMetadataUrl("https://mcp.example.com/mcp/").href).toBe(
      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
    );
    expect(resourceMetadataUrl("https://mcp.example.com").href).toBe(
      "https://mcp.example.com/.well-known/oauth-protected-resource",
    );
    const handler = createResourceMetadataHandler({
      resource: "https://m.example/mcp",
      authorizationServers: ["https://a.example"],
    });
    const response = await handler(new Request("https://m.example/.well-known/oauth-protected-resource/mcp"));
    expect(await response.json()).toEqual({
      resource: "https://m.example/mcp",
      authorization_servers: ["https://a.example"],
      bearer_methods_supported: ["header"],
    });
  });

  it.each([
    [{ resource: "not a url", authorizationServers: ["https://a.example"] }],
    [{ resource: "https://m.example/mcp#x", authorizationServers: ["https://a.example"] }],
    [{ resource: "https://m.example/mcp", authorizationServers: [] }],
    [{ resource: "https://m.example/mcp", authorizationServers: ["nope"] }],
  ])("refuses unusable options at setup: %j", (protectedResource) => {
    expect(() => createHttpHandler(files(), { protectedResource })).toThrow(TypeError);
    expect(() => createResourceMetadataHandler(protectedResource)).toThrow(TypeError);
  });
});

describe("the scope rung", () => {
  it("answers 401 with the scope and the metadata URL when there is no token", async () => {
    const http = await serve();
    const response = await call(http.url, "read");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(
      'Bearer scope="files:read", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it("answers a non-Bearer scheme like no token, and an unknown bearer token with invalid_token", async () => {
    const http = await serve();
    const challenges: (string | null)[] = [];
    for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer unknown"]) {
      const response = await post(http.url, rpc("tools/call", { name: "read", arguments: {} }, 7), {
        authorization,
      });
      expect(response.status).toBe(401);
      challenges.push(response.headers.get("www-authenticate"));
    }
    expect(challenges).toEqual([
      'Bearer scope="files:read", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"',
      'Bearer error="invalid_token", scope="files:read", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"',
    ]);
  });

  it("answers 403 insufficient_scope naming every scope the call needs", async () => {
    const http = await serve();
    const response = await call(http.url, "write", "read-only");
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toBe(
      'Bearer error="insufficient_scope", scope="files:write", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"',
    );
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32600, message: "Forbidden: the token lacks a scope this call needs" },
    });
  });

  it("lets a call through when the token has its scopes, and calls that need none", async () => {
    const http = await serve();
    const written = await call(http.url, "write", "read-write");
    expect(written.status).toBe(200);
    expect(await written.json()).toMatchObject({
      id: 7,
      result: { content: [{ type: "text", text: "written by c" }] },
    });
    expect((await call(http.url, "read", "read-only")).status).toBe(200);
  });

  it("applies to 2025 sessions too", async () => {
    const http = await serve();
    const transport = new StreamableHttpClientTransport(http.url, { authProvider: () => "read-only" });
    const client = await Client.connect(transport, { mode: "legacy" });
    cleanups.push(() => client.close());
    expect(client.protocolVersion).toBe("2025-11-25");
    expect((await client.callTool("read", {})).content).toEqual([{ type: "text", text: "contents" }]);
    await expect(client.callTool("write", {})).rejects.toMatchObject({ status: 403 });
  });

  it("needs verifyToken", () => {
    expect(() => createHttpHandler(files(), { requiredScopes: () => ["x"] })).toThrow(/verifyToken/);
  });
});

describe("our OAuth client against our protected resource", () => {
  it("discovers the document, authorizes, and steps up when a tool needs more", async () => {
    const authServer = await MockAuthorizationServer.start();
    cleanups.push(() => authServer.close());
    const mcp = files();
    const verify = (request: Request): AuthInfo | undefined => {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      const issued = authServer.verify(token);
      return issued && { token, clientId: issued.clientId, scopes: issued.scopes };
    };
    const port = await freePort();
    const http = await serveHttp(mcp, {
      port: Number(port),
      protectedResource: {
        resource: `http://127.0.0.1:${port}/mcp`,
        authorizationServers: [authServer.issuer],
        scopesSupported: ["files:read"],
      },
      verifyToken: verify,
      requiredScopes: ({ method, name }) =>
        method === "tools/call" ? (name === "write" ? ["files:write"] : ["files:read"]) : ["files:read"],
    });
    cleanups.push(() => http.close());
    const authProvider = new OAuthClientProvider({
      redirectUri: "http://127.0.0.1:9/cb",
      authorize: consent,
    });
    const client = await Client.connect(new StreamableHttpClientTransport(http.url, { authProvider }));
    cleanups.push(() => client.close());
    expect((await client.callTool("read", {})).content).toEqual([{ type: "text", text: "contents" }]);
    expect((await client.callTool("write", {})).content).toEqual([
      { type: "text", text: "written by client-1" },
    ]);
    expect(authServer.requests("/authorize").map((a) => a.query.scope)).toEqual([
      "files:read",
      "files:read files:write",
    ]);
    expect(authServer.requests("/authorize")[0]?.query.resource).toBe(`http://127.0.0.1:${port}/mcp`);
  });
});
