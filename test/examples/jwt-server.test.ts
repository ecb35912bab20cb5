// examples/jwt-server.ts on real loopback sockets: the mock authorization server signs JWT access
// tokens for the resource each client names, and our client signs in with client credentials.
import { afterEach, expect, it } from "vitest";
import { serveReports } from "../../examples/jwt-server.js";
import { Client } from "../../src/client/index.js";
import { ClientCredentialsProvider } from "../../src/transports/http/oauth/index.js";
import { jwtIssuerKey } from "../transports/oauth/jwt-issuer.js";
import { freePort, MockAuthorizationServer } from "../transports/oauth/world.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function world() {
  const authServer = await MockAuthorizationServer.start({
    jwtKey: jwtIssuerKey(),
    clients: { "nightly-job": "job-secret", "other-job": "other-secret" },
  });
  closers.push(() => authServer.close());
  const publicUrl = new URL(`http://127.0.0.1:${await freePort()}/mcp`);
  const http = await serveReports(publicUrl, authServer.issuer);
  closers.push(() => http.close());
  return { authServer, publicUrl };
}

it("accepts a JWT the issuer signed for this server, and hands the handler its claims", async () => {
  const { authServer, publicUrl } = await world();
  const authProvider = new ClientCredentialsProvider({ clientId: "nightly-job", clientSecret: "job-secret" });
  const client = await Client.connect(publicUrl, { http: { authProvider } });
  closers.push(() => client.close());
  const result = await client.callTool("whoami", {});
  expect(result.content).toEqual([{ type: "text", text: "nightly-job via nightly-job [reports:read]" }]);
  const token = authServer.requests("/token").at(-1)?.body as Record<string, string>;
  expect(token.resource).toBe(publicUrl.href);
  // The verifier found the key set through the issuer's metadata (the example names no jwksUri).
  expect(authServer.requests("/jwks")).toHaveLength(1);
});

it("refuses a JWT the same issuer signed for another server: 401 invalid_token", async () => {
  const { publicUrl } = await world();
  const elsewhere = await world();
  const authProvider = new ClientCredentialsProvider({ clientId: "nightly-job", clientSecret: "job-secret" });
  const client = await Client.connect(elsewhere.publicUrl, { http: { authProvider } });
  closers.push(() => client.close());
  // A valid token, minted for the other server.
  const foreign = await authProvider.token();
  expect(foreign).toMatch(/^ey/);
  const response = await fetch(publicUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${foreign}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
  });
  expect(response.status).toBe(401);
  expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
  await response.body?.cancel();
});
