/**
 * The authorization-code flow split over two requests, as a web app runs it: the request that met
 * the 401 sends the user to the authorization server and ends (its `authorize` throws), and the
 * callback route, in another provider over the same store (another process), completes it.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import {
  OAuthClientProvider,
  OAuthError,
  type OAuthState,
} from "../../../src/transports/http/oauth/index.js";
import { consent, handClock, memoryStore, worldKeeper } from "./world.js";

const REDIRECT = "https://app.example.com/oauth/callback";
const keeper = worldKeeper();
const world = keeper.world;
afterEach(() => {
  vi.restoreAllMocks();
  return keeper.closeAll();
});

/** What a web app's authorize does: remember where the user must go, and end the request. */
class RedirectUser extends Error {
  constructor(readonly to: URL) {
    super("redirect the user to the authorization server");
  }
}

/** A provider as each request of the web app builds it: the same store, an authorize that redirects. */
function webProvider(store: ReturnType<typeof memoryStore>) {
  return new OAuthClientProvider({
    redirectUri: REDIRECT,
    store,
    authorize: async (url) => {
      throw new RedirectUser(url);
    },
  });
}

/** The first request: the connect fails with the app's own error, which carries the consent page. */
async function firstRequest(url: URL, store: ReturnType<typeof memoryStore>): Promise<URL> {
  const error = await Client.connect(url, { http: { authProvider: webProvider(store) } }).catch(
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RedirectUser);
  return (error as RedirectUser).to;
}

/** The user consents; the authorization server sends the browser back to the app's callback. */
async function userConsents(page: URL): Promise<string> {
  return consent(page);
}

async function connected(url: URL, authProvider: OAuthClientProvider) {
  const client = await Client.connect(url, { http: { authProvider } });
  keeper.defer(() => client.close());
  return client;
}

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe("completeAuthorization: the flow over two requests", () => {
  it("the callback route, in another provider over the same store, finishes it; the token works", async () => {
    const { authServer, resource } = await world({}, { challengeScope: "mcp:read" });
    const store = memoryStore();
    const page = await firstRequest(resource.url, store);

    // Before the user left, the store kept what the second half needs, verifier included.
    const pending = store.saved?.pendingAuthorization;
    expect(pending).toMatchObject({
      state: page.searchParams.get("state"),
      redirectUri: REDIRECT,
      resource: resource.url.href,
      scope: "mcp:read",
      server: { issuer: authServer.issuer },
    });
    const codeVerifier = pending?.codeVerifier ?? "";
    expect(createHash("sha256").update(codeVerifier).digest("base64url")).toBe(
      page.searchParams.get("code_challenge"),
    );
    expect((pending?.expiresAt ?? 0) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect((pending?.expiresAt ?? 0) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    expect(authServer.requests("/token")).toHaveLength(0);

    const callback = await userConsents(page);
    const second = webProvider(store);
    await second.completeAuthorization(callback);
    expect(store.saved?.pendingAuthorization).toBeUndefined();
    expect(store.saved?.tokens?.accessToken).toBe(second.tokens?.accessToken);
    const [token] = authServer.requests("/token");
    expect(token?.body).toMatchObject({
      grant_type: "authorization_code",
      code: new URL(callback).searchParams.get("code"),
      code_verifier: codeVerifier,
      redirect_uri: REDIRECT,
      resource: resource.url.href,
    });

    // A third request (a third provider, same store) signs nothing: the stored token is sent.
    const client = await connected(resource.url, webProvider(store));
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 [mcp:read]");
    expect(authServer.requests("/authorize")).toHaveLength(1);
    expect(authServer.requests("/register")).toHaveLength(1);
  });

  it("the provider that finished it refreshes a short-lived token before the next request", async () => {
    const { authServer, resource } = await world({ expiresIn: 10, refreshTokens: true });
    const store = memoryStore();
    const callback = await userConsents(await firstRequest(resource.url, store));
    const second = webProvider(store);
    expect(second.authGrant).toBe(0);
    await second.completeAuthorization(callback);
    expect(second.authGrant).toBe(1);
    const first = second.tokens?.accessToken;
    // Past half of its 10 s lifetime: the first request refreshes rather than re-authorizing.
    handClock().advance(6_000);
    const client = await connected(resource.url, second);
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    const grants = authServer
      .requests("/token")
      .map((entry) => (entry.body as Record<string, string>).grant_type);
    expect(grants.slice(0, 2)).toEqual(["authorization_code", "refresh_token"]);
    expect(second.tokens?.accessToken).not.toBe(first);
    expect(second.authGrant).toBe(1);
    expect(authServer.requests("/authorize")).toHaveLength(1);
    // No request went out bare to meet a 401 first: only the very first one, before signing in.
    expect(resource.posts().filter((post) => post.headers.authorization === undefined)).toHaveLength(1);
  });

  it("also finishes with DPoP-bound tokens: the key made at the exchange is stored with them", async () => {
    const { resource } = await world({ dpop: {} });
    const store = memoryStore();
    const callback = await userConsents(await firstRequest(resource.url, store));
    await webProvider(store).completeAuthorization(new URL(callback));
    expect(store.saved?.tokens?.tokenType).toBe("DPoP");
    expect(store.saved?.dpopKey).toBeDefined();
    const client = await connected(resource.url, webProvider(store));
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
    expect(resource.posts().at(-1)?.headers.authorization).toMatch(/^DPoP /);
  });

  it("without a store, the same provider finishes it (both routes in one process)", async () => {
    const { resource } = await world();
    const provider = new OAuthClientProvider({
      redirectUri: REDIRECT,
      authorize: async (url) => {
        throw new RedirectUser(url);
      },
    });
    const error = await Client.connect(resource.url, { http: { authProvider: provider } }).catch((e) => e);
    await provider.completeAuthorization(await userConsents((error as RedirectUser).to));
    const client = await connected(resource.url, provider);
    expect(textOf(await client.callTool("whoami", {}))).toBe("client-1 []");
  });

  it("a redirect for another request (another state) is refused and leaves the pending one in place", async () => {
    const { authServer, resource } = await world();
    const store = memoryStore();
    const callback = new URL(await userConsents(await firstRequest(resource.url, store)));
    const forged = new URL(callback);
    forged.searchParams.set("state", "attacker-state");
    const second = webProvider(store);
    await expect(second.completeAuthorization(forged)).rejects.toMatchObject({ code: "state_mismatch" });
    expect(store.saved?.pendingAuthorization).toBeDefined();
    expect(authServer.requests("/token")).toHaveLength(0);
    await second.completeAuthorization(callback);
    expect(second.tokens?.accessToken).toMatch(/^at-/);
  });

  it("is used up by its redirect: a replay finds nothing pending and reaches no token endpoint", async () => {
    const { authServer, resource } = await world();
    const store = memoryStore();
    const callback = await userConsents(await firstRequest(resource.url, store));
    await webProvider(store).completeAuthorization(callback);
    const replay = webProvider(store).completeAuthorization(callback);
    await expect(replay).rejects.toThrow(new OAuthError("invalid_callback", "no authorization is pending"));
    expect(authServer.requests("/token")).toHaveLength(1);
  });

  it("an authorization server's refusal in the redirect ends it (access_denied), with nothing exchanged", async () => {
    const { authServer, resource } = await world();
    const store = memoryStore();
    const page = await firstRequest(resource.url, store);
    const denied = new URL(REDIRECT);
    denied.searchParams.set("state", page.searchParams.get("state") ?? "");
    denied.searchParams.set("iss", authServer.issuer); // RFC 9207: error responses carry it too
    denied.searchParams.set("error", "access_denied");
    denied.searchParams.set("error_description", "the user said no");
    await expect(webProvider(store).completeAuthorization(denied)).rejects.toMatchObject({
      code: "access_denied",
      message: "the authorization server refused: the user said no",
    });
    expect(store.saved?.pendingAuthorization).toBeUndefined();
    expect(authServer.requests("/token")).toHaveLength(0);
  });

  it("expires after 10 minutes: refused, dropped, nothing exchanged", async () => {
    const { authServer, resource } = await world();
    const store = memoryStore();
    const callback = await userConsents(await firstRequest(resource.url, store));
    const saved = store.saved as OAuthState & { pendingAuthorization: { expiresAt: number } };
    saved.pendingAuthorization.expiresAt = Date.now() - 1;
    await expect(webProvider(store).completeAuthorization(callback)).rejects.toThrow(
      new OAuthError("invalid_callback", "the pending authorization has expired: sign in again"),
    );
    expect(store.saved?.pendingAuthorization).toBeUndefined();
    expect(authServer.requests("/token")).toHaveLength(0);
  });

  it.each([
    ["nothing was started", undefined],
    ["the stored record is malformed (no verifier)", { state: "s", redirectUri: REDIRECT }],
  ])("refuses when %s", async (_label, pendingAuthorization) => {
    const store = memoryStore();
    store.saved = { clients: [], tokens: undefined, pendingAuthorization } as OAuthState;
    await expect(webProvider(store).completeAuthorization(`${REDIRECT}?code=c&state=s`)).rejects.toThrow(
      new OAuthError("invalid_callback", "no authorization is pending"),
    );
  });

  it("refuses a redirect that is not a URL, keeping nothing", async () => {
    const { resource } = await world();
    const store = memoryStore();
    await firstRequest(resource.url, store);
    await expect(webProvider(store).completeAuthorization("not a url")).rejects.toMatchObject({
      code: "invalid_callback",
    });
    expect(store.saved?.pendingAuthorization).toBeUndefined();
  });

  it("the one-request flow keeps nothing pending once it is over", async () => {
    const { resource } = await world();
    const store = memoryStore();
    const seenWhileAway: unknown[] = [];
    const provider = new OAuthClientProvider({
      redirectUri: REDIRECT,
      store,
      authorize: async (url) => {
        seenWhileAway.push(store.saved?.pendingAuthorization?.state);
        return consent(url);
      },
    });
    await connected(resource.url, provider);
    expect(seenWhileAway).toEqual([expect.any(String)]);
    expect(store.saved?.pendingAuthorization).toBeUndefined();
  });
});
