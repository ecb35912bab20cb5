/**
 * A client whose method is `client_secret_basic` or `client_secret_post` but that has no secret is
 * refused, never sent as a public client (only `client_id`): at construction when it is configured,
 * and before any token request for one read back from a store.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import {
  type OAuthClientOptions,
  OAuthClientProvider,
  OAuthError,
} from "../../../src/transports/http/oauth/index.js";
import {
  clientCredentialsTokens,
  exchangeCode,
  type OAuthClientInformation,
  refreshTokens,
} from "../../../src/transports/http/oauth/token.js";
import { authServerAt, failure, fakeFetch } from "./fake-fetch.js";
import { consent, memoryStore, worldKeeper } from "./world.js";

const keeper = worldKeeper();
afterEach(() => keeper.closeAll());

const server = authServerAt("https://auth.example");
const redirectUri = "http://127.0.0.1:8080/callback";
const resource = "https://mcp.example/mcp";
const noSecret = (method: string) =>
  `the client authenticates with ${method} but it has no client secret: nothing was sent`;

describe("a confidential client without a secret", () => {
  it.each(["client_secret_basic", "client_secret_post"] as const)(
    "is refused at construction with authMethod %s",
    (authMethod) => {
      const make = (client: OAuthClientOptions["client"]) =>
        new OAuthClientProvider({ redirectUri, authorize: async (url) => url, client });
      expect(() => make({ clientId: "app", authMethod })).toThrow(
        new TypeError(`client.authMethod "${authMethod}" needs a client.clientSecret`),
      );
      expect(() => make({ clientId: "app", authMethod, clientSecret: "s" })).not.toThrow();
      expect(() => make({ clientId: "app", authMethod: "none" })).not.toThrow();
    },
  );

  it.each<unknown>(["client_secret_jwt", "tls_client_auth", "", 5, null])(
    "refuses an authMethod it does not know (%j) at construction, with or without a secret",
    (authMethod) => {
      for (const clientSecret of [undefined, "s"]) {
        const client = { clientId: "app", clientSecret, authMethod } as OAuthClientOptions["client"];
        expect(() => new OAuthClientProvider({ redirectUri, authorize: async (url) => url, client })).toThrow(
          new TypeError("client.authMethod must be one of client_secret_basic, client_secret_post, none"),
        );
      }
    },
  );

  it.each(["client_secret_basic", "client_secret_post"] as const)(
    "sends no token request with authMethod %s",
    async (authMethod) => {
      const fake = fakeFetch({
        [server.tokenEndpoint.href]: { body: { access_token: "at", token_type: "Bearer" } },
      });
      // A store's null where the secret should be is no secret either.
      for (const clientSecret of [undefined, null]) {
        const client = {
          issuer: server.issuer,
          clientId: "app",
          authMethod,
          clientSecret,
        } as OAuthClientInformation;
        const grant = { code: "C", verifier: "V", redirectUri, resource, scope: undefined };
        const tokens = { issuer: server.issuer, accessToken: "old", refreshToken: "rt" };
        const cc = { resource, scope: undefined, assertion: undefined };
        for (const request of [
          exchangeCode(fake.fetch, server, client, grant),
          refreshTokens(fake.fetch, server, client, tokens, resource),
          clientCredentialsTokens(fake.fetch, server, client, cc),
        ]) {
          const error = await failure(request);
          expect([error.code, error.message, error.status]).toEqual([
            "unsupported_auth_method",
            noSecret(authMethod),
            undefined,
          ]);
        }
      }
      expect(fake.calls).toEqual([]);
    },
  );

  it("read back from a store, reaches no token endpoint", async () => {
    const { authServer, resource: mcp } = await keeper.world({ clients: { app: "secret" } });
    const store = memoryStore();
    store.saved = {
      clients: [{ issuer: authServer.issuer, clientId: "app", authMethod: "client_secret_post" }],
      tokens: undefined,
    };
    const oauth = new OAuthClientProvider({ redirectUri, authorize: consent, store });
    const refused = await Client.connect(
      new StreamableHttpClientTransport(mcp.url, { authProvider: oauth }),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OAuthError);
    expect((refused as OAuthError).message).toBe(noSecret("client_secret_post"));
    expect(authServer.requests("/token")).toEqual([]);
    expect(oauth.tokens).toBeUndefined();
  });
});
