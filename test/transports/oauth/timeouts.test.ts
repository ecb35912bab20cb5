/**
 * Every request the OAuth clients send is bounded by `timeoutMs`: an authorization server that
 * accepts the connection and never answers fails the step with its code (on real loopback sockets,
 * with the global fetch), instead of holding the sign-in for as long as the connection stays open.
 */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import type { OAuthFetch } from "../../../src/transports/http/oauth/discovery.js";
import {
  ClientCredentialsProvider,
  idJagFromIdentityProvider,
  OAuthClientProvider,
  OAuthError,
} from "../../../src/transports/http/oauth/index.js";
import { listen } from "./auth-server.js";
import { consent, worldKeeper } from "./world.js";

const keeper = worldKeeper();
const world = keeper.world;
const silent: Server[] = [];

afterEach(async () => {
  for (const server of silent.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await keeper.closeAll();
});

/** A fetch that sends the token requests to a server that never answers, and the rest where they go. */
async function tokenEndpointNeverAnswers(): Promise<OAuthFetch> {
  const server = createServer(() => {});
  silent.push(server);
  const port = await listen(server);
  return (input, init) =>
    input.pathname.endsWith("/token") ? fetch(`http://127.0.0.1:${port}/token`, init) : fetch(input, init);
}

async function connectError(url: URL, authProvider: OAuthClientProvider | ClientCredentialsProvider) {
  return Client.connect(new StreamableHttpClientTransport(url, { authProvider })).then(
    async (client) => {
      await client.close();
      return "connected";
    },
    (error: unknown) => error,
  );
}

describe("OAuth client requests are bounded by timeoutMs", () => {
  it("OAuthClientProvider: a token endpoint that never answers fails the sign-in with token_request_failed", async () => {
    const { resource } = await world();
    const authProvider = new OAuthClientProvider({
      redirectUri: "http://127.0.0.1:8765/callback",
      authorize: consent,
      fetch: await tokenEndpointNeverAnswers(),
      timeoutMs: 200,
    });
    const error = await connectError(resource.url, authProvider);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({
      code: "token_request_failed",
      message: "could not reach the token endpoint",
    });
  });

  it("ClientCredentialsProvider: the same, for the client credentials grant", async () => {
    const { resource } = await world({ clients: { bot: "bot-secret" } });
    const authProvider = new ClientCredentialsProvider({
      clientId: "bot",
      clientSecret: "bot-secret",
      fetch: await tokenEndpointNeverAnswers(),
      timeoutMs: 200,
    });
    const error = await connectError(resource.url, authProvider);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ code: "token_request_failed" });
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])(
    "refuses timeoutMs %s at construction",
    (timeoutMs) => {
      const message = `timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`;
      expect(
        () =>
          new OAuthClientProvider({
            redirectUri: "http://127.0.0.1:8765/callback",
            authorize: consent,
            timeoutMs,
          }),
      ).toThrow(new RangeError(message));
      expect(() => new ClientCredentialsProvider({ clientId: "bot", clientSecret: "s", timeoutMs })).toThrow(
        new RangeError(message),
      );
      expect(() =>
        idJagFromIdentityProvider({
          tokenEndpoint: "https://idp.example.com/token",
          idToken: "id",
          clientId: "app",
          timeoutMs,
        }),
      ).toThrow(new RangeError(message));
    },
  );
});
