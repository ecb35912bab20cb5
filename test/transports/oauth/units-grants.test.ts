/**
 * Unit tests of the OAuth client's grants: PKCE and state helpers, dynamic client registration,
 * the token endpoint (code exchange and refresh, with each client authentication), and the
 * transport-side auth provider glue (`tokenFrom`, `reauthorized`).
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type HttpAuthChallenge,
  MAX_AUTH_ATTEMPTS,
  reauthorized,
  tokenFrom,
} from "../../../src/transports/http/auth.js";
import { HttpStatusError, HttpTransportError } from "../../../src/transports/http/errors.js";
import { MAX_OAUTH_DOCUMENT_BYTES } from "../../../src/transports/http/oauth/answer.js";
import type { AuthorizationServerMetadata } from "../../../src/transports/http/oauth/discovery.js";
import { OAuthError } from "../../../src/transports/http/oauth/errors.js";
import { pkcePair, randomToken, sameString } from "../../../src/transports/http/oauth/pkce.js";
import {
  applicationType,
  chooseAuthMethod,
  registerClient,
} from "../../../src/transports/http/oauth/registration.js";
import {
  exchangeCode,
  freshAccessToken,
  type OAuthClientInformation,
  refreshTokens,
} from "../../../src/transports/http/oauth/token.js";
import {
  authServerAt,
  type Call,
  endlessBody,
  failure,
  fakeFetch,
  jsonOfLength,
  type Route,
} from "./fake-fetch.js";

const rejecting = () => {
  throw new TypeError("fetch failed");
};

const TOKEN_URL = "https://auth.example/token";
const REGISTER_URL = "https://auth.example/register";

function authServer(overrides: Partial<AuthorizationServerMetadata> = {}): AuthorizationServerMetadata {
  return authServerAt("https://auth.example", overrides);
}

describe("pkce", () => {
  it("makes a 43-character base64url verifier and its S256 challenge", async () => {
    const { verifier, challenge } = await pkcePair();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(challenge).toBe(createHash("sha256").update(verifier).digest("base64url"));
  });

  it("makes a different pair every time", async () => {
    const [first, second] = await Promise.all([pkcePair(), pkcePair()]);
    expect(first.verifier).not.toBe(second.verifier);
    expect(first.challenge).not.toBe(second.challenge);
  });

  it("encodes randomToken bytes as unpadded base64url", () => {
    expect(randomToken(16)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(randomToken(32)).toHaveLength(43);
  });

  it.each([
    ["state-123", "state-123", true],
    ["state-123", "state-124", false],
    ["state", "state-123", false],
    ["state-123", "state", false],
    ["", "", true],
    ["", "a", false],
    ["ä€", "ä€", true],
    ["ä", "å", false],
    ["é", "e", false],
  ])("sameString(%j, %j) is %s", (a, b, expected) => {
    expect(sameString(a, b)).toBe(expected);
  });
});

describe("chooseAuthMethod and applicationType", () => {
  it.each([
    [undefined, "client_secret_basic"],
    [["none"], "none"],
    [["client_secret_post", "none"], "client_secret_post"],
    [["private_key_jwt", "none", "client_secret_basic"], "client_secret_basic"],
  ])("chooses from %j: %s", (supported, expected) => {
    expect(chooseAuthMethod(supported)).toBe(expected);
  });

  it("refuses a server with none of our methods", () => {
    expect(() => chooseAuthMethod(["private_key_jwt"])).toThrow(OAuthError);
    expect(() => chooseAuthMethod(["private_key_jwt"])).toThrow(
      expect.objectContaining({ code: "unsupported_auth_method" }),
    );
  });

  it.each([
    ["http://localhost:3000/callback", "native"],
    ["http://127.0.0.1/cb", "native"],
    ["https://app.example/cb", "web"],
    ["http://example.com/cb", "web"],
    // Private-use schemes (RFC 8252 §7.1) are native apps' redirects, as OIDC registration says.
    ["com.example.app:/oauth2redirect", "native"],
    ["vscode://publisher.extension/callback", "native"],
    ["not a url", "web"],
  ])("%s is %s", (uri, expected) => {
    expect(applicationType(uri)).toBe(expected);
  });
});

describe("registerClient", () => {
  const profile = { clientName: "Test Client", redirectUri: "http://127.0.0.1:8080/callback" };
  const issued = (body: unknown, status = 201) => ({ [REGISTER_URL]: { status, body } });

  it("needs a registration endpoint", async () => {
    const fake = fakeFetch({});
    const error = await failure(
      registerClient(fake.fetch, authServer({ registrationEndpoint: undefined }), profile),
    );
    expect(error.code).toBe("registration_unavailable");
    expect(fake.calls).toStrictEqual([]);
  });

  it("sends exactly the RFC 7591 request and keeps the issued client", async () => {
    const fake = fakeFetch(
      issued({ client_id: "c1", client_secret: "s1", token_endpoint_auth_method: "client_secret_post" }),
    );
    const server = authServer({ tokenEndpointAuthMethods: ["client_secret_post", "none"] });
    await expect(registerClient(fake.fetch, server, profile)).resolves.toStrictEqual({
      issuer: "https://auth.example",
      clientId: "c1",
      authMethod: "client_secret_post",
      clientSecret: "s1",
    });
    expect(fake.calls).toHaveLength(1);
    const [call] = fake.calls;
    expect(call?.url).toBe(REGISTER_URL);
    expect(call?.method).toBe("POST");
    expect(call?.headers).toStrictEqual({ "content-type": "application/json", accept: "application/json" });
    expect(JSON.parse(call?.body ?? "null")).toStrictEqual({
      client_name: "Test Client",
      redirect_uris: ["http://127.0.0.1:8080/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
      application_type: "native",
    });
  });

  it("asks for client_secret_basic as a web app by default, and the answer's method wins", async () => {
    const fake = fakeFetch(
      issued({ client_id: "c2", client_secret: "s2", token_endpoint_auth_method: "client_secret_post" }),
    );
    const web = { clientName: "Web", redirectUri: "https://app.example/cb" };
    const client = await registerClient(fake.fetch, authServer(), web);
    expect(client).toStrictEqual({
      issuer: "https://auth.example",
      clientId: "c2",
      authMethod: "client_secret_post",
      clientSecret: "s2",
    });
    const sent = JSON.parse(fake.calls[0]?.body ?? "null") as Record<string, unknown>;
    expect(sent.token_endpoint_auth_method).toBe("client_secret_basic");
    expect(sent.application_type).toBe("web");
  });

  it("keeps the asked method when the answer names one we do not have", async () => {
    const fake = fakeFetch(
      issued({ client_id: "c3", client_secret: "s3", token_endpoint_auth_method: "tls" }),
    );
    expect((await registerClient(fake.fetch, authServer(), profile)).authMethod).toBe("client_secret_basic");
  });

  it("makes a confidential method without a secret a public client", async () => {
    const fake = fakeFetch(issued({ client_id: "c4", token_endpoint_auth_method: "client_secret_basic" }));
    const client = await registerClient(fake.fetch, authServer(), profile);
    expect(client).toStrictEqual({ issuer: "https://auth.example", clientId: "c4", authMethod: "none" });
    expect("clientSecret" in client).toBe(false);
  });

  it("drops a secret issued to a public client", async () => {
    const fake = fakeFetch(
      issued({ client_id: "c5", client_secret: "s5", token_endpoint_auth_method: "none" }),
    );
    const client = await registerClient(
      fake.fetch,
      authServer({ tokenEndpointAuthMethods: ["none"] }),
      profile,
    );
    expect(client).toStrictEqual({ issuer: "https://auth.example", clientId: "c5", authMethod: "none" });
  });

  it("uses the server's error code when it refuses", async () => {
    const fake = fakeFetch(issued({ error: "invalid_client_metadata", error_description: "bad uri" }, 400));
    const error = await failure(registerClient(fake.fetch, authServer(), profile));
    expect(error.code).toBe("invalid_client_metadata");
    expect(error.message).toBe("the registration endpoint refused (HTTP 400)");
  });

  it.each([
    ["a 201 without client_id", { [REGISTER_URL]: { status: 201, body: { client_secret: "s" } } }],
    ["an empty client_id", { [REGISTER_URL]: { status: 201, body: { client_id: "" } } }],
    ["a 500 that is not JSON", { [REGISTER_URL]: () => new Response("oops", { status: 500 }) }],
    ["a rejected fetch", { [REGISTER_URL]: rejecting }],
  ])("fails with registration_failed on %s", async (_, routes: Record<string, Route>) => {
    const fake = fakeFetch(routes);
    expect((await failure(registerClient(fake.fetch, authServer(), profile))).code).toBe(
      "registration_failed",
    );
  });

  it("refuses a server with none of our auth methods before sending anything", async () => {
    const fake = fakeFetch({});
    const server = authServer({ tokenEndpointAuthMethods: ["private_key_jwt"] });
    expect((await failure(registerClient(fake.fetch, server, profile))).code).toBe("unsupported_auth_method");
    expect(fake.calls).toStrictEqual([]);
  });
});

describe("exchangeCode and refreshTokens", () => {
  const NOW = 1_700_000_000_000;
  const server = authServer();
  const publicClient: OAuthClientInformation = { issuer: server.issuer, clientId: "pub", authMethod: "none" };
  const postClient: OAuthClientInformation = {
    issuer: server.issuer,
    clientId: "post-id",
    clientSecret: "post-SECRET-value",
    authMethod: "client_secret_post",
  };
  const basicClient: OAuthClientInformation = {
    issuer: server.issuer,
    clientId: "id:with space+plus",
    clientSecret: "se:cret pass+word",
    authMethod: "client_secret_basic",
  };
  const grant = {
    code: "CODE-abc123",
    verifier: "VERIFIER-xyz789",
    redirectUri: "http://127.0.0.1:8080/callback",
    resource: "https://mcp.example/mcp",
    scope: "files:read files:write" as string | undefined,
  };
  const grantFields = [
    ["grant_type", "authorization_code"],
    ["code", "CODE-abc123"],
    ["code_verifier", "VERIFIER-xyz789"],
    ["redirect_uri", "http://127.0.0.1:8080/callback"],
    ["resource", "https://mcp.example/mcp"],
  ];
  const formHeaders = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  const answer = (body: unknown, status = 200) => fakeFetch({ [TOKEN_URL]: { status, body } });
  const fields = (call: Call | undefined) => [...new URLSearchParams(call?.body ?? "")];
  const old = {
    issuer: server.issuer,
    accessToken: "old-at",
    refreshToken: "OLD-REFRESH-rt",
    requestedScope: "a b",
  };

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("exchanges a code as a public client (client_id in the body)", async () => {
    vi.spyOn(Date, "now").mockReturnValue(NOW);
    const fake = answer({ access_token: "at", token_type: "Bearer", refresh_token: "rt", expires_in: 3600 });
    await expect(exchangeCode(fake.fetch, server, publicClient, grant)).resolves.toStrictEqual({
      issuer: "https://auth.example",
      accessToken: "at",
      resource: grant.resource,
      refreshToken: "rt",
      expiresAt: NOW + 3_600_000,
      issuedAt: NOW,
      requestedScope: "files:read files:write",
    });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]?.url).toBe(TOKEN_URL);
    expect(fake.calls[0]?.method).toBe("POST");
    expect(fake.calls[0]?.headers).toStrictEqual(formHeaders);
    expect(fields(fake.calls[0])).toStrictEqual([...grantFields, ["client_id", "pub"]]);
  });

  it("sends client_id and client_secret in the body for client_secret_post", async () => {
    const fake = answer({ access_token: "at", token_type: "bearer" });
    const tokens = await exchangeCode(fake.fetch, server, postClient, { ...grant, scope: undefined });
    expect(tokens).toStrictEqual({
      issuer: "https://auth.example",
      accessToken: "at",
      resource: grant.resource,
    });
    expect(fake.calls[0]?.headers).toStrictEqual(formHeaders);
    expect(fields(fake.calls[0])).toStrictEqual([
      ...grantFields,
      ["client_id", "post-id"],
      ["client_secret", "post-SECRET-value"],
    ]);
  });

  it("sends form-encoded credentials in Basic auth for client_secret_basic", async () => {
    const fake = answer({ access_token: "at", token_type: "BEARER" });
    await exchangeCode(fake.fetch, server, basicClient, grant);
    const expected = Buffer.from("id%3Awith+space%2Bplus:se%3Acret+pass%2Bword").toString("base64");
    expect(fake.calls[0]?.headers).toStrictEqual({ ...formHeaders, authorization: `Basic ${expected}` });
    expect(fields(fake.calls[0])).toStrictEqual(grantFields);
  });

  it.each([
    ["a DPoP token", { access_token: "at", token_type: "DPoP" }],
    ["no token_type", { access_token: "at" }],
    ["no access_token", { token_type: "Bearer" }],
    ["an empty access_token", { access_token: "", token_type: "Bearer" }],
    ["a JSON array", [{ access_token: "at", token_type: "Bearer" }]],
  ])("refuses an answer with %s", async (_, body) => {
    const error = await failure(exchangeCode(answer(body).fetch, server, publicClient, grant));
    expect(error.code).toBe("invalid_token_response");
  });

  // Regression: such a token reached the transport, whose fetch refused the header in a TypeError
  // quoting it ("Headers.set: \"Bearer SECRET…\" is an invalid header value").
  it.each([
    ["a line break", "SECRET-at\r\nX-Injected: 1"],
    ["a character over 0xFF", "SECRET-at\u0100"],
    ["a space", "SECRET at"],
  ])(
    "refuses an access_token with %s, which no Authorization header can carry, never quoting it",
    async (_, token) => {
      const body = { access_token: token, token_type: "Bearer" };
      const error = await failure(exchangeCode(answer(body).fetch, server, publicClient, grant));
      expect(error.code).toBe("invalid_token_response");
      expect(error.message).not.toContain("SECRET");
    },
  );

  it.each([
    ["a string", "3600"],
    ["zero", 0],
    ["a negative number", -5],
    ["null", null],
  ])(
    "ignores an expires_in that is %s: the token is used until the server refuses it",
    async (_label, expiresIn) => {
      const fake = answer({ access_token: "at", token_type: "Bearer", expires_in: expiresIn });
      const tokens = await exchangeCode(fake.fetch, server, publicClient, grant);
      expect(["expiresAt" in tokens, "issuedAt" in tokens, freshAccessToken(tokens)]).toEqual([
        false,
        false,
        "at",
      ]);
    },
  );

  it("sends a token until 30 s before its expiry, and a short-lived one until half its lifetime", () => {
    const at = (issuedAt: number, lifetimeMs: number) => ({
      issuer: "https://auth.example",
      accessToken: "at",
      issuedAt,
      expiresAt: issuedAt + lifetimeMs,
    });
    const spy = vi.spyOn(Date, "now");
    spy.mockReturnValue(NOW + 3_569_999);
    expect(freshAccessToken(at(NOW, 3_600_000))).toBe("at");
    spy.mockReturnValue(NOW + 3_570_000);
    expect(freshAccessToken(at(NOW, 3_600_000))).toBeUndefined();
    spy.mockReturnValue(NOW + 4_999);
    expect(freshAccessToken(at(NOW, 10_000))).toBe("at");
    spy.mockReturnValue(NOW + 5_000);
    expect(freshAccessToken(at(NOW, 10_000))).toBeUndefined();
    // Tokens stored without issuedAt (before it existed) keep the plain 30 s margin.
    spy.mockReturnValue(NOW);
    expect(freshAccessToken({ issuer: "i", accessToken: "at", expiresAt: NOW + 30_001 })).toBe("at");
    expect(freshAccessToken({ issuer: "i", accessToken: "at", expiresAt: NOW + 30_000 })).toBeUndefined();
  });

  it("reports the server's error code without echoing what was sent", async () => {
    const fake = answer({ error: "invalid_grant", error_description: "x" }, 400);
    const error = await failure(exchangeCode(fake.fetch, server, postClient, grant));
    expect(error.code).toBe("invalid_grant");
    expect(error.message).toBe("the token endpoint refused (HTTP 400): x");
    for (const secret of ["CODE-abc123", "VERIFIER-xyz789", "post-SECRET-value"]) {
      expect(error.message).not.toContain(secret);
    }

    const refresh = await failure(refreshTokens(fake.fetch, server, postClient, old, grant.resource));
    expect(refresh.code).toBe("invalid_grant");
    expect(refresh.message).not.toContain("OLD-REFRESH-rt");
    expect(refresh.message).not.toContain("post-SECRET-value");
  });

  it("cuts what was sent out of a description that echoes it", async () => {
    const echo = "bad code CODE-abc123 for VERIFIER-xyz789 with post-SECRET-value";
    const fake = answer({ error: "invalid_grant", error_description: echo }, 400);
    const error = await failure(exchangeCode(fake.fetch, server, postClient, grant));
    expect(error.message).toBe(
      "the token endpoint refused (HTTP 400): bad code [redacted] for [redacted] with [redacted]",
    );
    const refresh = await failure(
      refreshTokens(
        answer({ error: "invalid_grant", error_description: "OLD-REFRESH-rt is revoked" }, 400).fetch,
        server,
        postClient,
        old,
        grant.resource,
      ),
    );
    expect(refresh.message).toBe("the token endpoint refused (HTTP 400): [redacted] is revoked");
  });

  it("fails with token_request_failed on a non-JSON error or a rejected fetch", async () => {
    const broken = fakeFetch({ [TOKEN_URL]: () => new Response("<html>", { status: 502 }) });
    const error = await failure(exchangeCode(broken.fetch, server, publicClient, grant));
    expect(error.code).toBe("token_request_failed");
    expect(error.message).toBe("the token endpoint refused (HTTP 502)");
    const offline = fakeFetch({ [TOKEN_URL]: rejecting });
    expect((await failure(exchangeCode(offline.fetch, server, publicClient, grant))).code).toBe(
      "token_request_failed",
    );
  });

  it("refuses a token answer over 256 KiB, and one that never ends, without echoing it", async () => {
    const tokens = { access_token: "at", token_type: "Bearer" };
    const exact = fakeFetch({
      [TOKEN_URL]: () => new Response(jsonOfLength(tokens, MAX_OAUTH_DOCUMENT_BYTES)),
    });
    await expect(exchangeCode(exact.fetch, server, publicClient, grant)).resolves.toMatchObject({
      accessToken: "at",
    });
    const over = fakeFetch({
      [TOKEN_URL]: () => new Response(jsonOfLength(tokens, MAX_OAUTH_DOCUMENT_BYTES + 1)),
    });
    const error = await failure(exchangeCode(over.fetch, server, publicClient, grant));
    expect(error.code).toBe("token_request_failed");
    expect(error.message).toBe("the token endpoint sent a body larger than 262144 bytes");
    const endless = endlessBody();
    const never = fakeFetch({ [TOKEN_URL]: endless.route });
    expect((await failure(refreshTokens(never.fetch, server, publicClient, old, grant.resource))).code).toBe(
      "token_request_failed",
    );
    expect(endless.cancelled()).toBe(true);
  });

  it("refreshes, keeping the old refresh token and the requested scope", async () => {
    vi.spyOn(Date, "now").mockReturnValue(NOW);
    const fake = answer({ access_token: "new-at", token_type: "Bearer", expires_in: 60 });
    await expect(refreshTokens(fake.fetch, server, publicClient, old, grant.resource)).resolves.toStrictEqual(
      {
        issuer: "https://auth.example",
        accessToken: "new-at",
        resource: grant.resource,
        refreshToken: "OLD-REFRESH-rt",
        expiresAt: NOW + 60_000,
        issuedAt: NOW,
        requestedScope: "a b",
      },
    );
    expect(fake.calls[0]?.url).toBe(TOKEN_URL);
    expect(fake.calls[0]?.headers).toStrictEqual(formHeaders);
    expect(fields(fake.calls[0])).toStrictEqual([
      ["grant_type", "refresh_token"],
      ["refresh_token", "OLD-REFRESH-rt"],
      ["resource", "https://mcp.example/mcp"],
      ["client_id", "pub"],
    ]);
  });

  it("takes a rotated refresh token, authenticating with Basic", async () => {
    const fake = answer({ access_token: "new-at", token_type: "bearer", refresh_token: "NEW-rt" });
    const tokens = await refreshTokens(fake.fetch, server, basicClient, old, grant.resource);
    expect(tokens).toStrictEqual({
      issuer: "https://auth.example",
      accessToken: "new-at",
      resource: grant.resource,
      refreshToken: "NEW-rt",
      requestedScope: "a b",
    });
    expect(fake.calls[0]?.headers.authorization).toMatch(/^Basic /);
    expect(fields(fake.calls[0])).toStrictEqual([
      ["grant_type", "refresh_token"],
      ["refresh_token", "OLD-REFRESH-rt"],
      ["resource", "https://mcp.example/mcp"],
    ]);
  });
});

describe("tokenFrom", () => {
  const SECRET = "sk-live-DO-NOT-LEAK-4242";

  it("asks a function or a provider object", async () => {
    await expect(tokenFrom(() => "from-function")).resolves.toBe("from-function");
    await expect(tokenFrom(async () => "from-async")).resolves.toBe("from-async");
    await expect(tokenFrom({ token: () => "from-object" })).resolves.toBe("from-object");
    await expect(tokenFrom({ token: async () => undefined })).resolves.toBeUndefined();
  });

  it.each([
    [
      "a throwing function",
      () => {
        throw new Error(`bad key ${SECRET}`);
      },
    ],
    ["a rejecting provider", { token: () => Promise.reject(new Error(`bad key ${SECRET}`)) }],
  ])("fails with a fixed message for %s", async (_, option) => {
    const error = await tokenFrom(option).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(HttpTransportError);
    expect((error as Error).message).toBe("The authProvider failed to supply a token");
    expect((error as Error).message).not.toContain(SECRET);
  });
});

describe("reauthorized", () => {
  const url = new URL("https://mcp.example/mcp");
  const refused = new HttpStatusError(401, "Unauthorized", 'Bearer resource_metadata="https://x/y"');
  const provider = (answer: boolean) => {
    const unauthorized = vi.fn(async (_: HttpAuthChallenge) => answer);
    return { option: { token: () => "t", unauthorized }, unauthorized };
  };

  it("allows three attempts", () => {
    expect(MAX_AUTH_ATTEMPTS).toBe(3);
  });

  it("is false without a provider that can re-authorize", async () => {
    await expect(reauthorized(undefined, refused, url, 1, "t")).resolves.toBe(false);
    await expect(reauthorized(() => "t", refused, url, 1, "t")).resolves.toBe(false);
    await expect(reauthorized({ token: () => "t" }, refused, url, 1, "t")).resolves.toBe(false);
  });

  it.each([
    ["a plain transport error", new HttpTransportError("network"), 1],
    ["a plain Error", new Error("boom"), 1],
    ["status 500", new HttpStatusError(500, "Server Error"), 1],
    ["status 404", new HttpStatusError(404, "Not Found"), 1],
    ["an attempt past the limit", refused, MAX_AUTH_ATTEMPTS + 1],
  ])("is false, without asking, for %s", async (_, error, attempt) => {
    const { option, unauthorized } = provider(true);
    await expect(reauthorized(option, error, url, attempt, "t")).resolves.toBe(false);
    expect(unauthorized).not.toHaveBeenCalled();
  });

  it("passes the provider's answer through with the challenge", async () => {
    const yes = provider(true);
    await expect(reauthorized(yes.option, refused, url, MAX_AUTH_ATTEMPTS, "sent-token")).resolves.toBe(true);
    expect(yes.unauthorized).toHaveBeenCalledTimes(1);
    expect(yes.unauthorized.mock.calls[0]?.[0]).toStrictEqual({
      status: 401,
      wwwAuthenticate: 'Bearer resource_metadata="https://x/y"',
      url,
      attempt: MAX_AUTH_ATTEMPTS,
      token: "sent-token",
      dpopNonce: undefined,
    });

    const no = provider(false);
    await expect(
      reauthorized(no.option, new HttpStatusError(403, "Forbidden"), url, 2, undefined),
    ).resolves.toBe(false);
    const challenge = no.unauthorized.mock.calls[0]?.[0];
    expect(challenge).toStrictEqual({
      status: 403,
      wwwAuthenticate: undefined,
      url,
      attempt: 2,
      token: undefined,
      dpopNonce: undefined,
    });
    expect(challenge?.url).toBe(url);
  });
});
