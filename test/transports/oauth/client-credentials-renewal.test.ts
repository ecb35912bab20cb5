/**
 * ClientCredentialsProvider renews a token about to expire before sending; a renewal that fails
 * fails the call with its OAuthError, and nothing goes out without a token. A failure that may pass
 * keeps the tokens for the next try; the authorization server's refusal ends them, so the next call
 * starts over from its 401. On loopback with the mock authorization server; the renewal's answer is
 * replaced by hand.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { ClientCredentialsProvider, type OAuthFetch } from "../../../src/transports/http/oauth/index.js";
import { failure } from "./fake-fetch.js";
import { handClock, worldKeeper } from "./world.js";

const keeper = worldKeeper();

afterEach(() => {
  vi.restoreAllMocks();
  return keeper.closeAll();
});

/** A service signed in with a 1 s token, past half its lifetime, whose token requests `broken` answers. */
async function signedIn() {
  const { authServer, resource } = await keeper.world({ clients: { bot: "s" }, expiresIn: 1 });
  const clock = handClock();
  const control = { broken: undefined as (() => Promise<Response>) | undefined, brokenCalls: 0 };
  const fetching: OAuthFetch = (input, init) => {
    if (input.pathname === "/token" && control.broken !== undefined) {
      control.brokenCalls++;
      return control.broken();
    }
    return fetch(input, init);
  };
  const authProvider = new ClientCredentialsProvider({ clientId: "bot", clientSecret: "s", fetch: fetching });
  const client = await Client.connect(new StreamableHttpClientTransport(resource.url, { authProvider }));
  keeper.defer(() => client.close());
  clock.advance(600); // past half of the 1 s lifetime: the next token() renews
  return { authServer, resource, authProvider, control, client };
}

const bearers = (posts: { headers: Record<string, unknown> }[]) =>
  posts.map((entry) => String(entry.headers.authorization).split(" ")[0]);

describe("ClientCredentialsProvider: a renewal that fails", () => {
  it("fails the call for now, sends nothing without a token, and keeps the tokens", async () => {
    const { authServer, resource, authProvider, control, client } = await signedIn();
    const before = authProvider.tokens;
    const posts = resource.posts().length;
    control.broken = () => Promise.reject(new TypeError("fetch failed"));

    const error = await failure(authProvider.token());
    expect([error.code, error.message, error.status]).toEqual([
      "token_request_failed",
      "could not reach the token endpoint",
      undefined,
    ]);
    expect(authProvider.tokens).toBe(before);
    await expect(client.listTools()).rejects.toThrow("The authProvider failed to supply a token");
    expect(resource.posts().length).toBe(posts);

    // Once the authorization server answers again, the next call renews and goes out with the new token.
    control.broken = undefined;
    expect(await client.listTools()).toHaveProperty("tools");
    expect(authProvider.tokens?.accessToken).not.toBe(before?.accessToken);
    expect(bearers(resource.posts().slice(posts))).toEqual(["Bearer"]);
    expect(authServer.requests("/token")).toHaveLength(2);
  });

  it("shares one renewal, and its failure, with a call made while it runs", async () => {
    const { authProvider, control } = await signedIn();
    let answer!: (response: Response) => void;
    control.broken = () => new Promise((resolve) => (answer = resolve));
    const first = failure(authProvider.token());
    await vi.waitFor(() => expect(control.brokenCalls).toBe(1));
    const second = failure(authProvider.token());
    answer(Response.json({ error: "temporarily_unavailable" }, { status: 503 }));
    const errors = await Promise.all([first, second]);
    expect(errors.map((e) => [e.code, e.message, e.status])).toEqual([
      ["temporarily_unavailable", "the token endpoint refused (HTTP 503)", 503],
      ["temporarily_unavailable", "the token endpoint refused (HTTP 503)", 503],
    ]);
    expect(control.brokenCalls).toBe(1);
  });

  it("fails the call on a refusal and ends the tokens: the next call starts over from its 401", async () => {
    const { authServer, resource, authProvider, control, client } = await signedIn();
    const posts = resource.posts().length;
    control.broken = () => Promise.resolve(Response.json({ error: "invalid_client" }, { status: 401 }));

    const error = await failure(authProvider.token());
    expect([error.code, error.message, error.status]).toEqual([
      "invalid_client",
      "the token endpoint refused (HTTP 401)",
      401,
    ]);
    expect(authProvider.tokens).toBeUndefined();
    expect(resource.posts().length).toBe(posts);

    control.broken = undefined;
    expect(await client.listTools()).toHaveProperty("tools");
    // Sent without a token (there is none), refused with 401, signed in again, sent again.
    expect(bearers(resource.posts().slice(posts))).toEqual(["undefined", "Bearer"]);
    expect(authServer.requests("/token")).toHaveLength(2);
  });
});
