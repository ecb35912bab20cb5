/**
 * A refresh that fails: only the authorization server's refusal (RFC 6749 §5.2, a 400 or 401 with an
 * error code) ends the tokens; a failure that may pass (unreachable, timed out, 5xx, a 400 with no
 * OAuth error) keeps them, in memory and in the store, and fails this call with its own error.
 * On loopback with the mock authorization server; the refresh grant's answer is replaced by hand.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { OAuthClientProvider, type OAuthFetch } from "../../../src/transports/http/oauth/index.js";
import { failure } from "./fake-fetch.js";
import { consent, handClock, memoryStore, worldKeeper } from "./world.js";

const keeper = worldKeeper();

afterEach(() => {
  vi.restoreAllMocks();
  return keeper.closeAll();
});

/** What the refresh grant meets instead of the authorization server, while `broken` is set. */
type Breakage = (signal: AbortSignal) => Promise<Response>;

const jsonAnswer = (status: number, body: unknown) => () => Promise.resolve(Response.json(body, { status }));

/** A provider, signed in with a 1 s token and a refresh token, whose refresh grant `broken` replaces. */
async function signedIn() {
  const { authServer, resource } = await keeper.world({ expiresIn: 1, refreshTokens: true });
  const clock = handClock();
  const control = { broken: undefined as Breakage | undefined, consents: 0 };
  const fetching: OAuthFetch = (input, init) => {
    const refresh = String(init.body).includes("grant_type=refresh_token");
    if (refresh && control.broken !== undefined) return control.broken(init.signal as AbortSignal);
    return fetch(input, init);
  };
  const store = memoryStore();
  const oauth = new OAuthClientProvider({
    redirectUri: "http://127.0.0.1:8765/callback",
    authorize: (url) => {
      control.consents++;
      return consent(url);
    },
    fetch: fetching,
    store,
    timeoutMs: 1_000,
  });
  const client = await Client.connect(
    new StreamableHttpClientTransport(resource.url, { authProvider: oauth }),
  );
  keeper.defer(() => client.close());
  clock.advance(600); // past half of the 1 s lifetime: the next token() refreshes
  return { authServer, resource, oauth, store, control, client };
}

describe("OAuthClientProvider: a refresh that fails for now", () => {
  it.each<[string, Breakage, string, string]>([
    [
      "the network fails",
      () => Promise.reject(new TypeError("fetch failed")),
      "token_request_failed",
      "could not reach the token endpoint",
    ],
    [
      "the request times out",
      (signal) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      "token_request_failed",
      "could not reach the token endpoint",
    ],
    [
      "a 503 temporarily_unavailable",
      jsonAnswer(503, { error: "temporarily_unavailable" }),
      "temporarily_unavailable",
      "the token endpoint refused (HTTP 503)",
    ],
    [
      "a 500 with no JSON",
      () => Promise.resolve(new Response("<html>oops</html>", { status: 500 })),
      "token_request_failed",
      "the token endpoint refused (HTTP 500)",
    ],
    [
      "a 400 with no OAuth error",
      jsonAnswer(400, { message: "bad gateway config" }),
      "token_request_failed",
      "the token endpoint refused (HTTP 400)",
    ],
    [
      "a DPoP nonce still asked for",
      jsonAnswer(400, { error: "use_dpop_nonce" }),
      "use_dpop_nonce",
      "the token endpoint refused (HTTP 400)",
    ],
  ])("keeps the tokens and fails the call when %s", async (_name, broken, code, message) => {
    const { authServer, oauth, store, control, client } = await signedIn();
    const before = oauth.tokens;
    expect(before?.refreshToken).toMatch(/^rt-/);
    control.broken = broken;

    const error = await failure(oauth.token());
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(oauth.tokens).toBe(before);
    expect(store.saved?.tokens).toEqual(before);
    // Through the transport, the call fails rather than going out without a token.
    await expect(client.listTools()).rejects.toThrow("The authProvider failed to supply a token");
    expect(oauth.tokens).toBe(before);

    // Once the authorization server answers again, the kept refresh token renews the access token.
    control.broken = undefined;
    expect(await client.listTools()).toHaveProperty("tools");
    expect(oauth.tokens?.accessToken).not.toBe(before?.accessToken);
    expect(control.consents).toBe(1);
    const grants = authServer.requests("/token").map((t) => (t.body as Record<string, string>).grant_type);
    expect(grants).toEqual(["authorization_code", "refresh_token"]);
  });

  it("keeps the tokens when a 401's refresh cannot reach the token endpoint, and asks the user nothing", async () => {
    const { oauth, resource, store, control } = await signedIn();
    const before = oauth.tokens;
    control.broken = () => Promise.reject(new TypeError("fetch failed"));
    const refused = oauth.unauthorized({
      status: 401,
      wwwAuthenticate: `Bearer resource_metadata="${resource.url.origin}/.well-known/oauth-protected-resource/mcp"`,
      url: resource.url,
      attempt: 1,
      token: before?.accessToken,
    });
    const error = await failure(refused);
    expect(error.code).toBe("token_request_failed");
    expect(oauth.tokens).toBe(before);
    expect(store.saved?.tokens).toEqual(before);
    expect(control.consents).toBe(1);
  });
});

describe("OAuthClientProvider: a refresh the authorization server refuses", () => {
  it.each([
    ["400 invalid_grant", 400, "invalid_grant"],
    ["401 invalid_client", 401, "invalid_client"],
  ])("drops the tokens on %s", async (_name, status, error) => {
    const { oauth, store, control } = await signedIn();
    control.broken = jsonAnswer(status, { error });
    expect(await oauth.token()).toBeUndefined();
    expect(oauth.tokens).toBeUndefined();
    expect(store.saved?.tokens).toBeUndefined();
  });
});
