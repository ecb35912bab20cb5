/**
 * Helpers of the client-direct tests: a raw HTTP/1.1 server that records requests byte for byte
 * and answers with canned bytes, and `both`, which sends one message through the direct path and
 * through fetch and reports what each saw.
 */
import { createServer, type Server, type Socket } from "node:net";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import type { JSONRPCMessage } from "../../../src/types/index.js";
import { meta } from "../../helpers.js";

export interface Seen {
  head: string;
  body: string;
}

/** The bytes to answer with (`undefined`: never answer), and whether to close the connection after. */
export type Reply = (
  seen: Seen,
  port: number,
) => string | Buffer | { bytes: Buffer; close: true } | undefined;

/** A raw HTTP/1.1 server: records each request as sent, answers with `reply`'s bytes (or never). */
export async function rawServer(reply: Reply) {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  let closes = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      closes++;
      sockets.delete(socket);
    });
    socket.on("error", () => {});
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString("latin1");
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const request = { head, body: buffer.subarray(end + 4, end + 4 + length).toString("utf8") };
        buffer = buffer.subarray(end + 4 + length);
        seen.push(request);
        const answer = reply(request, port);
        if (typeof answer === "object" && "close" in answer) socket.end(answer.bytes);
        else if (answer !== undefined) socket.write(answer);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    seen,
    closes: () => closes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export function response(status: string, headers: [string, string][], body: string | Buffer = ""): Buffer {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  const lines = [`HTTP/1.1 ${status}`, ...headers.map(([n, v]) => `${n}: ${v}`)];
  if (!headers.some(([n]) => /^(content-length|transfer-encoding)$/i.test(n))) {
    lines.push(`content-length: ${bytes.length}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), bytes]);
}

export function idOf(seen: Seen): unknown {
  return (JSON.parse(seen.body) as { id?: unknown }).id;
}

export const jsonResult = (seen: Seen) =>
  response(
    "200 OK",
    [["content-type", "application/json"]],
    JSON.stringify({ jsonrpc: "2.0", id: idOf(seen), result: { ok: 1 } }),
  );

export interface Run {
  delivered: unknown[];
  outcome: string;
  requests: Seen[];
}

export type Options = ConstructorParameters<typeof StreamableHttpClientTransport>[1];

/** Sends `message` once through each path and reports what each saw. */
export async function both(
  reply: Reply,
  message: Record<string, unknown>,
  options: Options = {},
  after?: (transport: StreamableHttpClientTransport) => void,
): Promise<[Run, Run]> {
  const runs: Run[] = [];
  const server = await rawServer(reply);
  for (const viaFetch of [false, true]) {
    const first = server.seen.length;
    const transport = new StreamableHttpClientTransport(server.url, {
      ...options,
      ...(viaFetch ? { fetch: (url: URL, init: RequestInit) => fetch(url, init) } : {}),
    });
    const delivered: unknown[] = [];
    transport.onmessage = (m) => delivered.push(m);
    transport.onerror = (e) => delivered.push(`onerror: ${e.message}`);
    after?.(transport);
    let outcome = "sent";
    try {
      await transport.send(message as JSONRPCMessage);
    } catch (error) {
      const status = (error as { status?: number }).status;
      outcome = `${(error as Error).name}${status ? ` ${status}` : ""}: ${(error as Error).message}`;
    }
    await transport.close();
    runs.push({ delivered, outcome, requests: server.seen.slice(first) });
  }
  await server.close();
  return runs as [Run, Run];
}

export const call = (name = "echo", args: Record<string, unknown> = {}, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, _meta: meta() },
});
