import { generateKeyPairSync } from "node:crypto";
import { afterEach, expect, it } from "vitest";
import { callbackListener, signedInClient } from "../../examples/oauth-client.js";
import { serveNotes } from "../../examples/oauth-server.js";
import { serviceClient } from "../../examples/oauth-service.js";
import { freePort, MockAuthorizationServer, ProtectedMcp } from "../transports/oauth/world.js";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The example notes server on a free loopback port, trusting `authServer`'s tokens; its public URL. */
async function notesFor(authServer: MockAuthorizationServer): Promise<URL> {
  const port = await freePort();
  const publicUrl = new URL(`http://127.0.0.1:${port}/mcp`);
  const http = await serveNotes(publicUrl, authServer.issuer, (token) => {
    const issued = authServer.verify(token);
    return issued && { token, clientId: issued.clientId, scopes: issued.scopes };
  });
  closers.push(() => http.close());
  return publicUrl;
}

it("signs in through the loopback callback and calls the protected tool", async () => {
  const authServer = await MockAuthorizationServer.start({ refreshTokens: true });
  closers.push(() => authServer.close());
  const resource = await ProtectedMcp.start({
    authorizationServer: () => authServer,
    challengeScope: "mcp:tools",
  });
  closers.push(() => resource.close());
  const opened: URL[] = [];
  // The "browser": follows the consent page's redirect, which lands on the example's listener.
  const browser = async (page: URL) => {
    opened.push(page);
    await (await fetch(page)).text();
  };
  const { client, authProvider, close } = await signedInClient(resource.url, browser);
  closers.push(close);
  const result = await client.callTool("whoami", {});
  expect(result.content).toEqual([{ type: "text", text: "client-1 [mcp:tools]" }]);
  expect(opened).toHaveLength(1);
  expect(opened[0]?.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  expect(authProvider.tokens?.refreshToken).toMatch(/^rt-/);
  expect(authServer.requests("/register")[0]?.body).toMatchObject({
    client_name: "roundtrip example",
    application_type: "native",
  });
});

it("the callback listener answers the browser and hands over the full URL", async () => {
  const callback = await callbackListener();
  closers.push(() => callback.close());
  const next = callback.next();
  expect((await fetch(new URL("/favicon.ico", callback.redirectUri))).status).toBe(404);
  const response = await fetch(`${callback.redirectUri}?code=abc&state=xyz`);
  expect(await response.text()).toBe("Signed in. You can close this tab.");
  const url = await next;
  expect(url.searchParams.get("code")).toBe("abc");
  expect(url.href.startsWith(callback.redirectUri)).toBe(true);
});

it("the example client signs in to the example server and steps up to write", async () => {
  const authServer = await MockAuthorizationServer.start();
  closers.push(() => authServer.close());
  const publicUrl = await notesFor(authServer);
  const browser = async (page: URL) => void (await (await fetch(page)).text());
  const { client, close } = await signedInClient(publicUrl, browser);
  closers.push(close);
  expect((await client.callTool("list_notes", {})).content).toEqual([{ type: "text", text: "(none)" }]);
  expect((await client.callTool("add_note", {})).content).toEqual([{ type: "text", text: "added" }]);
  expect((await client.callTool("list_notes", {})).content).toEqual([
    { type: "text", text: "a note from client-1" },
  ]);
  expect(authServer.requests("/authorize").map((a) => a.query.scope)).toEqual([
    "notes:read",
    "notes:read notes:write",
  ]);
});

it("the example service signs in to the example server with its private key", async () => {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const authServer = await MockAuthorizationServer.start({
    authMethods: ["private_key_jwt"],
    assertionKeys: { "nightly-report": publicKey },
  });
  closers.push(() => authServer.close());
  const publicUrl = await notesFor(authServer);
  const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  const client = await serviceClient(publicUrl, authServer.issuer, "nightly-report", pem);
  closers.push(() => client.close());
  expect((await client.callTool("add_note", {})).content).toEqual([{ type: "text", text: "added" }]);
  const grants = authServer
    .requests("/token")
    .map((entry) => (entry.body as Record<string, string>).grant_type);
  expect(grants).toEqual(["client_credentials", "client_credentials"]);
  expect(authServer.requests("/authorize")).toHaveLength(0);
});
