/**
 * One refresh token, one refresh at a time: a 401 met while a request is already renewing an
 * expiring token joins that renewal instead of spending the same (rotating) refresh token again.
 * On loopback with the mock authorization server, which accepts each refresh token once.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { OAuthClientProvider, type OAuthFetch } from "../../../src/transports/http/oauth/index.js";
import { consent, handClock, worldKeeper } from "./world.js";

const keeper = worldKeeper();

afterEach(() => {
  vi.restoreAllMocks();
  return keeper.closeAll();
});

describe("OAuthClientProvider: a 401 during a refresh", () => {
  it("shares the refresh in flight: one refresh grant, and the tokens it brought are kept", async () => {
    const { authServer, resource } = await keeper.world({ expiresIn: 1, refreshTokens: true });
    const clock = handClock();
    // The first refresh grant is held before it reaches the authorization server.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = false;
    const gated: OAuthFetch = async (input, init) => {
      if (!held && String(init.body).includes("grant_type=refresh_token")) {
        held = true;
        await gate;
      }
      return fetch(input, init);
    };
    let consents = 0;
    const oauth = new OAuthClientProvider({
      redirectUri: "http://127.0.0.1:8765/callback",
      authorize: (url) => {
        consents++;
        return consent(url);
      },
      fetch: gated,
    });
    const client = await Client.connect(
      new StreamableHttpClientTransport(resource.url, { authProvider: oauth }),
    );
    keeper.defer(() => client.close());
    const old = oauth.tokens?.accessToken;

    clock.advance(600); // past half of the 1 s lifetime: the next token() refreshes
    const renewing = oauth.token();
    await vi.waitFor(() => expect(held).toBe(true));
    // Meanwhile a request sent with the old token comes back 401.
    const recovering = oauth.unauthorized({
      status: 401,
      wwwAuthenticate: `Bearer resource_metadata="${resource.url.origin}/.well-known/oauth-protected-resource/mcp"`,
      url: resource.url,
      attempt: 1,
      token: old,
    });
    await vi.waitFor(() =>
      expect(authServer.requests("/.well-known/oauth-authorization-server")).toHaveLength(2),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();

    expect(await recovering).toBe(true);
    const renewed = await renewing;
    expect(renewed).toMatch(/^at-/);
    expect(renewed).not.toBe(old);
    expect(oauth.tokens?.accessToken).toBe(renewed);
    const grants = authServer.requests("/token").map((t) => (t.body as Record<string, string>).grant_type);
    expect(grants).toEqual(["authorization_code", "refresh_token"]);
    expect(consents).toBe(1);
  });
});
