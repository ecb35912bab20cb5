import { createServer, request as httpRequest } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { serveHttp, toNodeListener } from "../../../src/transports/http/node.js";
import { makeServer, post, read, rpc, startServer } from "./helpers.js";

function postWithHost(url: URL, host: string) {
  return new Promise<number>((resolve, reject) => {
    const body = JSON.stringify(rpc("tools/list"));
    const req = httpRequest(
      url,
      {
        method: "POST",
        headers: {
          host,
          "content-type": "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/list",
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Sends `head` on its own connection and returns every byte the server wrote, Date removed. */
function rawAnswer(url: URL, head: string) {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer.replace(/\r\nDate: [^\r]*/, "")));
    socket.write(`${head}\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
  });
}

describe("toNodeListener", () => {
  it("mounts the endpoint in an existing node:http app, streaming both ways", async () => {
    const { server } = makeServer();
    const mcp = toNodeListener(createHttpHandler(server));
    const app = createServer((req, res) => {
      if (req.url === "/rpc") return mcp(req, res);
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    const url = new URL(`http://127.0.0.1:${(app.address() as AddressInfo).port}/rpc`);
    try {
      expect(await (await fetch(new URL("/health", url))).text()).toBe("ok");
      const body = rpc("tools/call", { name: "progress" }, 4);
      body.params._meta = { ...body.params._meta, progressToken: "n" } as never;
      const res = await post(url, body);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const text = await res.text();
      expect(text.match(/^data: /gm)).toHaveLength(4);
      const upload = new ReadableStream<Uint8Array>({
        start(controller) {
          const json = JSON.stringify(rpc("tools/call", { name: "echo", arguments: { n: 1 } }, 5));
          for (const char of json) controller.enqueue(new TextEncoder().encode(char));
          controller.close();
        },
      });
      const chunked = await post(url, rpc("tools/call", { name: "echo" }), {}, {
        body: upload,
        duplex: "half",
      } as RequestInit);
      expect((await read(chunked)).body).toMatchObject({
        id: 5,
        result: { content: [{ text: 'echo:{"n":1}' }] },
      });
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });
});

describe("toNodeListener of a fetch handler of your own", () => {
  async function mounted(handler: (request: Request) => Promise<Response>) {
    const app = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    return { app, url: new URL(`http://127.0.0.1:${(app.address() as AddressInfo).port}/mcp`) };
  }

  it("serves its Response, status, headers and body", async () => {
    const { app, url } = await mounted(async (request) =>
      Response.json({ method: request.method, body: await request.text() }, { status: 201 }),
    );
    try {
      const res = await fetch(url, { method: "POST", body: "hello" });
      expect([res.status, await res.json()]).toEqual([201, { method: "POST", body: "hello" }]);
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it("answers 500 with a JSON-RPC Internal error when it fails, and keeps serving", async () => {
    let calls = 0;
    const { app, url } = await mounted(async () => {
      calls++;
      throw new Error("db password=hunter2 rejected");
    });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(url, { method: "POST", body: "{}" });
        const text = await res.text();
        expect(res.status).toBe(500);
        expect(JSON.parse(text)).toEqual({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32603, message: "Internal error" },
        });
        expect(text).not.toContain("hunter2");
      }
      expect(calls).toBe(2);
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });
});

describe("serveHttp", () => {
  it("binds 127.0.0.1 on a free port at /mcp by default", async () => {
    const handle = await serveHttp(makeServer().server);
    try {
      expect(handle.url.hostname).toBe("127.0.0.1");
      expect(handle.url.pathname).toBe("/mcp");
      expect(Number(handle.url.port)).toBeGreaterThan(0);
      expect((await post(handle.url, rpc("tools/list"))).status).toBe(200);
    } finally {
      await handle.close();
    }
  });

  it("takes a path, and a loopback host name turns on the Host check", async () => {
    const handle = await serveHttp(makeServer().server, { host: "localhost", path: "/v1/mcp" });
    try {
      expect(handle.url.pathname).toBe("/v1/mcp");
      expect(await postWithHost(handle.url, `localhost:${handle.url.port}`)).toBe(200);
      expect(await postWithHost(handle.url, "attacker.example")).toBe(421);
      expect(await postWithHost(handle.url, "not a host/")).toBe(421);
      expect((await post(new URL("/mcp", handle.url), rpc("tools/list"))).status).toBe(404);
    } finally {
      await handle.close();
    }
  });

  // "mcp" threw only once listening (the URL could not be built), leaving a server no one could
  // close; the others listened at a path no request's URL path can equal, so all got 404. The
  // check's own error says it came before the server was made.
  it.each(["mcp", "/my mcp", "/mcp?tenant=a", "/mcp#x", "/a/../mcp", "//mcp"])(
    "refuses a path no request can have (%s) before it listens",
    async (path) => {
      await expect(serveHttp(makeServer().server, { path })).rejects.toThrow(
        new TypeError(
          `path must be a URL path: a leading "/", no query, fragment or character to percent-encode, got ${JSON.stringify(path)}`,
        ),
      );
    },
  );

  // `new Request` refuses TRACE and CONNECT, which got 400 (and CONNECT, never handed to a request
  // listener by node:http, a dropped connection). They are methods the endpoint does not serve.
  it("answers TRACE and CONNECT with the 405 and Allow header of any other method", async () => {
    const handle = await serveHttp(makeServer().server);
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Method Not Allowed: use POST" },
    });
    try {
      const put = await rawAnswer(handle.url, "PUT /mcp HTTP/1.1");
      expect(put).toBe(
        "HTTP/1.1 405 Method Not Allowed\r\nallow: POST\r\ncontent-type: application/json\r\n" +
          `content-length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(await rawAnswer(handle.url, "TRACE /mcp HTTP/1.1")).toBe(put);
      expect(await rawAnswer(handle.url, "CONNECT /mcp HTTP/1.1")).toBe(put);
      // An authority (a proxy's CONNECT) is not the endpoint's path.
      expect(await rawAnswer(handle.url, `CONNECT ${handle.url.host} HTTP/1.1`)).toBe(
        "HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\nconnection: close\r\n" +
          "Transfer-Encoding: chunked\r\n\r\n9\r\nNot Found\r\n0\r\n\r\n",
      );
    } finally {
      await handle.close();
    }
  });

  it("lets localhostOnly: false switch the Host check off", async () => {
    const handle = await serveHttp(makeServer().server, { localhostOnly: false });
    try {
      expect(await postWithHost(handle.url, "mcp.example.com")).toBe(200);
    } finally {
      await handle.close();
    }
  });

  it("close() drops the streams still open after drainTimeoutMs, which cancels their requests", async () => {
    const endpoint = await startServer({ drainTimeoutMs: 100 });
    const body = rpc("tools/call", { name: "slow" });
    body.params._meta = { ...body.params._meta, progressToken: 1 } as never;
    const res = await post(endpoint.url, body);
    await endpoint.probe.started;
    const reading = res.text().catch((error: unknown) => error);
    const started = performance.now();
    await endpoint.close();
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    await endpoint.probe.aborted;
    await reading;
  });
});
