import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthInfo } from "../../../src/shared/dispatch.js";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { signalled } from "../../helpers.js";
import { headersFor, makeServer, post, read, rpc, startServer, UNAUTHORIZED_BODY } from "./helpers.js";

/** POST with an arbitrary Host header (fetch would not let us set it). */
function postWithHost(url: URL, host: string, extra: Record<string, string> = {}) {
  const body = rpc("server/discover");
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", headers: { ...headersFor(body), host, ...extra } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

describe("DNS-rebinding protection on a loopback bind", () => {
  let endpoint: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    endpoint = await startServer();
  });
  afterAll(() => endpoint.close());

  it("answers a foreign Host with 421", async () => {
    for (const host of [
      "evil.example.com",
      "evil.example.com:80",
      "localhost.evil.com",
      "127.0.0.1.nip.io",
      "[::2]:1",
    ]) {
      expect(await postWithHost(endpoint.url, host)).toEqual({
        status: 421,
        body: {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "Misdirected Request: Host not allowed" },
        },
      });
    }
  });

  it("serves loopback Hosts on any port", async () => {
    for (const host of ["localhost", "LOCALHOST:3000", "127.0.0.1:9", "127.1.2.3", "[::1]:8080"]) {
      expect((await postWithHost(endpoint.url, host)).status).toBe(200);
    }
  });

  it("answers a foreign Origin with 403 and serves loopback ones", async () => {
    for (const origin of [
      "http://evil.example.com",
      "null",
      "file://",
      "ftp://localhost",
      "http://localhost.evil.com",
    ]) {
      expect(await read(await post(endpoint.url, rpc("server/discover"), { origin }))).toEqual({
        status: 403,
        contentType: "application/json",
        body: { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Forbidden: Origin not allowed" } },
      });
    }
    for (const origin of ["http://localhost:5173", "https://127.0.0.1", "http://[::1]:3000"]) {
      expect((await post(endpoint.url, rpc("server/discover"), { origin })).status).toBe(200);
    }
  });

  it("checks before the HTTP method, the media type and the body", async () => {
    const res = await post(endpoint.url, "garbage", {
      origin: "http://evil.example.com",
      "content-type": "text/plain",
    });
    expect(res.status).toBe(403);
    const get = await fetch(endpoint.url, { headers: { origin: "http://evil.example.com" } });
    expect(get.status).toBe(403);
  });

  it("refuses the conformance probe (evil Host and Origin) and serves the localhost one", async () => {
    expect(
      (await postWithHost(endpoint.url, "evil.example.com", { origin: "http://evil.example.com" })).status,
    ).toBe(421);
    expect((await postWithHost(endpoint.url, `localhost:${endpoint.url.port}`)).status).toBe(200);
  });
});

describe("explicit lists", () => {
  const handler = createHttpHandler(makeServer().server, {
    localhostOnly: true,
    allowedHosts: ["mcp.example.com", "gw.example.com:8443"],
    allowedOrigins: ["https://app.example.com/"],
  });
  const call = (headers: Record<string, string>) =>
    handler(
      new Request("http://placeholder/mcp", {
        method: "POST",
        headers: { ...headersFor(rpc("server/discover")), ...headers },
        body: JSON.stringify(rpc("server/discover")),
      }),
    );

  it("replace the loopback defaults", async () => {
    expect((await call({ host: "mcp.example.com:443" })).status).toBe(200);
    expect((await call({ host: "GW.example.com:8443" })).status).toBe(200);
    expect((await call({ host: "gw.example.com:9000" })).status).toBe(421);
    expect((await call({ host: "localhost" })).status).toBe(421);
    expect((await call({ host: "mcp.example.com", origin: "https://app.example.com" })).status).toBe(200);
    expect((await call({ host: "mcp.example.com", origin: "http://localhost" })).status).toBe(403);
  });

  it("without lists and not localhost-only: any Host, and an Origin only from this host", async () => {
    const open = createHttpHandler(makeServer().server);
    const post = (url: string, headers: Record<string, string>) =>
      open(
        new Request(url, {
          method: "POST",
          headers: { ...headersFor(rpc("server/discover")), ...headers },
          body: JSON.stringify(rpc("server/discover")),
        }),
      );
    expect((await post("http://anything.example/mcp", {})).status).toBe(200);
    const same: [string, Record<string, string>][] = [
      ["https://mcp.example.com/mcp", { origin: "https://mcp.example.com" }],
      ["https://mcp.example.com/mcp", { host: "MCP.example.com:443", origin: "https://mcp.example.com" }],
      ["http://mcp.example.com:8080/mcp", { origin: "http://mcp.example.com:8080" }],
      ["http://[::1]:3000/mcp", { origin: "http://[::1]:3000" }],
    ];
    for (const [url, headers] of same)
      expect((await post(url, headers)).status, JSON.stringify(headers)).toBe(200);
    const foreign: [string, Record<string, string>][] = [
      ["https://mcp.example.com/mcp", { origin: "https://elsewhere.example" }],
      ["https://mcp.example.com/mcp", { origin: "https://mcp.example.com:8443" }],
      ["https://mcp.example.com/mcp", { origin: "http://mcp.example.com:443" }],
      ["http://mcp.example.com:8080/mcp", { origin: "http://mcp.example.com" }],
      ["https://mcp.example.com/mcp", { origin: "null" }],
      ["https://mcp.example.com/mcp", { origin: "file://" }],
      ["https://mcp.example.com/mcp", { origin: "ftp://mcp.example.com" }],
      ["https://mcp.example.com/mcp", { host: "bad host", origin: "https://mcp.example.com" }],
    ];
    for (const [url, headers] of foreign) {
      const res = await post(url, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Forbidden: Origin not allowed" },
      });
    }
  });
});

describe("bearer auth", () => {
  const seen: (AuthInfo | undefined)[] = [];
  let endpoint: Awaited<ReturnType<typeof startServer>>;
  const errors: string[] = [];
  beforeAll(async () => {
    endpoint = await startServer({
      requireAuth: true,
      resourceMetadataUrl: "https://mcp.example.com/.well-known/oauth-protected-resource",
      logger: { warn: (m) => errors.push(m), error: (m) => errors.push(m) },
      verifyToken: (request) => {
        const header = request.headers.get("authorization");
        if (header === "Bearer explode-s3cret") throw new Error(`cannot verify ${header}`);
        return header === "Bearer good-token"
          ? { token: "good-token", clientId: "c1", scopes: ["mcp"] }
          : undefined;
      },
    });
    endpoint.server.middleware.push(async (ctx, next) => {
      seen.push(ctx.authInfo);
      return next(ctx);
    });
  });
  afterAll(() => endpoint.close());

  it("answers a missing token with 401 and a Bearer challenge naming the metadata", async () => {
    const res = await post(endpoint.url, rpc("tools/list"));
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"',
    );
    expect(await read(res)).toEqual({
      status: 401,
      contentType: "application/json",
      body: UNAUTHORIZED_BODY,
    });
  });

  it("answers a non-Bearer scheme like a missing token: 401 with no error code (RFC 6750 §3.1)", async () => {
    for (const authorization of ["Basic dXNlcjpwYXNz", "Bearerish x", "Digest username=u"]) {
      const res = await post(endpoint.url, rpc("tools/list"), { authorization });
      expect(res.headers.get("www-authenticate"), authorization).toBe(
        'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"',
      );
      expect(await read(res)).toEqual({
        status: 401,
        contentType: "application/json",
        body: UNAUTHORIZED_BODY,
      });
    }
  });

  it("answers a malformed Bearer header with 401 error=invalid_token", async () => {
    for (const authorization of ["Bearer", "bearer  ", "BEARER a b c"]) {
      const res = await post(endpoint.url, rpc("tools/list"), { authorization });
      expect(res.headers.get("www-authenticate"), authorization).toBe(
        'Bearer error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"',
      );
      expect(await read(res)).toEqual({
        status: 401,
        contentType: "application/json",
        body: UNAUTHORIZED_BODY,
      });
    }
  });

  it("answers an invalid token with 401 error=invalid_token, never echoing it", async () => {
    const res = await post(endpoint.url, rpc("tools/list"), { authorization: "Bearer wrong-s3cret" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"',
    );
    expect(await res.text()).not.toContain("s3cret");
  });

  it("denies when the verifier throws, and logs without the token", async () => {
    const res = await post(endpoint.url, rpc("tools/list"), { authorization: "Bearer explode-s3cret" });
    expect(res.status).toBe(401);
    expect(errors.join("\n")).toContain("verifyToken failed");
    expect(errors.join("\n")).not.toContain("s3cret");
  });

  it("passes the verified identity to handlers as ctx.authInfo", async () => {
    const res = await post(endpoint.url, rpc("tools/list"), { authorization: "Bearer good-token" });
    expect(res.status).toBe(200);
    expect(seen.at(-1)).toEqual({ token: "good-token", clientId: "c1", scopes: ["mcp"] });
  });

  it("refuses a malformed resourceMetadataUrl at setup", () => {
    expect(() => createHttpHandler(makeServer().server, { resourceMetadataUrl: "not a url" })).toThrow(
      TypeError,
    );
  });

  it("fills authInfo without requiring it when requireAuth is off", async () => {
    const { server } = makeServer();
    const infos: (AuthInfo | undefined)[] = [];
    server.middleware.push(async (ctx, next) => {
      infos.push(ctx.authInfo);
      return next(ctx);
    });
    const handler = createHttpHandler(server, {
      verifyToken: (r) =>
        r.headers.get("authorization") ? { token: "t", clientId: "c", scopes: [] } : undefined,
    });
    const make = (auth?: string) =>
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { ...headersFor(rpc("tools/list")), ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify(rpc("tools/list")),
      });
    expect((await handler(make())).status).toBe(200);
    expect((await handler(make("Bearer t"))).status).toBe(200);
    expect(infos).toEqual([undefined, { token: "t", clientId: "c", scopes: [] }]);
  });

  describe("verifyToken sees the request without its body, so reading it cannot break the call", () => {
    /** A verifier that reads everything it is given, and what it saw. */
    function greedyVerifier() {
      const seen: { method: string; url: string; auth: string | null; body: string; bodyUsed: boolean }[] =
        [];
      const verifyToken = async (request: Request): Promise<AuthInfo | undefined> => {
        const body = await request.text();
        seen.push({
          method: request.method,
          url: request.url,
          auth: request.headers.get("authorization"),
          body,
          bodyUsed: request.bodyUsed,
        });
        return { token: "t", clientId: "c", scopes: [] };
      };
      return { seen, verifyToken };
    }

    it("over node:http (serveHttp)", async () => {
      const { seen, verifyToken } = greedyVerifier();
      const served = await startServer({ verifyToken, requireAuth: true });
      try {
        const body = rpc("tools/call", { name: "echo", arguments: { big: "x".repeat(100_000) } }, 3);
        const res = await post(served.url, body, { authorization: "Bearer t" });
        expect(res.status).toBe(200);
        expect(
          ((await res.json()) as { result: { content: { text: string }[] } }).result.content[0]?.text,
        ).toBe(`echo:${JSON.stringify({ big: "x".repeat(100_000) })}`);
        expect(seen).toEqual([
          { method: "POST", url: served.url.href, auth: "Bearer t", body: "", bodyUsed: false },
        ]);
      } finally {
        await served.close();
      }
    });

    it("over fetch(Request) (createHttpHandler)", async () => {
      const { seen, verifyToken } = greedyVerifier();
      const handler = createHttpHandler(makeServer().server, { verifyToken, requireAuth: true });
      const body = rpc("tools/call", { name: "echo", arguments: { a: 1 } }, 4);
      const res = await handler(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...headersFor(body), authorization: "Bearer t" },
          body: JSON.stringify(body),
        }),
      );
      expect(await read(res)).toMatchObject({
        status: 200,
        body: { id: 4, result: { content: [{ text: 'echo:{"a":1}' }] } },
      });
      expect(seen).toEqual([
        { method: "POST", url: "http://localhost/mcp", auth: "Bearer t", body: "", bodyUsed: false },
      ]);
    });
  });
});

describe("a verifier still running when the client goes away", () => {
  it("sees its request's signal abort, over serveHttp (a slow introspection call can stop)", async () => {
    const started = signalled();
    const aborted = signalled();
    const endpoint = await startServer({
      verifyToken: (request) =>
        new Promise<undefined>((resolve) => {
          request.signal.addEventListener("abort", () => {
            aborted.fire();
            resolve(undefined);
          });
          started.fire();
        }),
    });
    try {
      const body = rpc("tools/list");
      const client = new AbortController();
      const sent = fetch(endpoint.url, {
        method: "POST",
        headers: { ...headersFor(body), authorization: "Bearer slow" },
        body: JSON.stringify(body),
        signal: client.signal,
      }).catch((error: unknown) => error);
      await started.done;
      client.abort();
      await aborted.done;
      expect(await sent).toMatchObject({ name: "AbortError" });
    } finally {
      await endpoint.close();
    }
  });
});
