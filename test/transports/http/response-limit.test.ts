import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { ResponseTooLargeError } from "../../../src/transports/http/errors.js";
import { SseParser } from "../../../src/transports/http/sse.js";
import type { JSONRPCMessage } from "../../../src/types/index.js";
import { meta } from "../../helpers.js";

const LIMIT = 1_000;
let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (!running) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/** A server whose every POST is answered by `answer`; counts the POSTs. */
async function serve(answer: (res: import("node:http").ServerResponse) => void) {
  let posts = 0;
  server = createServer((req, res) => {
    posts++;
    req.resume();
    req.on("end", () => answer(res));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  return { url, posts: () => posts };
}

const json = (body: string) => (res: import("node:http").ServerResponse) =>
  res.writeHead(200, { "content-type": "application/json" }).end(body);
const response = (text: string) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools: [], note: text } });
const event = (message: unknown) => `data: ${JSON.stringify(message)}\n\n`;

/** Sends one tools/list through a transport bounded at LIMIT (direct node:http, or through fetch). */
async function list(url: URL, viaFetch: boolean) {
  const delivered: JSONRPCMessage[] = [];
  const transport = new StreamableHttpClientTransport(url, {
    maxResponseBytes: LIMIT,
    ...(viaFetch ? { fetch: (input: URL, init: RequestInit) => fetch(input, init) } : {}),
  });
  transport.onmessage = (message) => delivered.push(message);
  const sent = transport.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: meta() },
  } as JSONRPCMessage);
  return { sent, delivered, close: () => transport.close() };
}

describe.each([
  ["node:http directly", false],
  ["fetch", true],
])("maxResponseBytes over %s", (_label, viaFetch) => {
  it("takes a JSON answer within the bound", async () => {
    const { url } = await serve(json(response("x".repeat(LIMIT - 200))));
    const { sent, delivered, close } = await list(url, viaFetch);
    await sent;
    expect(delivered).toHaveLength(1);
    await close();
  });

  it("abandons a JSON answer past the bound with ResponseTooLargeError, and never asks again", async () => {
    const { url, posts } = await serve(json(response("x".repeat(LIMIT))));
    const { sent, delivered, close } = await list(url, viaFetch);
    const error = await sent.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toBe(`tools/list: the response is larger than ${LIMIT} bytes`);
    expect(delivered).toEqual([]);
    expect(posts()).toBe(1);
    await close();
  });

  it("abandons an SSE event past the bound, even one that never ends", async () => {
    const { url, posts } = await serve((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${"y".repeat(LIMIT * 2)}`); // no end of line, ever
    });
    const { sent, close } = await list(url, viaFetch);
    const error = await sent.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toBe(`tools/list: an SSE event is larger than ${LIMIT} bytes`);
    expect(posts()).toBe(1);
    await close();
  });

  it("bounds each SSE event, not the stream: many small events then the response pass", async () => {
    const progress = {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: 1, progress: 1 },
    };
    const { url } = await serve((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let i = 0; i < 40; i++) res.write(`: keep-alive\n\n${event(progress)}`);
      res.end(event(JSON.parse(response("ok"))));
    });
    const { sent, delivered, close } = await list(url, viaFetch);
    await sent;
    expect(delivered).toHaveLength(41);
    await close();
  });
});

it.each([0, -1, 1.5, Number.NaN])("refuses maxResponseBytes %s at construction", (max) => {
  expect(
    () => new StreamableHttpClientTransport("http://127.0.0.1:1/mcp", { maxResponseBytes: max }),
  ).toThrow(new RangeError(`maxResponseBytes must be a positive integer, got ${max}`));
});

describe("SseParser's event bound", () => {
  it("throws once the event being read passes it, however it is chunked", () => {
    const parser = new SseParser(() => {}, 100);
    parser.push("data: ");
    expect(() => parser.push("z".repeat(120))).toThrow(ResponseTooLargeError);
  });

  it("bounds an event that starts and ends within one chunk, and does not dispatch it", () => {
    const events: string[] = [];
    const parser = new SseParser((e) => events.push(e.data), 100);
    expect(() => parser.push(`data: small\n\ndata: ${"z".repeat(120)}\n\n`)).toThrow(
      new ResponseTooLargeError("an SSE event is larger than 100 bytes"),
    );
    expect(events).toEqual(["small"]);
  });

  it("counts from the last blank line, so what follows an event starts afresh", () => {
    const events: string[] = [];
    const parser = new SseParser((e) => events.push(e.data), 100);
    for (let i = 0; i < 10; i++) parser.push(`data: ${"a".repeat(60)}\n\n`);
    expect(events).toHaveLength(10);
  });

  it("reads a long event line in time linear in its length, however finely it is chunked", () => {
    // 4 MiB in 16 KiB chunks: re-scanning the line so far on every chunk took seconds (quadratic).
    const events: string[] = [];
    const parser = new SseParser((e) => events.push(e.data));
    const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
    const started = performance.now();
    parser.push("data: ");
    for (let i = 0; i < 256; i++) parser.push(chunk);
    parser.push("\r");
    parser.push("\n\n");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(events).toHaveLength(1);
    expect(events[0]).toHaveLength(4 * 1024 * 1024);
  });
});
