/**
 * Where the OAuth client must stop, end to end on loopback: every refusal names its reason in an
 * OAuthError, nothing is sent past the check that failed (no code goes to a token endpoint after a
 * bad redirect), and no secret reaches an error message.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { HttpTransportError } from "../../../src/transports/http/errors.js";
import { LegacyHttpClientTransport } from "../../../src/transports/http/legacy-client.js";
import {
  type OAuthClientOptions,
  OAuthClientProvider,
  OAuthError,
} from "../../../src/transports/http/oauth/index.js";
import { consent, ProtectedMcp, worldKeeper } from "./world.js";

const REDIRECT = "http://127.0.0.1:8765/callback";
const keeper = worldKeeper();
const world = keeper.world;

afterEach(() => keeper.closeAll());

/** Connects with an OAuth provider and returns what connect rejected with. */
async function refusal(url: URL, options: Partial<OAuthClientOptions> = {}): Promise<unknown> {
  const authProvider = new OAuthClientProvider({ redirectUri: REDIRECT, authorize: consent, ...options });
  const outcome = await Client.connect(new StreamableHttpClientTransport(url, { authProvider })).then(
    async (client) => {
      await client.close();
      return "connected";
    },
    (error: unknown) => error,
  );
  return outcome;
}

function expectOAuthError(error: unknown, code: string): void {
  expect(error).toBeInstanceOf(OAuthError);
  expect((error as OAuthError).code).toBe(code);
}

describe("OAuthClientProvider stops before authorizing", () => {
  it("when the PRM document names another resource", async () => {
    const { authServer, resource } = await world({}, { resource: () => "https://evil.example.com/mcp" });
    expectOAuthError(await refusal(resource.url), "resource_mismatch");
    expect(authServer.log).toHaveLength(0);
  });

  it("when the PRM document names a sibling path on the same origin", async () => {
    const { authServer, resource } = await world({}, { resource: (url) => `${url.origin}/other` });
    expectOAuthError(await refusal(resource.url), "resource_mismatch");
    expect(authServer.log).toHaveLength(0);
  });

  it("when the authorization server metadata claims another issuer", async () => {
    const { authServer } = await world({ claimedIssuer: "https://attacker.example.com" });
    const resource = (await ProtectedMcp.start({ authorizationServer: () => authServer })) as ProtectedMcp;
    keeper.defer(() => resource.close());
    expectOAuthError(await refusal(resource.url), "issuer_mismatch");
    expect(authServer.log.map((entry) => entry.path)).toEqual(["/.well-known/oauth-authorization-server"]);
  });

  it("when the authorization server does not offer PKCE with S256", async () => {
    const { authServer, resource } = await world({ codeChallengeMethods: ["plain"] });
    expectOAuthError(await refusal(resource.url), "invalid_metadata");
    expect(authServer.requests("/authorize")).toHaveLength(0);
  });

  it("when there is no way to get a client identity", async () => {
    const { authServer, resource } = await world({ registration: false });
    const error = await refusal(resource.url);
    expectOAuthError(error, "registration_unavailable");
    expect((error as Error).message).toContain("pre-registered");
    expect(authServer.requests("/authorize")).toHaveLength(0);
  });
});

describe("OAuthClientProvider rejects a bad authorization response, before the token endpoint", () => {
  it.each([
    ["a wrong iss", { issInRedirect: "wrong" }, "issuer_mismatch"],
    ["a missing iss the server promised", { issInRedirect: "omit" }, "issuer_mismatch"],
    [
      "a wrong iss the server never promised",
      { issInRedirect: "wrong", issParameterSupported: false },
      "issuer_mismatch",
    ],
  ] as const)("%s", async (_label, options, code) => {
    const { authServer, resource } = await world(options);
    expectOAuthError(await refusal(resource.url), code);
    expect(authServer.requests("/authorize")).toHaveLength(1);
    expect(authServer.requests("/token")).toHaveLength(0);
  });

  it("accepts a missing iss when the server never promised one", async () => {
    const { authServer, resource } = await world({ issInRedirect: "omit", issParameterSupported: false });
    expect(await refusal(resource.url)).toBe("connected");
    expect(authServer.requests("/token")).toHaveLength(1);
  });

  it("a state that is not this request's", async () => {
    const { authServer, resource } = await world();
    const forged = async (url: URL) => {
      const back = new URL(await consent(url));
      back.searchParams.set("state", "forged");
      return back;
    };
    expectOAuthError(await refusal(resource.url, { authorize: forged }), "state_mismatch");
    expect(authServer.requests("/token")).toHaveLength(0);
  });

  it("an error from the authorization server, with its description", async () => {
    const { authServer, resource } = await world();
    const denied = async (url: URL) => {
      const state = url.searchParams.get("state") ?? "";
      const iss = authServer.issuer;
      return `${REDIRECT}?error=access_denied&error_description=User+said+no&state=${state}&iss=${encodeURIComponent(iss)}`;
    };
    const error = await refusal(resource.url, { authorize: denied });
    expectOAuthError(error, "access_denied");
    expect((error as Error).message).toContain("User said no");
    expect(authServer.requests("/token")).toHaveLength(0);
  });

  it("an answer that is not a URL, or has no code", async () => {
    const { resource } = await world();
    expectOAuthError(await refusal(resource.url, { authorize: async () => "not a url" }), "invalid_callback");
    const { authServer: second, resource: other } = await world();
    const noCode = async (url: URL) => {
      const back = new URL(await consent(url));
      back.searchParams.delete("code");
      return back;
    };
    expectOAuthError(await refusal(other.url, { authorize: noCode }), "invalid_callback");
    expect(second.requests("/token")).toHaveLength(0);
  });

  it("passes the authorize callback's own failure through unchanged", async () => {
    const { resource } = await world();
    const cancelled = new Error("the user closed the browser");
    expect(await refusal(resource.url, { authorize: async () => Promise.reject(cancelled) })).toBe(cancelled);
  });
});

describe("OAuthClientProvider and the token endpoint", () => {
  it("reports a refusal with the server's code and never the client secret", async () => {
    const { authServer, resource } = await world({
      registration: false,
      authMethods: ["client_secret_basic"],
      clients: { "pre-1": "the-right-secret" },
    });
    const error = await refusal(resource.url, {
      client: { clientId: "pre-1", clientSecret: "s3cr3t-value-9" },
    });
    expectOAuthError(error, "invalid_client");
    expect((error as Error).message).toContain("HTTP 401");
    expect((error as Error).message).not.toContain("s3cr3t-value-9");
    expect(authServer.requests("/token")).toHaveLength(1);
  });

  it("rejects options that cannot work", () => {
    expect(() => new OAuthClientProvider({ redirectUri: "/callback", authorize: consent })).toThrow(
      TypeError,
    );
    expect(() => new OAuthClientProvider({ redirectUri: REDIRECT } as unknown as OAuthClientOptions)).toThrow(
      /authorize/,
    );
  });
});

describe("the transport's auth hook", () => {
  it("re-sends a notification refused with 401 once the provider says so", async () => {
    let posts = 0;
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      posts++;
      seen.push(req.headers.authorization);
      req.resume();
      res.writeHead(req.headers.authorization === "Bearer fresh" ? 202 : 401).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    keeper.defer(() => new Promise((resolve) => server.close(() => resolve())));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    let token = "stale";
    const challenges: unknown[] = [];
    const transport = new StreamableHttpClientTransport(url, {
      authProvider: {
        token: () => token,
        unauthorized: async (challenge) => {
          challenges.push(challenge);
          token = "fresh";
          return true;
        },
      },
    });
    await transport.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    expect(posts).toBe(2);
    expect(seen).toEqual(["Bearer stale", "Bearer fresh"]);
    expect(challenges).toEqual([
      { status: 401, wwwAuthenticate: undefined, url, attempt: 1, token: "stale" },
    ]);
    await transport.close();
  });

  it("does not re-authorize the DELETE that ends a 2025 session", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.headers.authorization ?? "-"}`);
      req.resume();
      if (req.method === "DELETE") return void res.writeHead(401, { "www-authenticate": "Bearer" }).end();
      if (req.method !== "POST") return void res.writeHead(405).end();
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            serverInfo: { name: "stub", version: "1" },
          },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    keeper.defer(() => new Promise((resolve) => server.close(() => resolve())));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    let asked = 0;
    const transport = new LegacyHttpClientTransport(url, {
      authProvider: {
        token: () => "t",
        unauthorized: async () => {
          asked++;
          return true;
        },
      },
    });
    await transport.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    });
    expect(transport.sessionId).toBe("s-1");
    await transport.close();
    expect(seen).toEqual(["POST Bearer t", "DELETE Bearer t"]);
    expect(asked).toBe(0);
  });

  it("fails with the fixed message when the provider's token() throws, sending nothing", async () => {
    let posts = 0;
    const server = createServer((req, res) => {
      posts++;
      req.resume();
      res.writeHead(202).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    keeper.defer(() => new Promise((resolve) => server.close(() => resolve())));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    const transport = new StreamableHttpClientTransport(url, {
      authProvider: {
        token: () => {
          throw new Error("refresh token rt-SECRET expired");
        },
      },
    });
    const error = await transport
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpTransportError);
    expect((error as Error).message).toBe("The authProvider failed to supply a token");
    expect(posts).toBe(0);
    await transport.close();
  });
});
