/**
 * Enterprise-managed authorization (SEP-990) end to end on loopback: the user's ID token is
 * exchanged at a mock identity provider for an ID-JAG naming the MCP server's authorization server
 * and resource, which that server accepts with the JWT-bearer grant from the authenticated client.
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import {
  ClientCredentialsProvider,
  idJagFromIdentityProvider,
  importAssertionKey,
  OAuthError,
  signClientAssertion,
} from "../../../src/transports/http/oauth/index.js";
import { worldKeeper } from "./world.js";

const keeper = worldKeeper();
afterEach(() => keeper.closeAll());

const ID_TOKEN = "user-id-token-from-the-enterprise";

async function formOf(req: IncomingMessage): Promise<Record<string, string>> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return Object.fromEntries(new URLSearchParams(text));
}

/** A mock identity provider whose token endpoint exchanges ID_TOKEN for ID-JAGs it signs. */
async function identityProvider(refuse = false) {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const key = await importAssertionKey(
    privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    "ES256",
  );
  const exchanges: Record<string, string>[] = [];
  const server = createServer(async (req, res) => {
    const form = await formOf(req);
    exchanges.push(form);
    const valid =
      form.grant_type === "urn:ietf:params:oauth:grant-type:token-exchange" &&
      form.subject_token === ID_TOKEN &&
      form.subject_token_type === "urn:ietf:params:oauth:token-type:id_token" &&
      form.requested_token_type === "urn:ietf:params:oauth:token-type:id-jag";
    if (refuse || !valid || form.audience === undefined) {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: "invalid_grant" }));
      return;
    }
    // The ID-JAG: audience the authorization server, subject the user.
    const jag = await signClientAssertion({
      clientId: "grace@example.com",
      audience: form.audience,
      key,
      algorithm: "ES256",
    });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        access_token: jag,
        issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
        token_type: "N_A",
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  keeper.defer(() => new Promise((resolve) => server.close(() => resolve())));
  const tokenEndpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return { tokenEndpoint, publicKey, exchanges };
}

describe("idJagFromIdentityProvider with ClientCredentialsProvider", () => {
  it("exchanges the ID token for an ID-JAG for this server, then signs in with it", async () => {
    const idp = await identityProvider();
    const { authServer, resource } = await keeper.world({
      workloadIssuerKey: idp.publicKey,
      clients: { "host-app": "host-secret" },
    });
    const workloadToken = idJagFromIdentityProvider({
      tokenEndpoint: idp.tokenEndpoint,
      idToken: ID_TOKEN,
      clientId: "idp-client",
    });
    const authProvider = new ClientCredentialsProvider({
      clientId: "host-app",
      clientSecret: "host-secret",
      workloadToken,
    });
    const client = await Client.connect(new StreamableHttpClientTransport(resource.url, { authProvider }));
    keeper.defer(() => client.close());
    const result = await client.callTool("whoami", {});
    expect(result.content).toEqual([{ type: "text", text: "host-app []" }]);
    expect(idp.exchanges[0]).toMatchObject({
      audience: authServer.issuer,
      resource: resource.url.href,
      client_id: "idp-client",
    });
    const grant = authServer.requests("/token")[0];
    expect(grant?.body).toMatchObject({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      resource: resource.url.href,
    });
    expect(grant?.headers.authorization).toBe(
      `Basic ${Buffer.from("host-app:host-secret").toString("base64")}`,
    );
  });

  it("stops at the identity provider's refusal, with its code, before the authorization server", async () => {
    const idp = await identityProvider(true);
    const { authServer, resource } = await keeper.world({
      workloadIssuerKey: idp.publicKey,
      clients: { h: "s" },
    });
    const workloadToken = idJagFromIdentityProvider({
      tokenEndpoint: idp.tokenEndpoint,
      idToken: () => ID_TOKEN,
      clientId: "c",
    });
    const authProvider = new ClientCredentialsProvider({ clientId: "h", clientSecret: "s", workloadToken });
    const refused = await Client.connect(
      new StreamableHttpClientTransport(resource.url, { authProvider }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OAuthError);
    expect((refused as OAuthError).code).toBe("invalid_grant");
    expect((refused as Error).message).not.toContain(ID_TOKEN);
    expect(authServer.requests("/token")).toHaveLength(0);
  });

  it("refuses an identity provider that is neither HTTPS nor local", () => {
    expect(() =>
      idJagFromIdentityProvider({
        tokenEndpoint: "http://idp.example.com/token",
        idToken: "t",
        clientId: "c",
      }),
    ).toThrow(TypeError);
  });
});
