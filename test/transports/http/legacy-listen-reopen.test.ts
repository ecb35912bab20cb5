// The 2025 session's GET stream is the only way a server tells a 2025 client of list changes and
// resource updates. When the server ends it (a restart, a proxy's idle timeout, a token that
// expired), the client opens it again after the stream's `retry`, resuming after the last event id;
// it stops when the server no longer offers one, renews the session when the server forgot it, and
// gives up after a few failed attempts in a row, saying so on `onerror`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LegacyHttpClientTransport } from "../../../src/transports/http/legacy-client.js";
import type { JSONRPCMessage } from "../../../src/types/index.js";
import { LEGACY_INITIALIZE } from "./helpers.js";

const servers: Server[] = [];
const transports: LegacyHttpClientTransport[] = [];
afterEach(async () => {
  for (const transport of transports.splice(0)) await transport.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

type GetAnswer = (res: ServerResponse, req: IncomingMessage) => void;

/** A 2025 endpoint whose n-th GET is answered by `gets[n]` (later ones hang); it records each GET. */
async function endpoint(gets: GetAnswer[]) {
  const seen: { session: string | undefined; lastEventId: string | undefined }[] = [];
  const posts: string[] = [];
  let sessions = 0;
  const server = createServer((req, res) => {
    if (req.method === "DELETE") return res.writeHead(200).end();
    if (req.method === "GET") {
      const header = (name: string) => req.headers[name] as string | undefined;
      seen.push({ session: header("mcp-session-id"), lastEventId: header("last-event-id") });
      return gets[seen.length - 1]?.(res, req);
    }
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    req.on("end", () => {
      const message = JSON.parse(text) as { id?: number; method: string };
      posts.push(message.method);
      if (message.id === undefined) return res.writeHead(202).end();
      sessions += message.method === "initialize" ? 1 : 0;
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": `s-${sessions}` });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25" } }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), seen, posts };
}

const stream = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });
const changed = (n: number) =>
  `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { n } })}\n\n`;

async function connected(url: URL) {
  const transport = new LegacyHttpClientTransport(url);
  transports.push(transport);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  // The server's own messages only: not the answer to `initialize`.
  transport.onmessage = (message) => {
    if ("method" in message) received.push(message);
  };
  transport.onerror = (error) => errors.push(error.message);
  await transport.send(LEGACY_INITIALIZE);
  await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { transport, received, errors };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error("condition not reached");
}

describe("the 2025 client's session stream, ended by the server", () => {
  it("is opened again after the stream's retry, resuming after its last event id", async () => {
    const { url, seen } = await endpoint([
      (res) => stream(res).end(`retry: 100\nid: e1\n${changed(1)}`),
      (res) => stream(res).write(`id: e2\n${changed(2)}`),
    ]);
    const { received, errors } = await connected(url);
    await until(() => received.length === 2);
    expect(received.map((m) => (m as unknown as { params: { n: number } }).params.n)).toEqual([1, 2]);
    expect(seen).toEqual([
      { session: "s-1", lastEventId: undefined },
      { session: "s-1", lastEventId: "e1" },
    ]);
    expect(errors).toEqual([]);
  });

  it("is opened again without Last-Event-ID when the stream carried no ids", async () => {
    const { url, seen } = await endpoint([
      (res) => stream(res).end(`retry: 100\n${changed(1)}`),
      (res) => stream(res).write(changed(2)),
    ]);
    const { received } = await connected(url);
    await until(() => received.length === 2);
    expect(seen.map((get) => get.lastEventId)).toEqual([undefined, undefined]);
  });

  it("stops when the server no longer offers the stream (405), and says so", async () => {
    const { url, seen } = await endpoint([
      (res) => stream(res).end("retry: 100\n\n"),
      (res) => res.writeHead(405).end(),
      (res) => stream(res).write(changed(3)),
    ]);
    const { errors } = await connected(url);
    await until(() => errors.length === 1);
    expect(errors).toEqual(["The session's GET stream could not be opened again: HTTP 405"]);
    // Past several retry periods, no third GET came.
    await new Promise((r) => setTimeout(r, 400));
    expect(seen).toHaveLength(2);
  });

  it("opens a new session when the server forgot this one (404), then its stream", async () => {
    const { url, seen, posts } = await endpoint([
      (res) => stream(res).end("retry: 100\n\n"),
      (res) => res.writeHead(404).end(),
      (res) => stream(res).write(changed(4)),
    ]);
    const { received, errors } = await connected(url);
    await until(() => received.length === 1);
    expect(posts).toEqual([
      "initialize",
      "notifications/initialized",
      "initialize",
      "notifications/initialized",
    ]);
    expect(seen.map((get) => get.session)).toEqual(["s-1", "s-1", "s-2"]);
    expect(errors).toEqual([]);
  });

  it("gives up after five failed attempts in a row, and says so", async () => {
    const drop: GetAnswer = (_res, req) => req.socket.destroy();
    const { url, seen } = await endpoint([
      (res) => stream(res).end("retry: 100\n\n"),
      ...Array(9).fill(drop),
    ]);
    const { errors } = await connected(url);
    await until(() => errors.length === 1);
    expect(errors[0]).toMatch(/^The session's GET stream could not be opened again: /);
    await new Promise((r) => setTimeout(r, 400));
    expect(seen).toHaveLength(6);
  });

  it("is not opened again once the transport is closed", async () => {
    const { url, seen } = await endpoint([(res) => stream(res).write(changed(1))]);
    const { transport, received } = await connected(url);
    await until(() => received.length === 1);
    await transport.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(1);
  });
});
