/**
 * The client credentials grant end to end on loopback: a service signs in as itself with a secret
 * (Basic or post, as the server offers) or a private key (ES256/RS256 assertions the mock verifies
 * with the public key), renews tokens before they expire, and steps up on insufficient_scope.
 */
import { generateKeyPairSync } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import {
  type ClientCredentialsOptions,
  ClientCredentialsProvider,
  importAssertionKey,
  OAuthError,
  signClientAssertion,
} from "../../../src/transports/http/oauth/index.js";
import { handClock, type MockAuthorizationServer, worldKeeper } from "./world.js";

const keeper = worldKeeper();
const world = keeper.world;

afterEach(() => {
  vi.restoreAllMocks();
  return keeper.closeAll();
});

async function connect(url: URL, options: ClientCredentialsOptions) {
  const authProvider = new ClientCredentialsProvider(options);
  const client = await Client.connect(new StreamableHttpClientTransport(url, { authProvider }));
  keeper.defer(() => client.close());
  return { client, authProvider };
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

function forms(authServer: MockAuthorizationServer) {
  return authServer.requests("/token").map((entry) => entry.body as Record<string, string>);
}

function jwtParts(assertion: string) {
  const [header, payload] = assertion
    .split(".")
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, "base64url").toString()));
  return { header, payload };
}

describe("ClientCredentialsProvider", () => {
  it("signs in with a secret over Basic, bound to the resource, with the challenge's scope", async () => {
    const { authServer, resource } = await world(
      { clients: { bot: "bot-secret" } },
      { challengeScope: "reports:read" },
    );
    const { client } = await connect(resource.url, { clientId: "bot", clientSecret: "bot-secret" });
    expect(textOf(await client.callTool("whoami", {}))).toBe("bot [reports:read]");
    const [form] = forms(authServer);
    expect(form).toEqual({
      grant_type: "client_credentials",
      resource: resource.url.href,
      scope: "reports:read",
    });
    expect(authServer.requests("/token")[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from("bot:bot-secret").toString("base64")}`,
    );
    expect(authServer.requests("/authorize")).toHaveLength(0);
    expect(authServer.requests("/register")).toHaveLength(0);
  });

  it("posts the secret where the server offers only client_secret_post", async () => {
    const { authServer, resource } = await world({
      clients: { bot: "bot-secret" },
      authMethods: ["client_secret_post"],
    });
    await connect(resource.url, { clientId: "bot", clientSecret: "bot-secret" });
    const token = authServer.requests("/token")[0];
    expect(token?.headers.authorization).toBeUndefined();
    expect(token?.body).toMatchObject({ client_id: "bot", client_secret: "bot-secret" });
  });

  it.each([
    ["ES256", () => generateKeyPairSync("ec", { namedCurve: "P-256" })],
    ["RS256", () => generateKeyPairSync("rsa", { modulusLength: 2048 })],
  ] as const)("signs in with a %s private key (private_key_jwt)", async (algorithm, generate) => {
    const { publicKey, privateKey } = generate();
    const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const { authServer, resource } = await world({
      authMethods: ["private_key_jwt"],
      assertionKeys: { "signing-bot": publicKey },
    });
    const { client } = await connect(resource.url, {
      clientId: "signing-bot",
      privateKey: pem,
      signingAlgorithm: algorithm,
      keyId: "k1",
    });
    expect(textOf(await client.callTool("whoami", {}))).toBe("signing-bot []");
    const [form] = forms(authServer);
    expect(form?.client_assertion_type).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    expect(form).not.toHaveProperty("client_id");
    const { header, payload } = jwtParts(form?.client_assertion ?? "");
    expect(header).toEqual({ alg: algorithm, typ: "JWT", kid: "k1" });
    expect(payload).toMatchObject({ iss: "signing-bot", sub: "signing-bot", aud: authServer.issuer });
    expect(payload.exp - payload.iat).toBe(60);
    expect(payload.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("refuses a server that does not take private_key_jwt, and a key that is not one", async () => {
    const { resource } = await world({ authMethods: ["client_secret_basic"] });
    const pem = generateKeyPairSync("ec", { namedCurve: "P-256" })
      .privateKey.export({ format: "pem", type: "pkcs8" })
      .toString();
    const refused = await Client.connect(
      new StreamableHttpClientTransport(resource.url, {
        authProvider: new ClientCredentialsProvider({ clientId: "b", privateKey: pem }),
      }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OAuthError);
    expect((refused as OAuthError).code).toBe("unsupported_auth_method");

    const { resource: other } = await world({ authMethods: ["private_key_jwt"] });
    const garbage = "-----BEGIN PRIVATE KEY-----\nTm90IGEga2V5IGF0IGFsbA==\n-----END PRIVATE KEY-----";
    const bad = await Client.connect(
      new StreamableHttpClientTransport(other.url, {
        authProvider: new ClientCredentialsProvider({ clientId: "b", privateKey: garbage }),
      }),
    ).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(TypeError);
    expect((bad as Error).message).toBe("privateKey is not a PKCS #8 ES256 private key");
  });

  it("trades a workload identity JWT with the JWT-bearer grant, read afresh for each token", async () => {
    const platform = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const { authServer, resource } = await world({ workloadIssuerKey: platform.publicKey, expiresIn: 1 });
    const key = await importAssertionKey(
      platform.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
      "ES256",
    );
    let issued = 0;
    const workloadToken = async () => {
      issued++;
      // The platform's JWT: audience the authorization server, subject the workload.
      return signClientAssertion({
        clientId: "ci-job-42",
        audience: authServer.issuer,
        key,
        algorithm: "ES256",
      });
    };
    const clock = handClock();
    const { client } = await connect(resource.url, { clientId: "ci-job-42", workloadToken });
    clock.advance(600);
    expect(textOf(await client.callTool("whoami", {}))).toBe("ci-job-42 []");
    const grants = forms(authServer);
    expect(grants.length).toBeGreaterThanOrEqual(2);
    expect(grants[0]).toMatchObject({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      resource: resource.url.href,
      client_id: "ci-job-42",
    });
    expect(grants[0]?.assertion?.split(".")).toHaveLength(3);
    expect(issued).toBe(grants.length);
    expect(new Set(grants.map((form) => form.assertion)).size).toBe(grants.length);
  });

  it("surfaces a refused workload JWT as the server's error, without trying another grant", async () => {
    const platform = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const { authServer, resource } = await world({ workloadIssuerKey: platform.publicKey });
    const provider = new ClientCredentialsProvider({ clientId: "ci", workloadToken: () => "not.a.jwt" });
    const refused = await Client.connect(
      new StreamableHttpClientTransport(resource.url, { authProvider: provider }),
    ).catch((error: unknown) => error);
    expect((refused as OAuthError).code).toBe("invalid_grant");
    expect((refused as Error).message).not.toContain("not.a.jwt");
    expect(forms(authServer)).toHaveLength(1);
    expect(authServer.requests("/authorize")).toHaveLength(0);
  });

  it("needs a credential, not both a secret and a key, and a client id", () => {
    expect(() => new ClientCredentialsProvider({ clientId: "b" })).toThrow(/give a clientSecret/);
    expect(
      () => new ClientCredentialsProvider({ clientId: "b", clientSecret: "s", privateKey: "k" }),
    ).toThrow(/not both/);
    expect(() => new ClientCredentialsProvider({ clientId: "", clientSecret: "s" })).toThrow(/clientId/);
    // A secret (the client's authentication) with a workload token (the grant) is a valid pair.
    expect(
      () => new ClientCredentialsProvider({ clientId: "b", clientSecret: "s", workloadToken: () => "jwt" }),
    ).not.toThrow();
  });

  it("renews a token about to expire before sending, without a refusal", async () => {
    // A 1 s token is renewed after half its lifetime: 0.6 s later, each request first asks anew.
    const { authServer, resource } = await world({ clients: { bot: "s" }, expiresIn: 1 });
    const clock = handClock();
    const { client } = await connect(resource.url, { clientId: "bot", clientSecret: "s" });
    const refusals = resource.log.length;
    clock.advance(600);
    await client.listTools();
    clock.advance(600);
    await client.callTool("whoami", {});
    expect(forms(authServer).length).toBeGreaterThanOrEqual(3);
    expect(
      resource.log.slice(refusals).every((entry) => entry.headers.authorization?.startsWith("Bearer ")),
    ).toBe(true);
  });

  it("asks again with the union of the scopes on insufficient_scope", async () => {
    const { authServer, resource } = await world(
      { clients: { bot: "s" } },
      {
        challengeScope: "reports:read",
        requiredScopes: (method) => (method === "tools/call" ? ["reports:write"] : []),
      },
    );
    const { client } = await connect(resource.url, { clientId: "bot", clientSecret: "s" });
    expect(textOf(await client.callTool("whoami", {}))).toBe("bot [reports:read reports:write]");
    expect(forms(authServer).map((form) => form.scope)).toEqual([
      "reports:read",
      "reports:read reports:write",
    ]);
  });

  it("sends the credentials only to the issuer they belong to", async () => {
    const { authServer, resource } = await world({ clients: { bot: "s" } });
    const authProvider = new ClientCredentialsProvider({
      clientId: "bot",
      clientSecret: "s",
      issuer: "https://auth.example.com",
    });
    const refused = await Client.connect(
      new StreamableHttpClientTransport(resource.url, { authProvider }),
    ).catch((error: unknown) => error);
    expect((refused as OAuthError).code).toBe("issuer_mismatch");
    expect(authServer.requests("/token")).toHaveLength(0);
  });

  it("without an issuer, trusts the first authorization server and refuses the next one", async () => {
    const bot = { clients: { bot: "bot-secret" } };
    const { second, resource, moveTo } = await keeper.migrating(bot, bot);
    const { client } = await connect(resource.url, { clientId: "bot", clientSecret: "bot-secret" });
    moveTo(second);
    const error = await client.callTool("whoami", {}).catch((e: unknown) => e);
    expect((error as OAuthError).code).toBe("issuer_mismatch");
    expect(second.requests("/token")).toHaveLength(0);
  });

  it("stops before the token endpoint when the resource metadata names another resource", async () => {
    const { authServer, resource } = await world(
      { clients: { bot: "s" } },
      { resource: () => "https://evil.example.com/mcp" },
    );
    const refused = await Client.connect(
      new StreamableHttpClientTransport(resource.url, {
        authProvider: new ClientCredentialsProvider({ clientId: "bot", clientSecret: "s" }),
      }),
    ).catch((error: unknown) => error);
    expect((refused as OAuthError).code).toBe("resource_mismatch");
    expect(authServer.log).toHaveLength(0);
  });
});
