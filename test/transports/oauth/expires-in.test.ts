/**
 * A token endpoint's `expires_in` (RFC 6749 §5.1, RECOMMENDED): a lifetime is a finite positive
 * number of seconds, cut to one year; anything else is no known lifetime. Whatever arrives, what the
 * provider keeps survives a JSON store unchanged, so a restarted client goes on with the same token.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import {
  OAuthClientProvider,
  type OAuthState,
  type OAuthTokens,
} from "../../../src/transports/http/oauth/index.js";
import { exchangeCode, freshAccessToken } from "../../../src/transports/http/oauth/token.js";
import { authServerAt, CODE_GRANT, fakeFetch } from "./fake-fetch.js";
import { consent, worldKeeper } from "./world.js";

const NOW = 1_700_000_000_000;
const YEAR_MS = 365 * 24 * 3600 * 1000;
const server = authServerAt("https://auth.example");
const client = { issuer: server.issuer, clientId: "pub", authMethod: "none" as const };
const grant = CODE_GRANT;
const keeper = worldKeeper();

afterEach(() => {
  vi.restoreAllMocks();
  return keeper.closeAll();
});

/** The tokens issued for a token answer whose `expires_in` is the raw JSON text `expiresIn`. */
async function tokensFor(expiresIn: string): Promise<OAuthTokens> {
  const body = `{"access_token":"at","token_type":"Bearer","expires_in":${expiresIn}}`;
  const fake = fakeFetch({
    [server.tokenEndpoint.href]: () =>
      new Response(body, { status: 200, headers: { "content-type": "application/json" } }),
  });
  return exchangeCode(fake.fetch, server, client, grant);
}

describe("expires_in from the token endpoint", () => {
  it.each([
    ["an hour", "3600", NOW + 3_600_000],
    ["a fraction of a second over a minute", "60.5", NOW + 60_500],
    ["exactly a year", "31536000", NOW + YEAR_MS],
    ["a second over a year", "31536001", NOW + YEAR_MS],
    ["1e308 (Infinity once in milliseconds)", "1e308", NOW + YEAR_MS],
  ])("keeps %s as a lifetime of at most a year, intact through JSON", async (_label, raw, expiresAt) => {
    vi.spyOn(Date, "now").mockReturnValue(NOW);
    const tokens = await tokensFor(raw);
    expect(tokens).toStrictEqual({
      issuer: server.issuer,
      accessToken: "at",
      resource: grant.resource,
      expiresAt,
      issuedAt: NOW,
    });
    expect(JSON.parse(JSON.stringify(tokens))).toStrictEqual(tokens);
    expect(freshAccessToken(JSON.parse(JSON.stringify(tokens)))).toBe("at");
  });

  it.each([
    ["Infinity (1e999)", "1e999"],
    ["negative", "-5"],
    ["negative infinity", "-1e999"],
    ["zero", "0"],
    ["a string", '"3600"'],
    ["null", "null"],
    ["an object", '{"seconds":3600}'],
  ])("treats %s as no known lifetime, intact through JSON", async (_label, raw) => {
    vi.spyOn(Date, "now").mockReturnValue(NOW);
    const tokens = await tokensFor(raw);
    expect(tokens).toStrictEqual({ issuer: server.issuer, accessToken: "at", resource: grant.resource });
    expect(JSON.parse(JSON.stringify(tokens))).toStrictEqual(tokens);
  });
});

describe("OAuthClientProvider with a JSON store and an absurd expires_in", () => {
  it("stores a one-year lifetime, and a provider loaded from the store sends the token as is", async () => {
    const { authServer, resource } = await keeper.world({ expiresIn: 1e308 });
    let text: string | undefined;
    const store = {
      load: () => (text === undefined ? undefined : (JSON.parse(text) as OAuthState)),
      save: (state: OAuthState) => {
        text = JSON.stringify(state);
      },
    };
    const connect = async (oauth: OAuthClientProvider) => {
      const mcp = await Client.connect(
        new StreamableHttpClientTransport(resource.url, { authProvider: oauth }),
      );
      keeper.defer(() => mcp.close());
      return mcp;
    };
    const first = new OAuthClientProvider({ redirectUri: grant.redirectUri, authorize: consent, store });
    await connect(first);
    const saved = (JSON.parse(text ?? "{}") as OAuthState).tokens;
    expect(saved?.expiresAt).toBe((saved?.issuedAt ?? Number.NaN) + YEAR_MS);
    expect(saved).toStrictEqual(first.tokens);

    let asked = 0;
    const again = new OAuthClientProvider({
      redirectUri: grant.redirectUri,
      authorize: (url) => {
        asked++;
        return consent(url);
      },
      store,
    });
    expect(await again.token()).toBe(saved?.accessToken);
    const mcp = await connect(again);
    expect(await mcp.listTools()).toHaveProperty("tools");
    expect(asked).toBe(0);
    expect(authServer.requests("/token")).toHaveLength(1);
  });
});
