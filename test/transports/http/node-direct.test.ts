/**
 * `serveHttp` answers POSTs straight from the IncomingMessage (no Request/Response). The same
 * requests go through that path, through `toNodeListener` over `Request`/`Response` (the web
 * adapter, what every other fetch handler gets) and into `createHttpHandler` in process: the two
 * sockets must agree byte for byte (but the Date), and the handler on status, headers and body.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuthInfo } from "../../../src/shared/dispatch.js";
import type { HttpHandlerOptions } from "../../../src/transports/http/handler.js";
import { serveHttp } from "../../../src/transports/http/node.js";
import { meta } from "../../helpers.js";
import { prng } from "../../prng.js";
import {
  asRequest,
  conforming,
  headerPairs,
  type Mount,
  mount,
  normalized,
  type Raw,
  rawExchange,
  relevant,
  replaced,
  rpcBody,
  send,
  without,
} from "./direct-helpers.js";
import { makeServer, REGION_TOOL } from "./helpers.js";

const LIST = conforming(rpcBody("tools/list"), "tools/list");
const ECHO = conforming(
  rpcBody("tools/call", { name: "echo", arguments: { a: 1 } }, "e1"),
  "tools/call",
  [],
  "echo",
);
const progressBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "progress", _meta: { ...meta(), progressToken: "p" } },
});
const PROGRESS = conforming(progressBody, "tools/call", [], "progress");
const routeBody = rpcBody("tools/call", { name: "route", arguments: { region: "eu", shards: 3 } }, 9);
const notification = JSON.stringify({ jsonrpc: "2.0", method: "notifications/whatever" });
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
});
const withBody = (raw: Raw, body: string | Buffer): Raw => ({
  ...replaced(raw, "Content-Length", String(Buffer.byteLength(body))),
  body,
});

/** [case, request, mounted with the auth options] */
const CASES: [string, Raw, boolean?][] = [
  ["a request answered with JSON", LIST],
  ["a tools/call answered with JSON", ECHO],
  ["a request answered with an event stream", PROGRESS],
  ["a path with a query", { ...LIST, path: "/mcp?tenant=a" }],
  ["a notification (202)", withBody(replaced(LIST, "Accept", "text/html"), notification)],
  ["a body that is not JSON", withBody(LIST, "{")],
  ["an empty body", withBody(LIST, "")],
  ["a body that is not UTF-8", withBody(LIST, Buffer.from([0x7b, 0xff, 0x7d]))],
  [
    "a body with a BOM",
    withBody(LIST, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(rpcBody("tools/list"))])),
  ],
  ["a batch", withBody(LIST, `[${rpcBody("tools/list")}]`)],
  ["a response instead of a request", withBody(LIST, JSON.stringify({ jsonrpc: "2.0", id: 3, result: {} }))],
  ["a float id", withBody(LIST, JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "tools/list" }))],
  ["an unknown method", conforming(rpcBody("tools/frobnicate", {}, 5), "tools/frobnicate")],
  ["a legacy initialize", withBody(LIST, initialize)],
  ["a wrong Accept", replaced(LIST, "Accept", "text/html")],
  ["an Accept without event streams", replaced(LIST, "Accept", "application/json")],
  ["no Accept", without(LIST, "accept")],
  ["a wrong Content-Type", replaced(LIST, "Content-Type", "text/plain")],
  ["no Content-Type", without(LIST, "content-type")],
  ["two Content-Types", { ...LIST, headers: [...LIST.headers, "content-type", "text/plain"] }],
  ["a Content-Type with a charset", replaced(LIST, "Content-Type", "Application/JSON; charset=utf-8")],
  ["a body over the limit by Content-Length", withBody(LIST, `{"pad":"${"x".repeat(2000)}"}`)],
  [
    "a chunked body over the limit",
    { ...without(LIST, "content-length"), chunks: [Buffer.from('{"pad":"'), Buffer.alloc(1500, "x")] },
  ],
  [
    "a chunked body within the limit",
    { ...without(LIST, "content-length"), chunks: [Buffer.from(rpcBody("tools/list"))] },
  ],
  ["a foreign Origin", replaced(LIST, "Origin", "http://evil.example")],
  ["a loopback Origin", replaced(LIST, "Origin", "http://localhost:3000")],
  ["a foreign Host", replaced(LIST, "Host", "evil.example")],
  ["a Host that is no authority", replaced(LIST, "Host", "not a host/")],
  ["a wrong MCP-Protocol-Version", replaced(LIST, "MCP-Protocol-Version", "2025-11-25")],
  ["no Mcp-Method", without(LIST, "mcp-method")],
  ["an Mcp-Method that differs", replaced(LIST, "Mcp-Method", "tools/call")],
  ["an Mcp-Name that differs", replaced(ECHO, "Mcp-Name", "other")],
  ["a base64 Mcp-Name", replaced(ECHO, "Mcp-Name", "=?base64?ZWNobw==?=")],
  [
    "Mcp-Param headers that match",
    conforming(routeBody, "tools/call", ["Mcp-Param-Region", "eu", "Mcp-Param-Shards", "3"], "route"),
  ],
  ["a missing Mcp-Param header", conforming(routeBody, "tools/call", ["Mcp-Param-Region", "eu"], "route")],
  ["GET", { method: "GET", headers: ["Host", "127.0.0.1", "Accept", "text/event-stream"] }],
  ["DELETE", { method: "DELETE", headers: ["Host", "127.0.0.1", "Mcp-Session-Id", "abc"] }],
  ["HEAD", { method: "HEAD", headers: ["Host", "127.0.0.1"] }],
  ["PUT with a body", { ...LIST, method: "PUT" }],
  ["no credentials where auth is required", LIST, true],
  ["a bad token", replaced(LIST, "Authorization", "Bearer bad"), true],
  ["a good token", replaced(LIST, "Authorization", "Bearer good"), true],
  ["a good token and a body the verifier reads", replaced(ECHO, "Authorization", "Bearer good-reads"), true],
];

const AUTH: HttpHandlerOptions = {
  requireAuth: true,
  resourceMetadataUrl: "https://mcp.example/.well-known/oauth-protected-resource",
  verifyToken: async (request): Promise<AuthInfo | undefined> => {
    const header = request.headers.get("authorization");
    if (header === "Bearer good-reads") {
      const text = await request.clone().text();
      return text.includes('"echo"') ? { token: "good", clientId: "c", scopes: [] } : undefined;
    }
    return header === "Bearer good" ? { token: "good", clientId: "c", scopes: [] } : undefined;
  },
};

let plain: Mount;
let auth: Mount;
beforeAll(async () => {
  plain = await mount({});
  auth = await mount(AUTH);
});
afterAll(async () => {
  for (const m of [plain, auth]) {
    await m.direct.close();
    await new Promise<void>((resolve) => {
      m.web.close(() => resolve());
      m.web.closeAllConnections();
    });
  }
});

describe("serveHttp's direct path answers as the web adapter does", () => {
  it.each(CASES)("%s", async (_name, raw, withAuth) => {
    const m = withAuth ? auth : plain;
    const direct = normalized(await send(Number(m.direct.url.port), raw));
    const web = normalized(await send(m.webPort, raw));
    expect(direct).toEqual(web);

    const response = await m.handler(asRequest(raw));
    // A HEAD answer over a socket has no body, whatever the handler's Response holds.
    const text =
      response.body === null || raw.method === "HEAD"
        ? ""
        : Buffer.from(await response.arrayBuffer()).toString("latin1");
    const inProcess = {
      status: response.status,
      headers: relevant(headerPairs(response.headers)),
      body: text,
    };
    expect(inProcess).toEqual({
      status: direct.status,
      headers: relevant(direct.headers),
      body: direct.body,
    });
  });

  it("covers every status the ladder has", async () => {
    const statuses = new Set<number>();
    for (const [, raw, withAuth] of CASES) {
      statuses.add((await send(Number((withAuth ? auth : plain).direct.url.port), raw)).status);
    }
    expect([...statuses].sort()).toEqual([200, 202, 400, 401, 403, 404, 405, 406, 413, 415, 421]);
  });
});

/** A seeded random request: header pairs dropped, altered, repeated or recased; bodies broken. */
function randomRaw(rng: ReturnType<typeof prng>): Raw {
  const base = rng.pick([
    LIST,
    ECHO,
    PROGRESS,
    conforming(routeBody, "tools/call", ["Mcp-Param-Region", "eu", "Mcp-Param-Shards", "3"], "route"),
  ]);
  const headers: string[] = [];
  for (let i = 0; i < base.headers.length; i += 2) {
    const name = base.headers[i] as string;
    let value = base.headers[i + 1] as string;
    if (name === "Content-Length") continue;
    if (name !== "Host" && rng.chance(0.08)) continue;
    if (rng.chance(0.08))
      value = rng.pick([
        "",
        "x",
        "*/*",
        "text/plain",
        "2025-11-25",
        "tools/list",
        "=?base64?%?=",
        value.toUpperCase(),
      ]);
    headers.push(rng.chance(0.2) ? name.toLowerCase() : name, value);
    if (rng.chance(0.04))
      headers.push(name.toLowerCase(), rng.pick(["text/plain", value, "application/json"]));
  }
  if (rng.chance(0.1)) headers.push("Origin", rng.pick(["http://localhost", "http://evil.example", "null"]));
  let body: string | Buffer = base.body ?? "";
  switch (rng.int(8)) {
    case 0:
      body = (body as string).slice(0, rng.int((body as string).length));
      break;
    case 1:
      body = Buffer.concat([Buffer.from(body), Buffer.from([0xc3])]);
      break;
    case 2:
      body = `{"pad":"${"y".repeat(1100)}"}`;
      break;
    case 3:
      body = notification;
      break;
  }
  const method = rng.chance(0.9) ? "POST" : rng.pick(["GET", "DELETE", "PUT"]);
  if (rng.chance(0.3)) return { method, headers, chunks: [Buffer.from(body)] };
  return { method, headers: [...headers, "Content-Length", String(Buffer.byteLength(body))], body };
}

describe("the direct path", () => {
  it("answers 300 random requests byte for byte as the web adapter does", { timeout: 20_000 }, async () => {
    const rng = prng(0xd12ec7);
    const statuses = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const raw = randomRaw(rng);
      const direct = normalized(await send(Number(plain.direct.url.port), raw));
      expect(direct).toEqual(normalized(await send(plain.webPort, raw)));
      statuses.add(direct.status);
    }
    expect(statuses.size).toBeGreaterThan(6);
  });

  it("builds no Request and no Response for a POST", async () => {
    let built = 0;
    const Base = globalThis.Request;
    vi.stubGlobal(
      "Request",
      class extends Base {
        constructor(...args: ConstructorParameters<typeof Request>) {
          super(...args);
          built++;
        }
      },
    );
    try {
      expect((await send(Number(plain.direct.url.port), ECHO)).status).toBe(200);
      expect(built).toBe(0);
      expect((await send(plain.webPort, ECHO)).status).toBe(200);
      expect(built).toBe(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("reads a chunked body that arrives as many chunks at once", async () => {
    const body = rpcBody("tools/list");
    const pieces = body.match(/.{1,8}/gs) ?? [];
    expect(pieces.length).toBeGreaterThan(16);
    const head = conforming(body, "tools/list").headers;
    const lines: string[] = [];
    for (let i = 0; i < head.length; i += 2) {
      if (head[i] !== "Content-Length") lines.push(`${head[i]}: ${head[i + 1]}`);
    }
    const chunked = pieces
      .map((piece) => `${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`)
      .join("");
    const request = `POST /mcp HTTP/1.1\r\n${lines.join("\r\n")}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked}0\r\n\r\n`;
    for (const port of [Number(plain.direct.url.port), plain.webPort]) {
      const answer = await rawExchange(port, request);
      expect(answer.startsWith("HTTP/1.1 200 OK")).toBe(true);
      expect(answer).toContain('"tools":[');
    }
  });

  it("waits for a body that arrives after the headers, on both paths", async () => {
    const body = rpcBody("tools/list");
    const head = conforming(body, "tools/list").headers;
    const lines: string[] = [];
    for (let i = 0; i < head.length; i += 2) lines.push(`${head[i]}: ${head[i + 1]}`);
    const start = `POST /mcp HTTP/1.1\r\n${lines.join("\r\n")}\r\nConnection: close\r\n\r\n`;
    for (const port of [Number(plain.direct.url.port), plain.webPort]) {
      const answer = await rawExchange(port, [start + body.slice(0, 12), body.slice(12, 40), body.slice(40)]);
      expect(answer.startsWith("HTTP/1.1 200 OK")).toBe(true);
      expect(answer).toContain('"tools":[');
    }
  });

  it("answers 413 when a late part of a chunked body goes over the limit, on both paths", async () => {
    const head = conforming(rpcBody("tools/list"), "tools/list").headers;
    const lines: string[] = [];
    for (let i = 0; i < head.length; i += 2) {
      if (head[i] !== "Content-Length") lines.push(`${head[i]}: ${head[i + 1]}`);
    }
    const start = `POST /mcp HTTP/1.1\r\n${lines.join("\r\n")}\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    for (const port of [Number(plain.direct.url.port), plain.webPort]) {
      const answer = await rawExchange(port, [start + chunk('{"pad":"'), chunk("x".repeat(1500))]);
      expect(answer.startsWith("HTTP/1.1 413")).toBe(true);
      expect(answer).toContain("Payload Too Large: the limit is 1024 bytes");
    }
  });

  it("cancels a JSON request when its client goes away", async () => {
    const { server } = makeServer();
    let aborted!: () => void;
    const sawAbort = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handle = await serveHttp({
      dispatch: (message, context) => {
        started();
        return new Promise((resolve) => {
          context?.signal?.addEventListener("abort", () => {
            aborted();
            resolve({ jsonrpc: "2.0", id: (message as { id: number }).id, result: {} });
          });
        });
      },
    });
    const body = rpcBody("tools/list");
    const req = httpRequest({
      host: "127.0.0.1",
      port: Number(handle.url.port),
      path: "/mcp",
      method: "POST",
      headers: conforming(body, "tools/list").headers,
      agent: false,
    });
    req.on("error", () => {});
    req.end(body);
    await running;
    req.destroy();
    await sawAbort;
    await handle.close();
    expect(server).toBeDefined();
  });

  it("serves tools whose schemas declare x-mcp-header", async () => {
    expect(REGION_TOOL.inputSchema.properties.region["x-mcp-header"]).toBe("Region");
    const answer = await send(
      Number(plain.direct.url.port),
      conforming(routeBody, "tools/call", ["Mcp-Param-Region", "us", "Mcp-Param-Shards", "3"], "route"),
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ id: 9, error: { code: -32020 } });
  });
});
