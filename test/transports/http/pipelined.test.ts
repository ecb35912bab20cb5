/**
 * Requests pipelined on one keep-alive connection behind an unfinished one. Node queues their
 * responses and, when the connection drops, never emits "close" on the queued ones: each test
 * drops a raw socket on 127.0.0.1 and checks that the requests behind the first are let go too.
 */
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { Server as McpServer } from "../../../src/server/server.js";
import type { FetchHandler } from "../../../src/transports/http/handler.js";
import { type HttpServerHandle, serveHttp, toNodeListener } from "../../../src/transports/http/node.js";
import { writeWebResponse } from "../../../src/transports/http/node-adapter.js";
import { buildDualEraServer } from "../../fixtures/legacy/dual-era.js";
import { meta } from "../../helpers.js";
import { openSession } from "../../legacy/http-helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Resolves with `value`, or fails with `what` after two seconds. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after 2 s`)), 2000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Resolves once `done()` holds, or fails with `what` after two seconds. */
async function until(done: () => boolean, what: string): Promise<void> {
  await within(
    (async () => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
    })(),
    what,
  );
}

/** Opens a raw connection and writes the requests back to back, without waiting for any answer. */
async function pipeline(port: number, requests: string[]): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.resume();
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.write(requests.join(""));
  return socket;
}

function rawPost(id: number, name: string): string {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name,
      arguments: {},
      _meta: meta(),
    },
  });
  return [
    "POST /mcp HTTP/1.1",
    "Host: 127.0.0.1",
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    "Mcp-Protocol-Version: 2026-07-28",
    "Mcp-Method: tools/call",
    `Mcp-Name: ${name}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ].join("\r\n");
}

function rawGet(path: string, headers: Record<string, string> = {}): string {
  const lines = [`GET ${path} HTTP/1.1`, "Host: 127.0.0.1", "Accept: text/event-stream"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** A tool server whose `hold` calls wait for their signal, reporting start and abort by request id. */
function holdingServer() {
  const started = new Map<number, () => void>();
  const aborted = new Map<number, () => void>();
  const seen = { started: new Map<number, Promise<void>>(), aborted: new Map<number, Promise<void>>() };
  for (const id of [1, 2, 3]) {
    seen.started.set(id, new Promise<void>((resolve) => started.set(id, resolve)));
    seen.aborted.set(id, new Promise<void>((resolve) => aborted.set(id, resolve)));
  }
  const server = new McpServer("pipelined", {
    version: "1.0.0",
    logger: silentLogger,
    onListTools: () => ({ tools: [{ name: "hold", inputSchema: { type: "object" } }] }),
    onCallTool: async (ctx) => {
      const id = Number(ctx.requestId);
      started.get(id)?.();
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      aborted.get(id)?.();
      return { content: [{ type: "text", text: "too late" }] };
    },
  });
  return { server, seen };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

async function serve(options: Parameters<typeof serveHttp>[1], dispatcher = holdingServer().server) {
  const handle: HttpServerHandle = await serveHttp(dispatcher, { port: 0, ...options });
  return handle;
}

describe("a dropped connection lets go of the requests pipelined behind an unfinished one", () => {
  it("cancels every handler on it, not only the one being answered (endpoint's direct path)", async () => {
    const { server, seen } = holdingServer();
    const handle = await serve({ drainTimeoutMs: 0 }, server);
    closers.push(() => handle.close());
    const socket = await pipeline(Number(handle.url.port), [
      rawPost(1, "hold"),
      rawPost(2, "hold"),
      rawPost(3, "hold"),
    ]);
    await within(Promise.all([1, 2, 3].map((id) => seen.started.get(id))), "the three calls to start");
    socket.destroy();
    await within(Promise.all([1, 2, 3].map((id) => seen.aborted.get(id))), "the three calls to be cancelled");
  });

  it("aborts the Request signal of every request on it (a fetch handler of your own)", async () => {
    const aborted: string[] = [];
    let arrived = 0;
    let allArrived!: () => void;
    const arrivedAll = new Promise<void>((resolve) => {
      allArrived = resolve;
    });
    const handler: FetchHandler = (request) =>
      new Promise<Response>((resolve) => {
        if (++arrived === 3) allArrived();
        request.signal.addEventListener("abort", () => {
          aborted.push(new URL(request.url).pathname);
          resolve(new Response("gone"));
        });
      });
    const port = await listen(createServer(toNodeListener(handler)));
    const socket = await pipeline(port, [rawGet("/a"), rawGet("/b"), rawGet("/c")]);
    await within(arrivedAll, "the three requests to arrive");
    socket.destroy();
    await until(() => aborted.length >= 3, "the three signals to abort");
    expect(aborted.sort()).toEqual(["/a", "/b", "/c"]);
  });

  it("cancels the body stream of a queued streaming response, even once its buffer is full", async () => {
    const cancelled: string[] = [];
    const handler: FetchHandler = async (request) => {
      const path = new URL(request.url).pathname;
      const chunk = new Uint8Array(64 * 1024).fill(0x61);
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => controller.enqueue(chunk),
        cancel: () => {
          cancelled.push(path);
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
    const port = await listen(createServer(toNodeListener(handler)));
    const socket = await pipeline(port, [rawGet("/a"), rawGet("/b")]);
    // Both streams have filled their buffers: the first on the socket, the second in Node's queue.
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await until(() => cancelled.length >= 2, "both streams to be cancelled");
    expect(cancelled.sort()).toEqual(["/a", "/b"]);
  });

  it("ends the writing of every streaming response on it, the queued one included", async () => {
    const settled: string[] = [];
    const port = await listen(
      createServer((req, res) => {
        const chunk = new Uint8Array(64 * 1024).fill(0x61);
        const body = new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(chunk) });
        const response = new Response(body, { headers: { "content-type": "text/event-stream" } });
        void writeWebResponse(response, req, res).then(() => settled.push(req.url ?? ""));
      }),
    );
    const socket = await pipeline(port, [rawGet("/a"), rawGet("/b")]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toEqual([]);
    socket.destroy();
    await until(() => settled.length >= 2, "both writers to finish");
    expect(settled.sort()).toEqual(["/a", "/b"]);
  });

  it("lets close() finish without waiting out drainTimeoutMs for the queued responses", async () => {
    const { server, seen } = holdingServer();
    const handle = await serve({ drainTimeoutMs: 30_000 }, server);
    const socket = await pipeline(Number(handle.url.port), [rawPost(1, "hold"), rawPost(2, "hold")]);
    await within(Promise.all([1, 2].map((id) => seen.started.get(id))), "the two calls to start");
    socket.destroy();
    await within(Promise.all([1, 2].map((id) => seen.aborted.get(id))), "the two calls to be cancelled");
    await within(handle.close(), "close()");
  });

  it("detaches a 2025 session's GET stream that was queued, so the session can open it again", async () => {
    const handle = await serve({ keepAliveMs: 0, drainTimeoutMs: 0 }, buildDualEraServer() as never);
    closers.push(() => handle.close());
    const url = handle.url.toString();
    const first = await openSession(url);
    const second = await openSession(url);
    const socket = await pipeline(Number(handle.url.port), [
      rawGet("/mcp", first.headers),
      rawGet("/mcp", second.headers),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    for (const session of [first, second]) {
      const controller = new AbortController();
      const reopened = await within(
        (async () => {
          for (;;) {
            const response = await fetch(url, {
              method: "GET",
              headers: { ...session.headers, accept: "text/event-stream" },
              signal: controller.signal,
            });
            if (response.status !== 409) return response.status;
            await response.body?.cancel();
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })(),
        "the session's stream to be free again",
      );
      controller.abort();
      expect(reopened).toBe(200);
    }
  });
});

describe("a connection that finishes its responses cancels nothing", () => {
  it("answers pipelined requests in order, and dropping it afterwards aborts no signal", async () => {
    const aborted: string[] = [];
    const handler: FetchHandler = async (request) => {
      const path = new URL(request.url).pathname;
      request.signal.addEventListener("abort", () => aborted.push(path));
      return Response.json(path);
    };
    const port = await listen(createServer(toNodeListener(handler)));
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(rawGet("/a") + rawGet("/b"));
    await until(() => text.endsWith('"/b"'), "both answers");
    expect(text.match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(2);
    expect(text.indexOf('"/a"')).toBeLessThan(text.indexOf('"/b"'));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(aborted).toEqual([]);
  });
});
