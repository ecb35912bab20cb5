// JwtVerifier: JWT access tokens checked against the issuer's keys (configured, or fetched from a
// real loopback JWKS endpoint), mapped to AuthInfo, and refused with 401 invalid_token on the wire.
import { createServer, type Server } from "node:http";
import {
  base64url,
  exportJWK,
  generateKeyPair,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../../src/client/index.js";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { StreamableHttpClientTransport, serveHttp } from "../../../src/transports/http/index.js";
import { JwtVerifier, type JwtVerifierOptions } from "../../../src/transports/http/verifiers/jwt.js";
import { freePort } from "../oauth/world.js";
import { post, read, rpc, tokenRefusal, UNAUTHORIZED_BODY } from "./helpers.js";

const ISSUER = "https://auth.example.com";
const RESOURCE = "https://mcp.example.com/mcp";
const now = () => Math.floor(Date.now() / 1000);

interface SigningKey {
  readonly kid: string;
  readonly alg: "ES256" | "RS256";
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

async function signingKey(kid: string, alg: "ES256" | "RS256" = "ES256"): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

/** A token as the issuer would mint it; `claims` override the defaults (undefined removes one). */
function mint(
  key: SigningKey,
  claims: JWTPayload = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const payload: JWTPayload = {
    iss: ISSUER,
    aud: RESOURCE,
    sub: "alice",
    client_id: "notes-app",
    scope: "notes:read notes:write",
    iat: now(),
    exp: now() + 600,
    ...claims,
  };
  for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, ...header })
    .sign(key.privateKey);
}

function verifier(keys: SigningKey[], options: Partial<JwtVerifierOptions> = {}): JwtVerifier {
  const jwks: JSONWebKeySet = { keys: keys.map((key) => key.jwk) };
  return new JwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwks, ...options });
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const close of closers.splice(0)) await close();
});

describe("JwtVerifier.verify", () => {
  it("maps a valid token to AuthInfo", async () => {
    const key = await signingKey("k1");
    // One reading of the clock: a second boundary between two would move the expected expiry.
    const exp = now() + 300;
    const token = await mint(key, { exp, tenant: "acme" });
    const info = await verifier([key]).verify(token);
    expect(info).toEqual({
      token,
      clientId: "notes-app",
      scopes: ["notes:read", "notes:write"],
      issuer: ISSUER,
      subject: "alice",
      expiresAt: exp,
      resource: RESOURCE,
      extra: expect.objectContaining({ tenant: "acme", sub: "alice" }),
    });
    expect(Object.isFrozen(info.extra)).toBe(true);
  });

  it("verifies RS256 as well as ES256, and picks the key by kid", async () => {
    const es = await signingKey("es", "ES256");
    const rs = await signingKey("rs", "RS256");
    const both = verifier([es, rs]);
    expect((await both.verify(await mint(rs))).subject).toBe("alice");
    expect((await both.verify(await mint(es))).subject).toBe("alice");
  });

  it("reads azp when client_id is absent, and scp as an array or a string", async () => {
    const key = await signingKey("k1");
    const check = verifier([key]);
    const azp = await check.verify(
      await mint(key, { client_id: undefined, azp: "spa", scope: undefined, scp: ["a", "", "b", 3] }),
    );
    expect(azp).toMatchObject({ clientId: "spa", scopes: ["a", "b"] });
    const scpText = await check.verify(await mint(key, { scope: undefined, scp: "x  y" }));
    expect(scpText.scopes).toEqual(["x", "y"]);
    const bare = await check.verify(await mint(key, { client_id: undefined, scope: undefined }));
    expect(bare).toMatchObject({ clientId: "", scopes: [] });
  });

  it("accepts any configured audience, and reports the one the token names", async () => {
    const key = await signingKey("k1");
    const check = verifier([key], { audience: ["https://old.example/mcp", RESOURCE] });
    const info = await check.verify(await mint(key, { aud: ["https://other.example", RESOURCE] }));
    expect(info.resource).toBe(RESOURCE);
    const old = await check.verify(await mint(key, { aud: "https://old.example/mcp" }));
    expect(old.resource).toBe("https://old.example/mcp");
  });

  it("refuses another issuer, another audience and a missing audience", async () => {
    const key = await signingKey("k1");
    const check = verifier([key]);
    expect(await tokenRefusal(check.verify(await mint(key, { iss: "https://evil.example" })))).toMatch(
      /"iss"/,
    );
    expect(await tokenRefusal(check.verify(await mint(key, { aud: "https://other.example/mcp" })))).toMatch(
      /"aud"/,
    );
    expect(await tokenRefusal(check.verify(await mint(key, { aud: undefined })))).toMatch(/"aud"/);
  });

  it("refuses expired tokens past the clock tolerance, and tokens without exp", async () => {
    const key = await signingKey("k1");
    const check = verifier([key], { clockToleranceSec: 30 });
    expect(await tokenRefusal(check.verify(await mint(key, { exp: now() - 31 })))).toMatch(/"exp"/);
    expect((await check.verify(await mint(key, { exp: now() - 20 }))).subject).toBe("alice");
    expect(await tokenRefusal(check.verify(await mint(key, { exp: undefined })))).toMatch(/"exp"/);
    expect(await tokenRefusal(check.verify(await mint(key, { nbf: now() + 60 })))).toMatch(/"nbf"/);
    expect((await verifier([key]).verify(await mint(key, { exp: now() - 20 }))).subject).toBe("alice");
    const strict = verifier([key], { clockToleranceSec: 0 });
    expect(await tokenRefusal(strict.verify(await mint(key, { exp: now() - 2 })))).toMatch(/"exp"/);
  });

  it("refuses a token signed by a key that is not the issuer's, even under a known kid", async () => {
    const key = await signingKey("k1");
    const impostor = await signingKey("k1");
    expect(await tokenRefusal(verifier([key]).verify(await mint(impostor)))).toMatch(/signature/);
    expect(await tokenRefusal(verifier([key]).verify(await mint(await signingKey("k2"))))).toMatch(/key/i);
  });

  it("refuses alg none and an HS256 token keyed with the public key (algorithm confusion)", async () => {
    const key = await signingKey("k1", "RS256");
    const claims = base64url.encode(
      JSON.stringify({ iss: ISSUER, aud: RESOURCE, sub: "mallory", exp: now() + 600 }),
    );
    const none = `${base64url.encode(JSON.stringify({ alg: "none", kid: "k1" }))}.${claims}.`;
    expect(await tokenRefusal(verifier([key]).verify(none))).toMatch(/alg|JWS/i);
    const secret = new TextEncoder().encode(JSON.stringify(key.jwk));
    const confused = await new SignJWT({ iss: ISSUER, aud: RESOURCE, sub: "mallory", exp: now() + 600 })
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .sign(secret);
    expect(await tokenRefusal(verifier([key]).verify(confused))).toMatch(/alg/i);
  });

  it("refuses algorithms outside the configured list", async () => {
    const key = await signingKey("k1", "RS256");
    expect(await tokenRefusal(verifier([key], { algorithms: ["ES256"] }).verify(await mint(key)))).toMatch(
      /alg/i,
    );
  });

  it("checks typ when asked (RFC 9068 at+jwt)", async () => {
    const key = await signingKey("k1");
    const check = verifier([key], { typ: "at+jwt" });
    expect(await tokenRefusal(check.verify(await mint(key, {}, { typ: "JWT" })))).toMatch(/typ/);
    expect(await tokenRefusal(check.verify(await mint(key)))).toMatch(/typ/);
    expect((await check.verify(await mint(key, {}, { typ: "at+jwt" }))).subject).toBe("alice");
  });

  it("refuses sender-constrained tokens (cnf): it checks no proof of possession", async () => {
    const key = await signingKey("k1");
    const bound = await mint(key, { cnf: { jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" } });
    expect(await tokenRefusal(verifier([key]).verify(bound))).toMatch(/cnf/);
  });

  it("refuses garbage without echoing it", async () => {
    const key = await signingKey("k1");
    const message = await tokenRefusal(verifier([key]).verify("not-a-jwt-secret-value"));
    expect(message).not.toContain("not-a-jwt-secret-value");
  });
});

describe("JwtVerifier.verifyToken (the HTTP hook)", () => {
  const request = (authorization?: string) =>
    new Request(RESOURCE, { method: "POST", headers: authorization ? { authorization } : {} });

  it("reads Bearer in any case; no header or another scheme is no identity", async () => {
    const key = await signingKey("k1");
    const check = verifier([key]);
    const token = await mint(key);
    expect((await check.verifyToken(request(`bearer ${token}`)))?.subject).toBe("alice");
    expect((await check.verifyToken(request(`Bearer  ${token} `)))?.subject).toBe("alice");
    expect(await check.verifyToken(request())).toBeUndefined();
    expect(await check.verifyToken(request("Basic dXNlcjpwYXNz"))).toBeUndefined();
  });

  it("refuses a malformed Bearer credential rather than treating it as none", async () => {
    const key = await signingKey("k1");
    const check = verifier([key]);
    const token = await mint(key);
    for (const authorization of [
      "Bearer",
      `Bearer ${token} ${token}`,
      `Bearer ${token}, Basic dXNlcjpwYXNz`,
      `Bearer\t${token}`,
    ]) {
      expect(await tokenRefusal(check.verifyToken(request(authorization)))).toBe(
        "the Authorization header is not one Bearer token",
      );
    }
  });

  it("refuses DPoP-scheme tokens", async () => {
    const key = await signingKey("k1");
    expect(await tokenRefusal(verifier([key]).verifyToken(request(`DPoP ${await mint(key)}`)))).toMatch(
      /DPoP/,
    );
  });
});

describe("JwtVerifier options", () => {
  const jwks = { keys: [] };
  it.each([
    [{ issuer: "", audience: RESOURCE, jwks }, /issuer/],
    [{ issuer: ISSUER, audience: [], jwks }, /audience/],
    [{ issuer: ISSUER, audience: "", jwks }, /audience/],
    [{ issuer: ISSUER, audience: RESOURCE, jwks, jwksUri: "https://auth.example.com/jwks" }, /at most one/],
    [{ issuer: "http://auth.example.com", audience: RESOURCE }, /issuer .*https/],
    [{ issuer: "auth server", audience: RESOURCE }, /issuer .*https/],
    [{ issuer: ISSUER, audience: RESOURCE, jwksUri: "http://auth.example.com/jwks" }, /https/],
    [{ issuer: ISSUER, audience: RESOURCE, jwks, algorithms: ["HS256"] }, /HS256/],
    [{ issuer: ISSUER, audience: RESOURCE, jwks, algorithms: ["none"] }, /none/],
    [{ issuer: ISSUER, audience: RESOURCE, jwks, algorithms: [] }, /empty list/],
    [{ issuer: ISSUER, audience: RESOURCE, jwks, clockToleranceSec: -1 }, /clockToleranceSec/],
    [
      { issuer: ISSUER, audience: RESOURCE, jwksUri: "http://127.0.0.1:1/jwks", maxJwksBytes: Number.NaN },
      /maxJwksBytes/,
    ],
  ] as [JwtVerifierOptions, RegExp][])("refuses %j", (options, message) => {
    expect(() => new JwtVerifier(options)).toThrow(message);
  });
});

/** A JWKS endpoint on 127.0.0.1 whose document and status the test changes; counts its GETs. */
async function jwksServer(): Promise<{
  url: string;
  keys: JWK[];
  gets: () => number;
  answer: (status: number, body?: string) => void;
}> {
  const keys: JWK[] = [];
  let gets = 0;
  let forced: { status: number; body?: string } | undefined;
  const server: Server = createServer((_req, res) => {
    gets++;
    const body = forced?.body ?? JSON.stringify({ keys });
    res.writeHead(forced?.status ?? 200, { "content-type": "application/json" });
    res.end(body);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${port}/jwks`,
    keys,
    gets: () => gets,
    answer: (status, body) => {
      forced = { status, body };
    },
  };
}

describe("JwtVerifier with a fetched key set (real loopback JWKS endpoint)", () => {
  it("fetches the set once, caches it, and fetches again for a rotated key after the cooldown", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const endpoint = await jwksServer();
    const first = await signingKey("2026-a");
    endpoint.keys.push(first.jwk);
    const check = new JwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwksUri: endpoint.url });
    expect((await check.verify(await mint(first))).subject).toBe("alice");
    expect((await check.verify(await mint(first))).subject).toBe("alice");
    expect(endpoint.gets()).toBe(1);

    const next = await signingKey("2026-b");
    endpoint.keys.push(next.jwk);
    // Within the cooldown an unknown kid is refused without hammering the issuer.
    await tokenRefusal(check.verify(await mint(next)));
    expect(endpoint.gets()).toBe(1);
    vi.setSystemTime(Date.now() + 31_000);
    expect((await check.verify(await mint(next))).subject).toBe("alice");
    expect(endpoint.gets()).toBe(2);
  });

  it("refuses tokens while the key set cannot be read: error status, oversized or unreachable", async () => {
    const endpoint = await jwksServer();
    const key = await signingKey("k1");
    endpoint.keys.push(key.jwk);
    endpoint.answer(500, "{}");
    const failing = new JwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwksUri: endpoint.url });
    await tokenRefusal(failing.verify(await mint(key)));

    endpoint.answer(200, JSON.stringify({ keys: [key.jwk], padding: "x".repeat(4096) }));
    const bounded = new JwtVerifier({
      issuer: ISSUER,
      audience: RESOURCE,
      jwksUri: endpoint.url,
      maxJwksBytes: 1024,
    });
    expect(await tokenRefusal(bounded.verify(await mint(key)))).toMatch(/larger than 1024 bytes/);
    const roomy = new JwtVerifier({
      issuer: ISSUER,
      audience: RESOURCE,
      jwksUri: endpoint.url,
      maxJwksBytes: 8192,
    });
    expect((await roomy.verify(await mint(key))).subject).toBe("alice");

    const closed = `http://127.0.0.1:${await freePort()}/jwks`;
    const unreachable = new JwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwksUri: closed });
    await tokenRefusal(unreachable.verify(await mint(key)));
  });
});

describe("JwtVerifier when the key set cannot be read (real loopback JWKS endpoint)", () => {
  it("asks again at most every 30 s, however many tokens (random kids) arrive meanwhile", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    for (const status of [500, 200]) {
      const endpoint = await jwksServer();
      const key = await signingKey("k1");
      endpoint.keys.push(key.jwk);
      if (status === 500) endpoint.answer(500, "{}");
      else endpoint.answer(200, "not json");
      const check = new JwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwksUri: endpoint.url });
      for (const kid of ["a", "b", "c", "d"])
        await tokenRefusal(check.verify(await mint(await signingKey(kid))));
      expect(endpoint.gets()).toBe(1);
      endpoint.answer(200, JSON.stringify({ keys: [key.jwk] }));
      vi.setSystemTime(Date.now() + 29_000);
      await tokenRefusal(check.verify(await mint(key)));
      expect(endpoint.gets()).toBe(1);
      vi.setSystemTime(Date.now() + 2_000);
      expect((await check.verify(await mint(key))).subject).toBe("alice");
      expect(endpoint.gets()).toBe(2);
    }
  });
});

describe("JwtVerifier behind serveHttp (the wire)", () => {
  async function serve(requireAuth = true) {
    const key = await signingKey("k1");
    const warnings: string[] = [];
    const mcp = new MCPServer("notes", { logger: silentLogger });
    mcp.tool("whoami", {}, (_args, ctx) => `${ctx.authInfo?.subject} via ${ctx.authInfo?.clientId}`);
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const jwt = new JwtVerifier({ issuer: ISSUER, audience: resource, jwks: { keys: [key.jwk] } });
    const http = await serveHttp(mcp, {
      port,
      requireAuth,
      protectedResource: { resource, authorizationServers: [ISSUER] },
      verifyToken: jwt.verifyToken,
      logger: { ...silentLogger, warn: (message: string) => warnings.push(message) },
    });
    closers.push(() => http.close());
    return { http, key, resource, warnings };
  }

  it("serves a client whose token verifies, with the identity in ctx.authInfo", async () => {
    const { http, key, resource } = await serve();
    const token = await mint(key, { aud: resource });
    const client = await Client.connect(
      new StreamableHttpClientTransport(http.url, { authProvider: () => token }),
    );
    closers.push(() => client.close());
    const result = await client.callTool("whoami", {});
    expect(result.content).toEqual([{ type: "text", text: "alice via notes-app" }]);
  });

  it("answers a refused token 401 invalid_token, and logs why without the token", async () => {
    const { http, key, resource, warnings } = await serve();
    const cases = [
      await mint(key, { aud: resource, exp: now() - 3600 }),
      await mint(key, { aud: RESOURCE }),
      await mint(await signingKey("k1"), { aud: resource }),
    ];
    for (const token of cases) {
      const response = await post(http.url, rpc("tools/call", { name: "whoami" }), {
        authorization: `Bearer ${token}`,
      });
      const challenge = response.headers.get("www-authenticate");
      const { status, body } = await read(response);
      expect(status).toBe(401);
      expect(challenge).toBe(
        `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:${http.url.port}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(body).toEqual(UNAUTHORIZED_BODY);
    }
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/verifyToken failed: TokenRejected: .*"exp"/);
    expect(warnings[1]).toMatch(/"aud"/);
    expect(warnings[2]).toMatch(/signature/);
    for (const [index, token] of cases.entries()) expect(warnings[index]).not.toContain(token.split(".")[2]);
  });

  it("answers a malformed Bearer credential 401 invalid_token even when auth is optional", async () => {
    const { http, key, resource, warnings } = await serve(false);
    const token = await mint(key, { aud: resource });
    for (const authorization of [
      `Bearer ${token} ${token}`,
      `Bearer ${token}, Basic dXNlcjpwYXNz`,
      "Bearer",
      // A tab is not the space RFC 9110 puts after the scheme: not "another scheme", served anonymous.
      `Bearer\t${token}`,
    ]) {
      const response = await post(http.url, rpc("tools/call", { name: "whoami" }), { authorization });
      const challenge = response.headers.get("www-authenticate");
      expect(await read(response)).toEqual({
        status: 401,
        contentType: "application/json",
        body: UNAUTHORIZED_BODY,
      });
      expect(challenge).toBe(
        `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:${http.url.port}/.well-known/oauth-protected-resource/mcp"`,
      );
    }
    expect(warnings).toHaveLength(4);
    for (const warning of warnings) {
      expect(warning).toMatch(
        /^\[http\] verifyToken failed: TokenRejected: the Authorization header is not one/,
      );
      expect(warning).not.toContain(token.split(".")[2]);
    }
  });

  it("refuses on the wire a token past its exp even within the clock tolerance verify allows", async () => {
    const { http, key, resource } = await serve();
    const token = await mint(key, { aud: resource, exp: now() - 10 });
    const jwt = new JwtVerifier({ issuer: ISSUER, audience: resource, jwks: { keys: [key.jwk] } });
    expect((await jwt.verify(token)).subject).toBe("alice");
    const response = await post(http.url, rpc("tools/call", { name: "whoami" }), {
      authorization: `Bearer ${token}`,
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:${http.url.port}/.well-known/oauth-protected-resource/mcp"`,
    );
    await response.body?.cancel();
  });

  it("answers no token 401 without an error code", async () => {
    const { http } = await serve();
    const response = await post(http.url, rpc("tools/call", { name: "whoami" }));
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).not.toContain("error=");
    await response.body?.cancel();
  });
});

/** An issuer on 127.0.0.1 whose metadata documents the test sets; counts requests per path. */
async function issuerServer(): Promise<{
  issuer: string;
  documents: Map<string, unknown>;
  keys: JWK[];
  hits: (path: string) => number;
}> {
  const documents = new Map<string, unknown>();
  const keys: JWK[] = [];
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const body = path === "/jwks" ? { keys } : documents.get(path);
    res.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" });
    res.end(body === undefined ? "{}" : JSON.stringify(body));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { issuer: `http://127.0.0.1:${port}`, documents, keys, hits: (path) => hits.get(path) ?? 0 };
}

const AS_METADATA = "/.well-known/oauth-authorization-server";
const OIDC_METADATA = "/.well-known/openid-configuration";

describe("JwtVerifier without jwksUri: the keys named by the issuer's metadata", () => {
  async function signedBy(issuer: string) {
    const key = await signingKey("k1");
    return { key, token: await mint(key, { iss: issuer }) };
  }

  it("reads jwks_uri from the RFC 8414 metadata once, then verifies with those keys", async () => {
    const as = await issuerServer();
    const { key, token } = await signedBy(as.issuer);
    as.keys.push(key.jwk);
    as.documents.set(AS_METADATA, { issuer: as.issuer, jwks_uri: `${as.issuer}/jwks` });
    const check = new JwtVerifier({ issuer: as.issuer, audience: RESOURCE });
    expect((await check.verify(token)).issuer).toBe(as.issuer);
    expect((await check.verify(token)).subject).toBe("alice");
    expect([as.hits(AS_METADATA), as.hits("/jwks")]).toEqual([1, 1]);
  });

  it("falls back to OpenID discovery", async () => {
    const as = await issuerServer();
    const { key, token } = await signedBy(as.issuer);
    as.keys.push(key.jwk);
    as.documents.set(OIDC_METADATA, { issuer: as.issuer, jwks_uri: `${as.issuer}/jwks` });
    const check = new JwtVerifier({ issuer: as.issuer, audience: RESOURCE });
    expect((await check.verify(token)).subject).toBe("alice");
    expect([as.hits(AS_METADATA), as.hits(OIDC_METADATA)]).toEqual([1, 1]);
  });

  it("refuses metadata that names another issuer, or no usable jwks_uri", async () => {
    for (const [documentFor, reason] of [
      [
        () => ({ issuer: "https://evil.example", jwks_uri: "https://evil.example/jwks" }),
        /names another issuer/,
      ],
      [(issuer: string) => ({ jwks_uri: `${issuer}/jwks` }), /names another issuer/],
      [(issuer: string) => ({ issuer, jwks_uri: "http://keys.example/jwks" }), /no HTTPS jwks_uri/],
      [(issuer: string) => ({ issuer }), /no HTTPS jwks_uri/],
    ] as [(issuer: string) => Record<string, unknown>, RegExp][]) {
      const as = await issuerServer();
      const document = documentFor(as.issuer);
      as.documents.set(AS_METADATA, document);
      const { token } = await signedBy(as.issuer);
      const check = new JwtVerifier({ issuer: as.issuer, audience: RESOURCE });
      expect(await tokenRefusal(check.verify(token)), JSON.stringify(document)).toMatch(reason);
    }
  });

  it("never lets a remote issuer's metadata point at this machine (its own fetch, a test double)", async () => {
    const asked: string[] = [];
    const fakeFetch = (async (input: URL | RequestInfo) => {
      asked.push(String(input));
      return Response.json({ issuer: ISSUER, jwks_uri: "http://127.0.0.1:9/jwks" });
    }) as typeof fetch;
    const check = new JwtVerifier({ issuer: ISSUER, audience: RESOURCE, fetch: fakeFetch });
    const key = await signingKey("k1");
    expect(await tokenRefusal(check.verify(await mint(key)))).toMatch(/no HTTPS jwks_uri/);
    expect(asked).toEqual([`${ISSUER}${AS_METADATA}`]);
  });

  it("after a failed read, refuses tokens for 30 s without asking again, then reads it anew", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const as = await issuerServer();
    const { key, token } = await signedBy(as.issuer);
    as.keys.push(key.jwk);
    const check = new JwtVerifier({ issuer: as.issuer, audience: RESOURCE });
    expect(await tokenRefusal(check.verify(token))).toMatch(/no metadata found/);
    const asked = as.hits(AS_METADATA);
    as.documents.set(AS_METADATA, { issuer: as.issuer, jwks_uri: `${as.issuer}/jwks` });
    expect(await tokenRefusal(check.verify(token))).toMatch(/no metadata found/);
    expect(as.hits(AS_METADATA)).toBe(asked);
    vi.setSystemTime(Date.now() + 31_000);
    const fresh = await mint(key, { iss: as.issuer });
    expect((await check.verify(fresh)).subject).toBe("alice");
    expect(as.hits(AS_METADATA)).toBe(asked + 1);
  });
});
