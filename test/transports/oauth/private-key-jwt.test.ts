/**
 * `private_key_jwt` needs a signed client assertion (RFC 7523 §2.2). OAuthClientProvider holds no key,
 * so it refuses that method up front, and no token request of that method ever goes out without
 * an assertion: it would reach the token endpoint with no client authentication at all.
 */
import { describe, expect, it } from "vitest";
import { type OAuthClientOptions, OAuthClientProvider } from "../../../src/transports/http/oauth/index.js";
import {
  exchangeCode,
  type OAuthClientInformation,
  refreshTokens,
} from "../../../src/transports/http/oauth/token.js";
import { authServerAt, CODE_GRANT, failure, fakeFetch } from "./fake-fetch.js";

const server = authServerAt("https://auth.example");
const keyClient: OAuthClientInformation = {
  issuer: server.issuer,
  clientId: "app",
  authMethod: "private_key_jwt",
};
const grant = CODE_GRANT;
const NO_ASSERTION =
  "the client authenticates with private_key_jwt but no client assertion was made: nothing was sent";

describe("OAuthClientProvider and private_key_jwt", () => {
  it("refuses the method at construction, naming the provider that signs", () => {
    const client = {
      clientId: "app",
      authMethod: "private_key_jwt",
    } as unknown as OAuthClientOptions["client"];
    expect(
      () =>
        new OAuthClientProvider({ redirectUri: grant.redirectUri, authorize: async (url) => url, client }),
    ).toThrow(
      new TypeError(
        'OAuthClientProvider cannot sign client assertions, so client.authMethod "private_key_jwt" is refused: ClientCredentialsProvider signs them with its privateKey',
      ),
    );
  });

  it("sends no code exchange or refresh for a private_key_jwt client without an assertion", async () => {
    const fake = fakeFetch({
      [server.tokenEndpoint.href]: { body: { access_token: "at", token_type: "Bearer" } },
    });
    const exchange = await failure(exchangeCode(fake.fetch, server, keyClient, grant));
    expect([exchange.code, exchange.message]).toEqual(["unsupported_auth_method", NO_ASSERTION]);
    const tokens = { issuer: server.issuer, accessToken: "old", refreshToken: "rt" };
    const refresh = await failure(refreshTokens(fake.fetch, server, keyClient, tokens, grant.resource));
    expect([refresh.code, refresh.message]).toEqual(["unsupported_auth_method", NO_ASSERTION]);
    expect(fake.calls).toEqual([]);
  });
});
