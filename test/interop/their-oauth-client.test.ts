// Interop, authorization: the official TypeScript SDK 2.4.0 client with its own client-credentials
// provider against our endpoint configured as a protected resource (protectedResource, requiredScopes,
// verifyToken), with the mock authorization server of our OAuth tests. Their client must find our
// metadata document from our 401 challenge, get a token bound to our resource, and call the tool.
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { afterEach, expect, it } from "vitest";
import { serveReports } from "../../examples/jwt-server.js";
import { serveHttp } from "../../src/transports/http/node.js";
import { jwtIssuerKey } from "../transports/oauth/jwt-issuer.js";
import { freePort, MockAuthorizationServer, whoamiServer } from "../transports/oauth/world.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** Their client, signing in as "their-bot" with its client-credentials provider, connected to `url`. */
async function theirBot(url: URL, issuer: string): Promise<Client> {
  const client = new Client(
    { name: "their-client", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  const authProvider = new ClientCredentialsProvider({
    clientId: "their-bot",
    clientSecret: "their-secret",
    expectedIssuer: issuer,
  });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider }));
  cleanups.push(() => client.close());
  return client;
}

it("their client-credentials client signs in to our protected resource and calls a scoped tool", async () => {
  const authServer = await MockAuthorizationServer.start({ clients: { "their-bot": "their-secret" } });
  cleanups.push(() => authServer.close());
  const mcp = whoamiServer();
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const http = await serveHttp(mcp, {
    port,
    protectedResource: {
      resource,
      authorizationServers: [authServer.issuer],
      scopesSupported: ["mcp:tools"],
    },
    verifyToken: (request) => {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      const issued = authServer.verify(token);
      return issued && { token, clientId: issued.clientId, scopes: issued.scopes };
    },
    requiredScopes: ({ method }) => (method === "tools/call" ? ["mcp:tools"] : undefined),
  });
  cleanups.push(() => http.close());

  const client = await theirBot(new URL(resource), authServer.issuer);
  const result = await client.callTool({ name: "whoami", arguments: {} });
  expect(result.content).toEqual([{ type: "text", text: "hello their-bot" }]);

  const tokens = authServer.requests("/token").map((entry) => entry.body as Record<string, string>);
  expect(tokens.length).toBeGreaterThanOrEqual(1);
  expect(tokens.every((form) => form.grant_type === "client_credentials")).toBe(true);
  expect(tokens.at(-1)?.resource).toBe(resource);
  expect(tokens.at(-1)?.scope).toBe("mcp:tools");
});

it("their client signs in to our JwtVerifier-protected server with a JWT bound to it", async () => {
  const authServer = await MockAuthorizationServer.start({
    jwtKey: jwtIssuerKey(),
    clients: { "their-bot": "their-secret" },
  });
  cleanups.push(() => authServer.close());
  const publicUrl = new URL(`http://127.0.0.1:${await freePort()}/mcp`);
  const http = await serveReports(publicUrl, authServer.issuer);
  cleanups.push(() => http.close());

  const client = await theirBot(publicUrl, authServer.issuer);
  const result = await client.callTool({ name: "whoami", arguments: {} });
  expect(result.content).toEqual([{ type: "text", text: "their-bot via their-bot [reports:read]" }]);
  expect(authServer.requests("/token").at(-1)?.body).toMatchObject({ resource: publicUrl.href });
});
