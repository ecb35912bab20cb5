/**
 * The OAuth client end to end on loopback: our Client over Streamable HTTP, a mock authorization
 * server and our MCPServer behind a bearer gate (world.ts). Each test asserts the wire the
 * authorization server and the resource saw, not only that the call worked.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { HttpStatusError } from "../../../src/transports/http/errors.js";
import { type OAuthClientOptions, OAuthClientProvider } from "../../../src/transports/http/oauth/index.js";
import { consent, handClock, memoryStore, worldKeeper } from "./world.js";

const REDIRECT = "http://127.0.0.1:8765/callback";
const keeper = worldKeeper();
const world = keeper.world;

afterEach(() => {
  vi.restoreAllMocks();
  return keeper.closeAll();
});

function provider(options: Partial<OAuthClientOptions> = {}) {
  return new OAuthClientProvider({ redirectUri: REDIRECT, authorize: consent, ...options });
}

async function connect(url: URL, authProvider: OAuthClientProvider, mode?: "legacy") {
  const client = await Client.connect(
    new StreamableHttpClientTransport(url, { authProvider }),
    mode ? { mode } : {},
  );
  keeper.defer(() => client.close());
  return client;
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

describe("OAuthClientProvider: the authorization-code flow", () => {
  it("discovers, registers, authorizes with PKCE and resource, then retries with the token", async () => {
    const { authServer, resource } = await world({}, { challengeScope: "mcp:read" });
    const oauth = provider();
    const client = await connect(resource.url, oauth);
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 [mcp:read]");

    const paths = resource.log.map((entry) => `${entry.method} ${entry.path}`);
    expect(paths.slice(0, 3)).toEqual([
      "POST /mcp",
      "GET /.well-known/oauth-protected-resource/mcp",
      "POST /mcp",
    ]);
    expect(resource.posts()[0]?.headers.authorization).toBeUndefined();
    expect(resource.posts()[1]?.headers.authorization).toBe(`Bearer ${oauth.tokens?.accessToken}`);

    const [registration] = authServer.requests("/register");
    expect(registration?.body).toEqual({
      client_name: "roundtrip-mcp client",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
      application_type: "native",
    });
    const [authorize] = authServer.requests("/authorize");
    expect(authorize?.query).toMatchObject({
      response_type: "code",
      client_id: "client-1",
      redirect_uri: REDIRECT,
      code_challenge_method: "S256",
      resource: resource.url.href,
      scope: "mcp:read",
    });
    const [token] = authServer.requests("/token");
    const form = token?.body as Record<string, string>;
    expect(form).toMatchObject({
      grant_type: "authorization_code",
      redirect_uri: REDIRECT,
      resource: resource.url.href,
    });
    expect(
      createHash("sha256")
        .update(form.code_verifier ?? "")
        .digest("base64url"),
    ).toBe(authorize?.query.code_challenge);
    expect(form.client_id).toBeUndefined();
    expect(token?.headers.authorization).toBe(`Basic ${Buffer.from("client-1:secret-1").toString("base64")}`);
    expect(authServer.log.filter((entry) => entry.path === "/authorize")).toHaveLength(1);
  });

  it("authorizes the 2025 (legacy) wire the same way", async () => {
    const { authServer, resource } = await world();
    const client = await connect(resource.url, provider(), "legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    expect(authServer.requests("/authorize")).toHaveLength(1);
    expect(resource.posts()[0]?.headers["mcp-session-id"]).toBeUndefined();
    expect(resource.posts().at(-1)?.headers.authorization).toMatch(/^Bearer at-/);
  });

  it("asks for the resource's scopes_supported, plus offline_access when the server lists it", async () => {
    const { authServer, resource } = await world(
      { scopesSupported: ["files:read", "offline_access"] },
      { scopesSupported: ["files:read", "files:write"] },
    );
    await connect(resource.url, provider());
    expect(authServer.requests("/authorize")[0]?.query.scope).toBe("files:read files:write offline_access");
  });

  it("omits scope when neither the challenge nor the resource names any, and offline_access when asked not to", async () => {
    const { authServer, resource } = await world({ scopesSupported: ["offline_access"] });
    await connect(resource.url, provider({ offlineAccess: false }));
    expect(authServer.requests("/authorize")[0]?.query).not.toHaveProperty("scope");
  });

  it("falls back to the well-known PRM URL when the challenge names none", async () => {
    const { resource } = await world({}, { advertiseMetadata: false });
    const client = await connect(resource.url, provider());
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    expect(resource.log[1]?.path).toBe("/.well-known/oauth-protected-resource/mcp");
  });

  it("uses the Client ID Metadata Document URL where the server supports it, without registering", async () => {
    const { authServer, resource } = await world({ cimd: true });
    const url = "https://app.example.com/oauth/client.json";
    const client = await connect(resource.url, provider({ clientMetadataUrl: url }));
    expect(textOf(await client.callTool("whoami", {}))).toBe(`${url} []`);
    expect(authServer.requests("/register")).toHaveLength(0);
    expect(authServer.requests("/token")[0]?.body).toMatchObject({ client_id: url });
  });

  it("uses a pre-registered client with the method the server supports", async () => {
    const { authServer, resource } = await world({
      registration: false,
      authMethods: ["client_secret_post"],
      clients: { "pre-1": "pre-secret" },
    });
    const client = await connect(
      resource.url,
      provider({ client: { clientId: "pre-1", clientSecret: "pre-secret" } }),
    );
    expect(textOf(await client.callTool("whoami", {}))).toBe("pre-1 []");
    const form = authServer.requests("/token")[0]?.body as Record<string, string>;
    expect(form).toMatchObject({ client_id: "pre-1", client_secret: "pre-secret" });
  });

  it("registers as a public client when the server only supports none", async () => {
    const { authServer, resource } = await world({ authMethods: ["none"] });
    await connect(resource.url, provider());
    const token = authServer.requests("/token")[0];
    expect(token?.headers.authorization).toBeUndefined();
    expect(token?.body).toMatchObject({ client_id: "client-1" });
    expect(token?.body).not.toHaveProperty("client_secret");
  });

  it("follows an issuer with a path to its path-based metadata", async () => {
    const { authServer, resource } = await world({ prefix: "/tenant1" });
    const client = await connect(resource.url, provider());
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    expect(authServer.log[0]?.path).toBe("/.well-known/oauth-authorization-server/tenant1");
    expect(authServer.requests("/authorize")).toHaveLength(1);
  });
});

describe("OAuthClientProvider: tokens over time", () => {
  it("refreshes a token about to expire before sending, with resource, and follows rotated refresh tokens", async () => {
    // A 1 s token is renewed after half its lifetime: each request, 0.6 s after the last token,
    // first refreshes. The mock accepts each refresh token once, so a reused one would fail and
    // force a second authorization.
    const { authServer, resource } = await world({ expiresIn: 1, refreshTokens: true });
    const clock = handClock();
    const client = await connect(resource.url, provider());
    clock.advance(600);
    await client.listTools();
    clock.advance(600);
    await client.callTool("whoami", {});
    const refreshes = authServer
      .requests("/token")
      .map((t) => t.body as Record<string, string>)
      .filter((form) => form.grant_type === "refresh_token");
    expect(refreshes.length).toBeGreaterThanOrEqual(2);
    for (const form of refreshes) expect(form.resource).toBe(resource.url.href);
    expect(new Set(refreshes.map((form) => form.refresh_token)).size).toBe(refreshes.length);
    expect(authServer.requests("/authorize")).toHaveLength(1);
  });

  it("on a 401 for a revoked token, refreshes once instead of asking the user again", async () => {
    const { authServer, resource } = await world({ refreshTokens: true });
    const oauth = provider();
    const client = await connect(resource.url, oauth);
    expect(oauth.authGrant).toBe(1);
    authServer.revokeAccessTokens();
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    // A refresh of the same grant: the client's cached private results stay.
    expect(oauth.authGrant).toBe(1);
    expect(authServer.requests("/authorize")).toHaveLength(1);
    expect(authServer.requests("/token").map((t) => (t.body as Record<string, string>).grant_type)).toEqual([
      "authorization_code",
      "refresh_token",
    ]);
  });

  it("runs a new authorization when the refresh is refused", async () => {
    const { authServer, resource } = await world({ refreshTokens: true, refuseRefresh: true });
    const oauth = provider();
    const client = await connect(resource.url, oauth);
    authServer.revokeAccessTokens();
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    // A new sign-in, perhaps as another user: the client drops its cached private results.
    expect(oauth.authGrant).toBe(2);
    expect(authServer.requests("/authorize")).toHaveLength(2);
    expect(authServer.requests("/register")).toHaveLength(1);
  });

  it("shares one authorization between requests refused at the same time", async () => {
    const { authServer, resource } = await world();
    const client = await connect(resource.url, provider());
    authServer.revokeAccessTokens();
    const results = await Promise.all([
      client.callTool("whoami", {}),
      client.listTools(),
      client.callTool("whoami", {}),
    ]);
    expect(results).toHaveLength(3);
    expect(authServer.requests("/authorize")).toHaveLength(2);
  });

  it("makes a request issued during an authorization wait for its token", async () => {
    const { authServer, resource } = await world();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const oauth = provider({
      authorize: async (url) => {
        await held;
        return consent(url);
      },
    });
    const recovering = oauth.unauthorized({
      status: 401,
      wwwAuthenticate: undefined,
      url: resource.url,
      attempt: 1,
      token: undefined,
    });
    let handedOut: string | undefined = "not yet";
    const asking = oauth.token().then((token) => {
      handedOut = token;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handedOut).toBe("not yet");
    release();
    expect(await recovering).toBe(true);
    await asking;
    expect(handedOut).toBe(oauth.tokens?.accessToken);
    expect(handedOut).toMatch(/^at-/);
    expect(authServer.requests("/authorize")).toHaveLength(1);
  });

  it("answers a refusal of a token it has already replaced with a plain retry", async () => {
    const { authServer, resource } = await world();
    const oauth = provider();
    await connect(resource.url, oauth);
    const before = authServer.log.length;
    const late = { status: 401 as const, wwwAuthenticate: "Bearer", url: resource.url, attempt: 1 };
    expect(await oauth.unauthorized({ ...late, token: "at-replaced-long-ago" })).toBe(true);
    expect(authServer.log).toHaveLength(before);
    expect(resource.log.filter((entry) => entry.method === "GET")).toHaveLength(1);
  });

  it("after a restart, refreshes an expired token from the store instead of asking the user", async () => {
    const { authServer, resource } = await world({ refreshTokens: true });
    const store = memoryStore();
    await connect(resource.url, provider({ store }));
    const saved = store.saved?.tokens;
    expect(saved?.refreshToken).toMatch(/^rt-/);
    store.saved = {
      clients: store.saved?.clients ?? [],
      tokens: { ...saved!, expiresAt: Date.now() - 1_000 },
    };
    authServer.revokeAccessTokens();

    let asked = 0;
    const restarted = provider({
      store,
      authorize: async (url) => {
        asked++;
        return consent(url);
      },
    });
    const client = await connect(resource.url, restarted);
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    expect(asked).toBe(0);
    const grants = authServer.requests("/token").map((t) => (t.body as Record<string, string>).grant_type);
    expect(grants).toEqual(["authorization_code", "refresh_token"]);
  });

  it("saves its state to the store, and a provider loaded from it needs no user and no registration", async () => {
    const { authServer, resource } = await world();
    const store = memoryStore();
    await connect(resource.url, provider({ store }));
    expect(store.saved?.clients.map((c) => c.clientId)).toEqual(["client-1"]);
    expect(store.saved?.tokens?.accessToken).toMatch(/^at-/);

    let asked = 0;
    const again = provider({
      store,
      authorize: async (url) => {
        asked++;
        return consent(url);
      },
    });
    const client = await connect(resource.url, again);
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    expect(asked).toBe(0);
    expect(authServer.requests("/register")).toHaveLength(1);
  });
});

describe("OAuthClientProvider: a pre-registered client stays with its server", () => {
  it("after a restart from the store, never presents it to the server the resource moved to", async () => {
    const { first, second, resource, moveTo } = await keeper.migrating({
      clients: { "pre-1": "pre-secret" },
    });
    const store = memoryStore();
    const client = { clientId: "pre-1", clientSecret: "pre-secret" };
    await connect(resource.url, provider({ client, store }));
    expect(store.saved?.clients.map((c) => [c.issuer, c.clientId])).toEqual([[first.issuer, "pre-1"]]);

    moveTo(second);
    const restarted = await connect(resource.url, provider({ client, store }));
    expect(textOf(await restarted.callTool("whoami", {}))).toBe("client-1 []");
    const presented = second.log.map((entry) =>
      JSON.stringify([entry.query, entry.body, entry.headers.authorization]),
    );
    expect(presented.join(" ")).not.toContain("pre-1");
    expect(second.requests("/register")).toHaveLength(1);
  });
});

describe("OAuthClientProvider: step-up and limits", () => {
  it("re-authorizes on 403 insufficient_scope with the union of the scopes", async () => {
    const { authServer, resource } = await world(
      {},
      {
        challengeScope: "mcp:read",
        requiredScopes: (method) => (method === "tools/call" ? ["mcp:write"] : []),
      },
    );
    const client = await connect(resource.url, provider());
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 [mcp:read mcp:write]");
    expect(authServer.requests("/authorize").map((a) => a.query.scope)).toEqual([
      "mcp:read",
      "mcp:read mcp:write",
    ]);
  });

  it("gives up after three authorizations when the resource keeps refusing, with the 403", async () => {
    const { authServer, resource } = await world(
      { grantable: [] },
      { challengeScope: "mcp:admin", requiredScopes: () => ["mcp:admin"] },
    );
    const refused = await Client.connect(
      new StreamableHttpClientTransport(resource.url, { authProvider: provider() }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpStatusError);
    expect((refused as HttpStatusError).status).toBe(403);
    expect(authServer.requests("/authorize")).toHaveLength(3);
  });

  it("does not re-authorize on a 403 that is not insufficient_scope", async () => {
    const { authServer, resource } = await world();
    const oauth = provider();
    const client = await connect(resource.url, oauth);
    const answer = await oauth.unauthorized({
      status: 403,
      wwwAuthenticate: 'Bearer error="invalid_request"',
      url: resource.url,
      attempt: 1,
      token: oauth.tokens?.accessToken,
    });
    expect(answer).toBe(false);
    expect(authServer.requests("/authorize")).toHaveLength(1);
    await client.listTools();
  });

  it("registers anew when the resource moves to another authorization server, never reusing the old client", async () => {
    const { first, second, resource, moveTo } = await keeper.migrating({
      clients: { "pre-1": "pre-secret" },
    });
    const client = await connect(
      resource.url,
      provider({ client: { clientId: "pre-1", clientSecret: "pre-secret" } }),
    );
    expect(textOf(await client.callTool("whoami", {}))).toBe("pre-1 []");
    expect(first.requests("/register")).toHaveLength(0);
    moveTo(second);
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    expect(second.requests("/register")).toHaveLength(1);
    const presented = second.log.flatMap((entry) => [
      entry.query.client_id,
      (entry.body as Record<string, string> | undefined)?.client_id,
      entry.headers.authorization,
    ]);
    expect(presented).toContain("client-1");
    expect(presented.join(" ")).not.toContain("pre-1");
    expect(presented.join(" ")).not.toContain(Buffer.from("pre-1:pre-secret").toString("base64"));
  });
});
