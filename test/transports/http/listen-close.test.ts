// One server serves every connection (design.md): two `serveHttp` listeners, a handler mounted by
// hand, and `serveStdio` may all serve the same `MCPServer`. Closing one of them ends only the
// listen streams it serves, each with its closing result (spec §3.3); the others stay open and
// still hear of changes. Checked over real sockets on 127.0.0.1.
import { createServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { closeHttpSessions, createHttpHandler } from "../../../src/transports/http/handler.js";
import { WebIncoming } from "../../../src/transports/http/incoming.js";
import { type HttpServerHandle, serveHttp, toNodeListener } from "../../../src/transports/http/node.js";
import { respond } from "../../../src/transports/http/respond.js";
import { serveStdio } from "../../../src/transports/stdio/server.js";
import { until } from "../stdio/helpers.js";
import { post, readSseEvents, rpc } from "./helpers.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "shared", version: "1.0.0" } };

const cleanups: (() => Promise<unknown> | undefined)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()?.catch(() => {});
});

function sharedServer(): MCPServer {
  const mcp = new MCPServer("shared", { version: "1.0.0", logger: silentLogger, listChanged: true });
  mcp.tool("first", {}, () => "one");
  return mcp;
}

async function listenOn(...options: Parameters<typeof serveHttp>): Promise<HttpServerHandle> {
  const handle = await serveHttp(...options);
  cleanups.push(() => handle.close());
  return handle;
}

/** The closing result of listen request `id`, exactly as the server sends it. */
const closing = (id: string) => ({
  jsonrpc: "2.0",
  id,
  result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID]: id, ...SERVER_INFO } },
});

const listChanged = (id: string) => ({
  jsonrpc: "2.0",
  method: "notifications/tools/list_changed",
  params: { _meta: { [SUBSCRIPTION_ID]: id } },
});

/** An open listen stream: the SSE events read so far, and whether the response body ended. */
interface Stream {
  readonly events: Record<string, unknown>[];
  readonly ended: () => boolean;
}

/** Opens a tools listen stream with request id `id` and reads it in the background until it ends. */
async function openListen(url: URL, id: string): Promise<Stream> {
  const response = await post(
    url,
    rpc("subscriptions/listen", { notifications: { toolsListChanged: true } }, id),
  );
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const stream = readSseEvents(response);
  cleanups.push(stream.cancel);
  const { events } = stream;
  let ended = false;
  stream.ended.then(
    () => {
      ended = true;
    },
    () => {},
  );
  await until(() => events.length > 0, `the ack of ${id}`);
  expect(events[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
  return { events, ended: () => ended };
}

/** Registers a tool and checks that `open` hears of it, and nothing more. */
async function stillOpen(mcp: MCPServer, open: Stream, id: string): Promise<void> {
  mcp.tool("second", {}, () => "two");
  await until(() => open.events.length > 1, `the list change on ${id}`);
  expect(open.events.slice(1)).toEqual([listChanged(id)]);
  expect(open.ended()).toBe(false);
}

describe("closing one HTTP endpoint of a shared server ends only its own listen streams", () => {
  it("serveHttp's close() ends its streams with their result; another listener's stream stays open", async () => {
    const mcp = sharedServer();
    const first = await listenOn(mcp, { keepAliveMs: 0 });
    const second = await listenOn(mcp, { keepAliveMs: 0 });
    const a = await openListen(first.url, "a");
    const b = await openListen(second.url, "b");
    await first.close();
    await until(a.ended, "the end of a");
    expect(a.events.slice(1)).toEqual([closing("a")]);
    await stillOpen(mcp, b, "b");
    await second.close();
    await until(b.ended, "the end of b");
    expect(b.events.slice(1)).toEqual([listChanged("b"), closing("b")]);
  });

  it("closeHttpSessions ends the listen streams of a handler mounted by hand, and only those", async () => {
    const mcp = sharedServer();
    const handler = createHttpHandler(mcp, { keepAliveMs: 0, localhostOnly: true });
    const node: NodeServer = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => node.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise((resolve) => {
          node.closeAllConnections();
          node.close(resolve);
        }),
    );
    const other = await listenOn(mcp, { keepAliveMs: 0 });
    const mounted = await openListen(
      new URL(`http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`),
      "m",
    );
    const served = await openListen(other.url, "s");
    closeHttpSessions(handler);
    await until(mounted.ended, "the end of m");
    expect(mounted.events.slice(1)).toEqual([closing("m")]);
    await stillOpen(mcp, served, "s");
  });

  it("a client leaving its listen stream still ends the server's subscription", async () => {
    const mcp = new MCPServer("shared", {
      version: "1.0.0",
      logger: silentLogger,
      listChanged: true,
      maxSubscriptions: 1,
    });
    mcp.tool("first", {}, () => "one");
    const http = await listenOn(mcp, { keepAliveMs: 0 });
    const body = rpc("subscriptions/listen", { notifications: { toolsListChanged: true } }, "x");
    const left = await post(http.url, body);
    await left.body?.cancel();
    // The one slot frees once the server hears the client went away: a new stream is then served.
    let streamed = false;
    for (let tries = 0; tries < 50 && !streamed; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const again = await post(http.url, { ...body, id: "y" });
      streamed = again.headers.get("content-type") === "text/event-stream";
      await again.body?.cancel();
    }
    expect(streamed).toBe(true);
  });

  it("serveHttp's close() leaves a stdio connection's listen stream of the same server open", async () => {
    const mcp = sharedServer();
    const http = await listenOn(mcp, { keepAliveMs: 0 });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    let pending = "";
    stdout.on("data", (chunk: Buffer) => {
      const parts = (pending + chunk.toString("utf8")).split("\n");
      pending = parts.pop() ?? "";
      for (const line of parts) lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    const stdio = serveStdio(mcp, { stdin, stdout });
    cleanups.push(() => {
      stdio.close();
      return stdio.closed;
    });
    const viaHttp = await openListen(http.url, "h");
    stdin.write(
      `${JSON.stringify(rpc("subscriptions/listen", { notifications: { toolsListChanged: true } }, "p"))}\n`,
    );
    await until(() => lines.length > 0, "the ack of p");
    await http.close();
    await until(viaHttp.ended, "the end of h");
    expect(viaHttp.events.slice(1)).toEqual([closing("h")]);
    mcp.tool("second", {}, () => "two");
    await until(() => lines.length > 1, "the list change on p");
    expect(lines.slice(1)).toEqual([listChanged("p")]);
  });
});

describe("the handler's record of its listen streams", () => {
  it("forgets a stream once it is answered, so a long-running handler does not grow", async () => {
    const listens = new Set<() => void>();
    const message = rpc("subscriptions/listen", {}, "z");
    const answered = { jsonrpc: "2.0" as const, id: "z", result: { resultType: "complete" } };
    const incoming = new WebIncoming(new Request("http://127.0.0.1/mcp", { method: "POST" }));
    const reply = respond({ dispatch: async () => answered }, message, incoming, incoming, undefined, {
      keepAliveMs: 0,
      mode: "auto",
      logger: undefined,
      listens,
    });
    expect(listens.size).toBe(1);
    await reply;
    expect(listens.size).toBe(0);
  });
});
