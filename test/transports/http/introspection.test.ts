// IntrospectionVerifier: opaque tokens checked with the authorization server (RFC 7662) on real
// loopback sockets: the exact introspection request, every refusal, the cache, discovery, and the
// whole chain with the mock authorization server behind serveHttp.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { serveReports } from "../../../examples/introspection-server.js";
import { Client } from "../../../src/client/index.js";
import { ClientCredentialsProvider } from "../../../src/transports/http/oauth/index.js";
import {
  IntrospectionVerifier,
  type IntrospectionVerifierOptions,
} from "../../../src/transports/http/verifiers/introspection.js";
import { freePort, MockAuthorizationServer } from "../oauth/world.js";
import { post, read, rpc, tokenRefusal, UNAUTHORIZED_BODY } from "./helpers.js";

const RESOURCE = "https://mcp.example.com/mcp";
const now = () => Math.floor(Date.now() / 1000);

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const close of closers.splice(0).reverse()) await close();
});

interface Seen {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** An authorization server on 127.0.0.1 whose introspection answer the test scripts. */
async function scriptedServer() {
  const seen: Seen[] = [];
  let answer: (token: string) => { status: number; body: string } = () => ({ status: 200, body: "{}" });
  const documents = new Map<string, unknown>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ path: req.url ?? "", headers: req.headers, body });
      const document = documents.get(req.url ?? "");
      const reply =
        document !== undefined
          ? { status: 200, body: JSON.stringify(document) }
          : req.url === "/introspect"
            ? answer(new URLSearchParams(body).get("token") ?? "")
            : { status: 404, body: "{}" };
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(reply.body);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const issuer = `http://127.0.0.1:${port}`;
  return {
    issuer,
    endpoint: `${issuer}/introspect`,
    seen,
    documents,
    introspections: () => seen.filter((entry) => entry.path === "/introspect").length,
    answer: (script: (token: string) => Record<string, unknown> | { status: number; body: string }) => {
      answer = (token) => {
        const value = script(token);
        return "status" in value && typeof value.body === "string"
          ? (value as { status: number; body: string })
          : { status: 200, body: JSON.stringify(value) };
      };
    },
  };
}

type Scripted = Awaited<ReturnType<typeof scriptedServer>>;

function verifierFor(as: Scripted, options: Partial<IntrospectionVerifierOptions> = {}) {
  return new IntrospectionVerifier({
    issuer: as.issuer,
    audience: RESOURCE,
    clientId: "mcp resource",
    clientSecret: "s:e/c ret",
    introspectionEndpoint: as.endpoint,
    ...options,
  });
}

const ACTIVE = (as: Scripted) => ({
  active: true,
  client_id: "notes-app",
  scope: "notes:read",
  sub: "alice",
  iss: as.issuer,
  aud: [RESOURCE],
  exp: now() + 600,
});

describe("IntrospectionVerifier.verify", () => {
  it("asks with the resource's credentials and maps an active answer to AuthInfo", async () => {
    const as = await scriptedServer();
    const answer = ACTIVE(as);
    as.answer(() => answer);
    const info = await verifierFor(as).verify("opaque-token-1");
    expect(info).toEqual({
      token: "opaque-token-1",
      clientId: "notes-app",
      scopes: ["notes:read"],
      issuer: as.issuer,
      subject: "alice",
      expiresAt: answer.exp,
      resource: RESOURCE,
      extra: expect.objectContaining({ active: true }),
    });
    const [request] = as.seen;
    expect(request?.body).toBe("token=opaque-token-1&token_type_hint=access_token");
    expect(request?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    // RFC 6749 §2.3.1: each part form-encoded before Basic.
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from("mcp%20resource:s%3Ae%2Fc%20ret").toString("base64")}`,
    );
  });

  it("refuses every answer that does not vouch for this resource, now", async () => {
    const as = await scriptedServer();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...ACTIVE(as), active: false }, /not active/],
      [{ ...ACTIVE(as), active: "true" }, /not active/],
      [{ active: false }, /not active/],
      [{ ...ACTIVE(as), iss: "https://evil.example" }, /another issuer/],
      [{ ...ACTIVE(as), aud: undefined }, /another resource/],
      [{ ...ACTIVE(as), aud: "https://other.example/mcp" }, /another resource/],
      [{ ...ACTIVE(as), exp: now() - 1 }, /expired/],
      [{ ...ACTIVE(as), exp: "tomorrow" }, /expired/],
      [{ ...ACTIVE(as), nbf: now() + 60 }, /not valid yet/],
      [{ ...ACTIVE(as), cnf: { jkt: "abc" } }, /sender-constrained/],
    ];
    for (const [answer, reason] of cases) {
      as.answer(() => answer);
      expect(await tokenRefusal(verifierFor(as).verify("t")), JSON.stringify(answer)).toMatch(reason);
    }
    const optional = { ...ACTIVE(as), iss: undefined, exp: undefined };
    as.answer(() => optional);
    expect((await verifierFor(as).verify("t")).subject).toBe("alice");
  });

  it("refuses when the endpoint fails, answers garbage or too much, or cannot be reached", async () => {
    const as = await scriptedServer();
    const cases: [{ status: number; body: string }, RegExp][] = [
      [{ status: 401, body: '{"error":"invalid_client"}' }, /HTTP 401/],
      [{ status: 500, body: "oops" }, /HTTP 500/],
      [{ status: 200, body: "not json" }, /not JSON/],
      [{ status: 200, body: "[1]" }, /not a JSON object/],
      [
        { status: 200, body: JSON.stringify({ ...ACTIVE(as), pad: "x".repeat(2048) }) },
        /larger than 1024 bytes/,
      ],
    ];
    for (const [reply, reason] of cases) {
      as.answer(() => reply);
      expect(await tokenRefusal(verifierFor(as, { maxResponseBytes: 1024 }).verify("t")), reply.body).toMatch(
        reason,
      );
    }
    const closed = `http://127.0.0.1:${await freePort()}/introspect`;
    const unreachable = verifierFor(as, { introspectionEndpoint: closed });
    expect(await tokenRefusal(unreachable.verify("t"))).toMatch(/introspection failed/);
  });

  it("never echoes the token in a refusal", async () => {
    const as = await scriptedServer();
    as.answer(() => ({ active: false }));
    expect(await tokenRefusal(verifierFor(as).verify("secret-token-value"))).not.toContain(
      "secret-token-value",
    );
  });
});

describe("IntrospectionVerifier cache", () => {
  it("reuses an active answer for cacheTtlMs, never past the token's exp", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const as = await scriptedServer();
    const exp = now() + 45;
    as.answer(() => ({ ...ACTIVE(as), exp }));
    const check = verifierFor(as, { cacheTtlMs: 30_000 });
    await check.verify("t");
    await check.verify("t");
    expect(as.introspections()).toBe(1);
    vi.setSystemTime(Date.now() + 31_000);
    await check.verify("t");
    expect(as.introspections()).toBe(2);
    // Cached at t+31 s until the token's exp (t+45 s), not t+61 s.
    vi.setSystemTime(Date.now() + 15_000);
    expect(await tokenRefusal(check.verify("t"))).toMatch(/expired/);
    expect(as.introspections()).toBe(3);
  });

  it("does not cache refusals, and asks every time with cacheTtlMs 0", async () => {
    const as = await scriptedServer();
    let active = false;
    as.answer(() => (active ? ACTIVE(as) : { active: false }));
    const check = verifierFor(as);
    await tokenRefusal(check.verify("fresh"));
    active = true;
    expect((await check.verify("fresh")).subject).toBe("alice");
    const uncached = verifierFor(as, { cacheTtlMs: 0 });
    const before = as.introspections();
    await uncached.verify("fresh");
    await uncached.verify("fresh");
    expect(as.introspections()).toBe(before + 2);
  });

  it("keeps at most maxCachedTokens answers, dropping the least recently used", async () => {
    const as = await scriptedServer();
    as.answer(() => ACTIVE(as));
    const check = verifierFor(as, { maxCachedTokens: 2 });
    await check.verify("a");
    await check.verify("b");
    await check.verify("a"); // a is now the most recent
    await check.verify("c"); // evicts b
    expect(as.introspections()).toBe(3);
    await check.verify("a");
    await check.verify("c");
    expect(as.introspections()).toBe(3);
    await check.verify("b");
    expect(as.introspections()).toBe(4);
  });
});

describe("IntrospectionVerifier endpoint and options", () => {
  it("finds introspection_endpoint in the issuer's metadata, once", async () => {
    const as = await scriptedServer();
    as.documents.set("/.well-known/oauth-authorization-server", {
      issuer: as.issuer,
      introspection_endpoint: as.endpoint,
    });
    as.answer(() => ACTIVE(as));
    const check = verifierFor(as, { introspectionEndpoint: undefined, cacheTtlMs: 0 });
    await check.verify("t");
    await check.verify("t");
    expect(as.seen.map((entry) => entry.path)).toEqual([
      "/.well-known/oauth-authorization-server",
      "/introspect",
      "/introspect",
    ]);
  });

  const base = { issuer: "https://auth.example.com", audience: RESOURCE, clientId: "rs", clientSecret: "x" };
  it.each([
    [{ ...base, issuer: "" }, /issuer/],
    [{ ...base, audience: [] }, /audience/],
    [{ ...base, clientId: "" }, /clientId/],
    [{ ...base, clientSecret: undefined }, /clientSecret/],
    [
      { ...base, introspectionEndpoint: "http://auth.example.com/introspect" },
      /introspectionEndpoint .*https/,
    ],
    [{ ...base, issuer: "http://auth.example.com" }, /issuer .*https/],
    [{ ...base, cacheTtlMs: -1 }, /cacheTtlMs/],
    [{ ...base, maxCachedTokens: 0 }, /maxCachedTokens/],
    [{ ...base, timeoutMs: Number.NaN }, /timeoutMs/],
  ] as [IntrospectionVerifierOptions, RegExp][])("refuses %j", (options, message) => {
    expect(() => new IntrospectionVerifier(options)).toThrow(message);
  });
});

describe("examples/introspection-server.ts, with the mock authorization server", () => {
  async function world() {
    const authServer = await MockAuthorizationServer.start({
      introspection: true,
      clients: { "mcp-resource": "rs-secret", "nightly-job": "job-secret" },
    });
    closers.push(() => authServer.close());
    const publicUrl = new URL(`http://127.0.0.1:${await freePort()}/mcp`);
    const http = await serveReports(publicUrl, authServer.issuer, "rs-secret");
    closers.push(() => http.close());
    return { authServer, publicUrl };
  }

  it("a client that signs in with client credentials calls the tool; its token is introspected", async () => {
    const { authServer, publicUrl } = await world();
    const authProvider = new ClientCredentialsProvider({
      clientId: "nightly-job",
      clientSecret: "job-secret",
    });
    const client = await Client.connect(publicUrl, { http: { authProvider } });
    closers.push(() => client.close());
    const result = await client.callTool("whoami", {});
    expect(result.content).toEqual([{ type: "text", text: "nightly-job [reports:read]" }]);
    const asked = authServer.requests("/introspect");
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(asked[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from("mcp-resource:rs-secret").toString("base64")}`,
    );
  });

  it("answers an unknown token 401 invalid_token", async () => {
    const { publicUrl } = await world();
    const response = await post(publicUrl, rpc("tools/call", { name: "whoami" }), {
      authorization: "Bearer at-made-up",
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:${publicUrl.port}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect((await read(response)).body).toEqual(UNAUTHORIZED_BODY);
  });
});
