/**
 * What an OAuthClientProvider reads back from its store is checked, not trusted: the store is a
 * file or a database another version (or a bug) wrote. A field of the wrong type is dropped (an
 * older version's `expiresAt: null` means no known expiry), tokens or a client without what they
 * need are none, and nothing crashes or sends a token the store did not really hold.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { OAuthClientProvider, type OAuthState } from "../../../src/transports/http/oauth/index.js";
import { consent, memoryStore, worldKeeper } from "./world.js";

const keeper = worldKeeper();

afterEach(() => {
  vi.restoreAllMocks();
  return keeper.closeAll();
});

const ISSUER = "https://auth.example";
const request = { method: "POST", url: new URL("https://mcp.example/mcp") };

/** A provider over a store that holds `state` as is. */
function over(state: unknown) {
  const store = memoryStore();
  store.saved = state as OAuthState;
  let asked = 0;
  const oauth = new OAuthClientProvider({
    redirectUri: "http://127.0.0.1:8765/callback",
    authorize: (url) => {
      asked++;
      return consent(url);
    },
    store,
  });
  return { oauth, store, asked: () => asked };
}

describe("OAuthClientProvider: stored tokens", () => {
  it("drops the fields of the wrong type and sends the access token it holds", async () => {
    const { oauth } = over({
      clients: [],
      tokens: {
        issuer: ISSUER,
        accessToken: "at",
        resource: "https://mcp.example/mcp",
        expiresAt: null,
        issuedAt: "yesterday",
        refreshToken: 5,
        requestedScope: ["a"],
        tokenType: "bearer",
        extra: "kept out",
      },
    });
    expect(await oauth.token()).toBe("at");
    expect(oauth.tokens).toStrictEqual({
      issuer: ISSUER,
      accessToken: "at",
      resource: "https://mcp.example/mcp",
    });
    expect(await oauth.headers(request)).toEqual({ token: "at", headers: [["Authorization", "Bearer at"]] });
  });

  it.each<[string, Record<string, unknown>]>([
    ["another server's", { resource: "https://other.example/mcp" }],
    ["a sibling path's", { resource: "https://mcp.example/admin" }],
    ["an unknown resource's (an older version's)", {}],
  ])("presents %s token to no one, leaving it for the 401 to replace", async (_name, extra) => {
    const { oauth } = over({ clients: [], tokens: { issuer: ISSUER, accessToken: "at", ...extra } });
    expect(await oauth.headers(request)).toEqual({ token: undefined, headers: [] });
  });

  it("keeps the fields of the right type", async () => {
    const tokens = {
      issuer: ISSUER,
      accessToken: "at",
      refreshToken: "rt",
      expiresAt: Date.now() + 3_600_000,
      issuedAt: Date.now(),
      requestedScope: "a b",
    };
    const { oauth } = over({ clients: [], tokens });
    expect(await oauth.token()).toBe("at");
    expect(oauth.tokens).toStrictEqual(tokens);
  });

  it("drops an issuedAt of the wrong type next to a usable expiresAt", async () => {
    const expiresAt = Date.now() + 3_600_000;
    const { oauth } = over({
      clients: [],
      tokens: { issuer: ISSUER, accessToken: "at", expiresAt, issuedAt: "x" },
    });
    expect(await oauth.token()).toBe("at");
    expect(oauth.tokens).toStrictEqual({ issuer: ISSUER, accessToken: "at", expiresAt });
  });

  it.each<[string, unknown]>([
    ["null", null],
    ["a string", "at"],
    ["a number", 5],
    ["an array", ["at"]],
    ["an empty object", {}],
    ["no access token", { issuer: ISSUER }],
    ["a numeric access token", { issuer: ISSUER, accessToken: 5 }],
    ["an object as access token", { issuer: ISSUER, accessToken: { value: "at" } }],
    ["an empty access token", { issuer: ISSUER, accessToken: "" }],
    ["an access token with a line break", { issuer: ISSUER, accessToken: "at\r\nX-Injected: 1" }],
    ["no issuer", { accessToken: "at" }],
    ["a numeric issuer", { issuer: 5, accessToken: "at" }],
  ])("reads tokens that are %s as none", async (_name, tokens) => {
    const { oauth } = over({ clients: [], tokens });
    expect(await oauth.token()).toBeUndefined();
    expect(oauth.tokens).toBeUndefined();
    expect(await oauth.headers(request)).toEqual({ token: undefined, headers: [] });
  });

  it.each<[string, unknown]>([
    ["null", null],
    ["a string", "state"],
    ["an array", []],
    ["clients that are no list", { clients: { issuer: ISSUER }, tokens: undefined }],
    ["clients that are garbage", { clients: [null, 5, "c", { issuer: 5, clientId: "c" }], tokens: null }],
  ])("does not crash on a state that is %s", async (_name, state) => {
    const { oauth } = over(state);
    expect(await oauth.token()).toBeUndefined();
  });
});

describe("OAuthClientProvider: stored state on the wire", () => {
  it("never hands one server's token to another server sharing the store", async () => {
    const a = await keeper.world();
    const b = await keeper.world();
    const first = over(undefined);
    const signIn = await Client.connect(
      new StreamableHttpClientTransport(a.resource.url, { authProvider: first.oauth }),
    );
    await signIn.close();
    const tokenOfA = first.store.saved?.tokens?.accessToken;
    expect(tokenOfA).toMatch(/^at-/);

    const { oauth, asked } = over(first.store.saved);
    const client = await Client.connect(
      new StreamableHttpClientTransport(b.resource.url, { authProvider: oauth }),
    );
    keeper.defer(() => client.close());
    const presented = b.resource.posts().map((entry) => entry.headers.authorization);
    expect(presented[0]).toBeUndefined();
    expect(presented.join(" ")).not.toContain(tokenOfA);
    expect(asked()).toBe(1);
    expect(oauth.tokens?.resource).toBe(b.resource.url.href);
  });

  it("sends a token stored with expiresAt null by an older version as is, with no refresh", async () => {
    const { authServer, resource } = await keeper.world({ refreshTokens: true });
    const first = over(undefined);
    const signIn = await Client.connect(
      new StreamableHttpClientTransport(resource.url, { authProvider: first.oauth }),
    );
    await signIn.close();
    const saved = first.store.saved as OAuthState;
    const accessToken = saved.tokens?.accessToken;
    expect(accessToken).toMatch(/^at-/);

    const { oauth, asked } = over({ ...saved, tokens: { ...saved.tokens, expiresAt: null } });
    const posts = resource.posts().length;
    const client = await Client.connect(
      new StreamableHttpClientTransport(resource.url, { authProvider: oauth }),
    );
    keeper.defer(() => client.close());
    const sent = resource.posts().slice(posts);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((entry) => entry.headers.authorization === `Bearer ${accessToken}`)).toBe(true);
    expect(oauth.tokens?.expiresAt).toBeUndefined();
    expect(asked()).toBe(0);
    const grants = authServer.requests("/token").map((t) => (t.body as Record<string, string>).grant_type);
    expect(grants).toEqual(["authorization_code"]);
  });

  it("keeps the usable stored clients, with their fields of the wrong type dropped", async () => {
    const { authServer, resource } = await keeper.world({ clients: { app: undefined } });
    const { oauth, store } = over({
      // The later of two clients for one issuer wins: the unusable ones come last.
      clients: [
        null,
        { issuer: authServer.issuer, clientId: "app", authMethod: "none", clientSecret: 7 },
        { issuer: authServer.issuer, clientId: 7, authMethod: "none" },
        { issuer: authServer.issuer, clientId: "weird", authMethod: "magic" },
      ],
      tokens: undefined,
    });
    const client = await Client.connect(
      new StreamableHttpClientTransport(resource.url, { authProvider: oauth }),
    );
    keeper.defer(() => client.close());
    expect(authServer.requests("/register")).toHaveLength(0);
    expect(authServer.requests("/authorize")[0]?.query.client_id).toBe("app");
    expect(store.saved?.clients).toStrictEqual([
      { issuer: authServer.issuer, clientId: "app", authMethod: "none" },
    ]);
  });
});

describe("OAuthClientProvider: a store that fails to load", () => {
  // Regression: the failed load was kept, so one unreachable store ended the provider for good.
  it("fails the call, and loads again on the next one", async () => {
    const { oauth, store } = over({ clients: [], tokens: { issuer: ISSUER, accessToken: "at" } });
    const load = store.load;
    let failures = 1;
    store.load = () => {
      if (failures-- > 0) throw new Error("the database is restarting");
      return load();
    };
    await expect(oauth.token()).rejects.toThrow("the database is restarting");
    expect(await oauth.token()).toBe("at");
  });
});
