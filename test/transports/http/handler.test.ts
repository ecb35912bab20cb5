import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { serveHttp } from "../../../src/transports/http/node.js";
import { headersFor, makeServer, post, read, rpc, SERVER_INFO, startServer } from "./helpers.js";

let endpoint: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  endpoint = await startServer({ maxBodyBytes: 64 * 1024 });
});
afterAll(() => endpoint.close());

const error = (id: number | string | null, code: number, message: string) => ({
  jsonrpc: "2.0",
  id,
  error: { code, message },
});

/** A raw request, for what fetch cannot send (chunked bodies without Content-Length, odd methods). */
function raw(
  method: string,
  headers: Record<string, string>,
  chunks: (string | Buffer)[] = [],
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(endpoint.url, { method, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe("the endpoint accepts POST only", () => {
  it.each(["GET", "DELETE", "PUT", "PATCH", "OPTIONS"])(
    "answers %s with 405 and Allow: POST",
    async (method) => {
      const res = await raw(method, { "last-event-id": "7" });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe("POST");
      expect(JSON.parse(res.body)).toEqual(error(null, -32600, "Method Not Allowed: use POST"));
    },
  );

  it.each(["PUT", "PATCH", "OPTIONS"])("answers %s with 405 even with a session header", async (method) => {
    const res = await raw(method, { "mcp-session-id": "abc" });
    expect([res.status, res.headers.allow]).toEqual([405, "POST"]);
  });

  // A 2025 client's stream or end of a session this endpoint does not hold: the 2025 spec's 404
  // ("start a new session"), as for its POSTs.
  it.each(["GET", "DELETE"])("answers %s of an unknown 2025 session with 404", async (method) => {
    const res = await raw(method, { "mcp-session-id": "abc", accept: "text/event-stream" });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual(error(null, -32600, "Not Found: unknown or expired session"));
  });

  it("answers HEAD with 405 and no body", async () => {
    const res = await raw("HEAD", {});
    expect([res.status, res.headers.allow, res.body]).toEqual([405, "POST", ""]);
  });

  it("ignores Mcp-Session-Id and never mints one", async () => {
    const res = await post(endpoint.url, rpc("tools/list"), { "mcp-session-id": "legacy-session" });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
  });
});

describe("the body", () => {
  it("must be JSON: other content types get 415", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonl"]) {
      const res = await post(endpoint.url, JSON.stringify(rpc("tools/list")), { "content-type": type });
      expect(await read(res)).toEqual({
        status: 415,
        contentType: "application/json",
        body: error(null, -32600, "Unsupported Media Type: use application/json"),
      });
    }
    const charset = await post(endpoint.url, rpc("tools/list"), {
      "content-type": "Application/JSON; charset=utf-8",
    });
    expect(charset.status).toBe(200);
  });

  it("must not be compressed: a Content-Encoding other than identity gets 415 naming identity", async () => {
    const list = rpc("tools/list");
    const gzipped = gzipSync(JSON.stringify(list));
    for (const coding of ["gzip", "br", "identity, gzip"]) {
      const res = await post(endpoint.url, list, { "content-encoding": coding }, { body: gzipped });
      expect(res.headers.get("accept-encoding")).toBe("identity");
      expect(await read(res)).toEqual({
        status: 415,
        contentType: "application/json",
        body: error(null, -32600, "Unsupported Media Type: send the body without a Content-Encoding"),
      });
    }
    for (const coding of ["identity", " Identity "]) {
      expect((await post(endpoint.url, list, { "content-encoding": coding })).status).toBe(200);
    }
  });

  it("over the limit gets 413, from Content-Length up front", async () => {
    const big = JSON.stringify({ ...rpc("tools/list"), pad: "x".repeat(70 * 1024) });
    const res = await post(endpoint.url, big);
    expect(await read(res)).toEqual({
      status: 413,
      contentType: "application/json",
      body: error(null, -32600, "Payload Too Large: the limit is 65536 bytes"),
    });
  });

  it("over the limit by its declared Content-Length gets 413 without being read", async () => {
    const handler = createHttpHandler(makeServer().server, { maxBodyBytes: 1024 });
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode("{}"));
        controller.close();
      },
    });
    const res = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": "2048" },
        body,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it("over the limit gets 413 while streaming a chunked body", async () => {
    const chunk = Buffer.alloc(16 * 1024, "x");
    const res = await raw("POST", { "content-type": "application/json", "transfer-encoding": "chunked" }, [
      Buffer.from('{"pad":"'),
      chunk,
      chunk,
      chunk,
      chunk,
      chunk,
    ]);
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe("close");
    expect(JSON.parse(res.body).error.code).toBe(-32600);
  });

  // NaN (say `Number(process.env.MAX_BODY)` with the variable unset) compared false with every
  // size, and so lifted the limit altogether.
  it.each([Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY])(
    "limit is refused at setup unless a positive integer (%s)",
    async (maxBodyBytes) => {
      const refusal = new RangeError(`maxBodyBytes must be a positive integer, got ${maxBodyBytes}`);
      expect(() => createHttpHandler(makeServer().server, { maxBodyBytes })).toThrow(refusal);
      await expect(serveHttp(makeServer().server, { maxBodyBytes })).rejects.toThrow(refusal);
    },
  );

  it("that is not JSON gets 400 with -32700", async () => {
    for (const text of ["{", "", "not json", '{"jsonrpc":"2.0",}']) {
      expect(await read(await post(endpoint.url, text))).toEqual({
        status: 400,
        contentType: "application/json",
        body: error(null, -32700, "Parse error: the body is not valid JSON"),
      });
    }
  });

  it("that is not UTF-8 gets 400 with -32700", async () => {
    const res = await raw("POST", { "content-type": "application/json" }, [Buffer.from([0x7b, 0xff, 0x7d])]);
    expect([res.status, JSON.parse(res.body)]).toEqual([
      400,
      error(null, -32700, "Parse error: the body is not readable UTF-8"),
    ]);
  });

  it("holds exactly one message: a batch gets 400 with -32600", async () => {
    const res = await post(
      endpoint.url,
      JSON.stringify([rpc("tools/list", {}, 1), rpc("tools/list", {}, 2)]),
    );
    expect(await read(res)).toEqual({
      status: 400,
      contentType: "application/json",
      body: error(null, -32600, "Invalid Request: batches are not supported, send one message per POST"),
    });
  });

  it("that is not a request or notification gets 400 with -32600", async () => {
    const cases: [unknown, number | null, string][] = [
      [42, null, "Invalid Request: POST a JSON-RPC request or notification"],
      [{ jsonrpc: "2.0", id: 3, result: {} }, 3, "Invalid Request: POST a JSON-RPC request or notification"],
      [{ jsonrpc: "1.0", id: 4, method: "tools/list" }, 4, "Invalid Request"],
      [{ jsonrpc: "2.0", id: 1.5, method: "tools/list" }, null, "Invalid Request"],
      [{ jsonrpc: "2.0", method: "notifications/x", params: [1] }, null, "Invalid Request"],
    ];
    for (const [body, id, message] of cases) {
      expect(await read(await post(endpoint.url, JSON.stringify(body)))).toEqual({
        status: 400,
        contentType: "application/json",
        body: error(id, -32600, message),
      });
    }
  });

  it("with an id past the safe integers gets -32600 naming no id, not the one it rounds to", async () => {
    // JSON.parse reads 2^53 + 1 as 2^53: echoing it would answer another request's id.
    const body = '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}';
    expect(await read(await post(endpoint.url, body))).toEqual({
      status: 400,
      contentType: "application/json",
      body: error(null, -32600, "Invalid Request"),
    });
  });
});

describe("the body of a web Request (the fetch handler, as on Workers, Bun or Deno)", () => {
  const handler = createHttpHandler(makeServer().server, { maxBodyBytes: 1024 });
  const url = "http://localhost/mcp";
  const jsonHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const bodyOf = async (response: Response) => [response.status, await response.json()];

  it("over the limit by its declared Content-Length gets 413 without being read", async () => {
    let pulled = 0;
    const body = new ReadableStream({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode("{}"));
        controller.close();
      },
    });
    const request = new Request(url, {
      method: "POST",
      headers: { ...jsonHeaders, "content-length": "999999" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(await bodyOf(await handler(request))).toEqual([
      413,
      error(null, -32600, "Payload Too Large: the limit is 1024 bytes"),
    ]);
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it("over the limit while streaming gets 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(600));
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (sent++ < 5) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const request = new Request(url, {
      method: "POST",
      headers: jsonHeaders,
      body,
      duplex: "half",
    } as RequestInit);
    expect((await handler(request)).status).toBe(413);
    expect(sent).toBeLessThan(5);
  });

  it("absent is not JSON (400, -32700); one that fails while read is not readable (400, -32700)", async () => {
    expect(await bodyOf(await handler(new Request(url, { method: "POST", headers: jsonHeaders })))).toEqual([
      400,
      error(null, -32700, "Parse error: the body is not valid JSON"),
    ]);
    const failing = new ReadableStream({
      pull(controller) {
        controller.error(new Error("connection reset"));
      },
    });
    const request = new Request(url, {
      method: "POST",
      headers: jsonHeaders,
      body: failing,
      duplex: "half",
    } as RequestInit);
    expect(await bodyOf(await handler(request))).toEqual([
      400,
      error(null, -32700, "Parse error: the body is not readable UTF-8"),
    ]);
  });
});

describe("notifications", () => {
  it("get 202 with no body, notifications/cancelled included", async () => {
    for (const body of [
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "x" } },
      { jsonrpc: "2.0", method: "notifications/whatever" },
    ]) {
      const res = await post(endpoint.url, JSON.stringify(body), { accept: "text/html" });
      expect(await read(res)).toEqual({ status: 202, contentType: null, body: undefined });
    }
  });
});

describe("requests", () => {
  it("must accept JSON and SSE, else 406 (a missing Accept admits both)", async () => {
    for (const accept of [
      "application/json",
      "text/event-stream",
      "text/html",
      "application/json, text/event-stream;q=0",
    ]) {
      expect(await read(await post(endpoint.url, rpc("tools/list", {}, 8), { accept }))).toEqual({
        status: 406,
        contentType: "application/json",
        body: error(8, -32600, "Not Acceptable: Accept must allow application/json and text/event-stream"),
      });
    }
    for (const accept of [
      "*/*",
      "application/*, text/*",
      "text/event-stream, application/json;q=0.5",
      undefined,
    ]) {
      expect((await post(endpoint.url, rpc("tools/list"), { accept })).status).toBe(200);
    }
  });

  it("answered without notifications come back as one JSON body", async () => {
    const res = await post(endpoint.url, rpc("tools/call", { name: "echo", arguments: { a: 1 } }, "r1"));
    expect(await read(res)).toEqual({
      status: 200,
      contentType: "application/json",
      body: {
        jsonrpc: "2.0",
        id: "r1",
        result: {
          content: [{ type: "text", text: 'echo:{"a":1}' }],
          resultType: "complete",
          _meta: SERVER_INFO,
        },
      },
    });
  });

  it("for an unknown method get 404 with -32601", async () => {
    expect(await read(await post(endpoint.url, rpc("tools/frobnicate", {}, 5)))).toEqual({
      status: 404,
      contentType: "application/json",
      body: error(5, -32601, "Method not found: tools/frobnicate"),
    });
  });

  it("without the _meta envelope get 400 with -32602 from the dispatcher", async () => {
    for (const params of [undefined, {}, { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } }]) {
      const body = { jsonrpc: "2.0", id: 6, method: "server/discover", ...(params ? { params } : {}) };
      const res = await post(endpoint.url, body, { "mcp-protocol-version": undefined });
      const { status, body: answer } = await read(res);
      expect(status).toBe(400);
      expect(answer).toMatchObject({ jsonrpc: "2.0", id: 6, error: { code: -32602 } });
    }
  });

  it("at an unsupported version get 400 with -32022", async () => {
    const body = rpc("server/discover", {}, 9);
    body.params._meta["io.modelcontextprotocol/protocolVersion"] = "v999.0.0";
    const res = await post(endpoint.url, body, { "mcp-protocol-version": "v999.0.0" });
    expect(await read(res)).toEqual({
      status: 400,
      contentType: "application/json",
      body: {
        jsonrpc: "2.0",
        id: 9,
        error: {
          code: -32022,
          message: "Unsupported protocol version",
          data: { supported: ["2026-07-28"], requested: "v999.0.0" },
        },
      },
    });
  });

  it("needing an undeclared client capability get 400 with -32021", async () => {
    const { status, body } = await read(
      await post(endpoint.url, rpc("tools/call", { name: "needs-sampling" }, 10)),
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({
      id: 10,
      error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
    });
  });

  it("get 500 with -32603 when the dispatcher throws, synchronously or not, on both paths", async () => {
    const logged: string[] = [];
    const logger = { error: (message: string) => logged.push(message), warn: () => {} };
    const throwing = {
      dispatch: (): never => {
        throw new Error("sync boom");
      },
    };
    const rejecting = {
      dispatch: async (): Promise<never> => {
        throw new Error("async boom");
      },
    };
    for (const dispatcher of [throwing, rejecting]) {
      const handler = createHttpHandler(dispatcher, { logger });
      const body = rpc("tools/list", {}, 31);
      const web = await handler(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: headersFor(body),
          body: JSON.stringify(body),
        }),
      );
      expect(await read(web)).toEqual({
        status: 500,
        contentType: "application/json",
        body: error(31, -32603, "Internal error"),
      });
      const served = await serveHttp(dispatcher, { logger });
      try {
        expect(await read(await post(served.url, body))).toEqual({
          status: 500,
          contentType: "application/json",
          body: error(31, -32603, "Internal error"),
        });
      } finally {
        await served.close();
      }
    }
    expect(logged).toEqual([
      "[http] dispatch failed: sync boom",
      "[http] dispatch failed: sync boom",
      "[http] dispatch failed: async boom",
      "[http] dispatch failed: async boom",
    ]);
  });

  it("with in-band errors keep status 200", async () => {
    const badArgs = rpc("prompts/get", { name: "p", arguments: { n: 1 } }, 12);
    const { status, body } = await read(await post(endpoint.url, badArgs));
    expect(status).toBe(200);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 12, error: { code: -32602 } });
  });
});

describe("serveHttp", () => {
  it("answers other paths with a plain 404", async () => {
    const other = new URL("/other", endpoint.url);
    const res = await post(other, rpc("tools/list"));
    expect([res.status, res.headers.get("content-type"), await res.text()]).toEqual([
      404,
      "text/plain",
      "Not Found",
    ]);
  });

  it("serves the path with a query string", async () => {
    const withQuery = new URL(endpoint.url);
    withQuery.search = "?tenant=a";
    expect((await post(withQuery, rpc("tools/list"))).status).toBe(200);
  });
});
