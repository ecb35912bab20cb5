// How our 2025 HTTP client reads the answer to a request: only the response under the request's
// id (or an error under id null) is the answer; anything else fails the request with a clear
// HttpTransportError, and a refusal status keeps its HttpStatusError. An event stream cut before
// the response is resumed from its last event id at most five times, then the request fails.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { StreamableHttpClientOptions } from "../../../src/transports/http/client.js";
import {
  HttpStatusError,
  HttpTransportError,
  ResponseTooLargeError,
} from "../../../src/transports/http/errors.js";
import { LegacyHttpClientTransport } from "../../../src/transports/http/legacy-client.js";
import type { JSONRPCMessage } from "../../../src/types/index.js";
import { LEGACY_INITIALIZE } from "./helpers.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

type Post = { id?: unknown; method?: string };

/**
 * A 2025 endpoint on a real socket: `initialize` opens session `s-1`, DELETE ends it, and `onPost`
 * answers every other POST (`onOther` every other method).
 */
async function endpoint2025(
  onPost: (message: Post, res: ServerResponse) => void,
  onOther: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(405).end(),
): Promise<URL> {
  const server = createServer((req, res) => {
    if (req.method === "DELETE") return res.writeHead(200).end();
    if (req.method !== "POST") return onOther(req, res);
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    req.on("end", () => {
      const message = JSON.parse(text) as Post;
      if (message.method !== "initialize") return onPost(message, res);
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25" } }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
}

/** A 2025 endpoint that answers `tools/call` with `status` and `body`. */
function answering(status: number, body: string): Promise<URL> {
  return endpoint2025((_message, res) =>
    res.writeHead(status, { "content-type": "application/json" }).end(body),
  );
}

/** Initializes a 2025 client against `url`, then sends one `tools/call`: its outcome and what else came. */
async function callOver(
  url: URL,
  params: Record<string, unknown> = { name: "x" },
  options: StreamableHttpClientOptions = {},
) {
  const transport = new LegacyHttpClientTransport(url, options);
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  await transport.send(LEGACY_INITIALIZE);
  received.length = 0;
  const outcome = await transport
    .send({ jsonrpc: "2.0", id: 2, method: "tools/call", params })
    .then(() => undefined)
    .catch((error: unknown) => error);
  await transport.close();
  return { outcome, received };
}

async function callWith(status: number, body: string) {
  return callOver(await answering(status, body));
}

describe("the 2025 HTTP client reads a JSON answer", () => {
  it("takes the response under the request's id", async () => {
    const { outcome, received } = await callWith(200, '{"jsonrpc":"2.0","id":2,"result":{"content":[]}}');
    expect(outcome).toBeUndefined();
    expect(received).toEqual([{ jsonrpc: "2.0", id: 2, result: { content: [] } }]);
  });

  it("takes an error under id null as the request's (a transport-level refusal)", async () => {
    const { outcome, received } = await callWith(
      400,
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request"}}',
    );
    expect(outcome).toBeUndefined();
    expect(received).toEqual([{ jsonrpc: "2.0", id: 2, error: { code: -32600, message: "Bad Request" } }]);
  });

  it("refuses a response under another id instead of passing it off as this one's", async () => {
    const { outcome, received } = await callWith(200, '{"jsonrpc":"2.0","id":7,"result":{"content":[]}}');
    expect(outcome).toEqual(
      new HttpTransportError("tools/call: the server's JSON answer is not the response to this request"),
    );
    expect(received).toEqual([]);
  });

  it("says the body was unreadable when a 200 carries broken JSON", async () => {
    const { outcome } = await callWith(200, '{"jsonrpc":"2.0","id":2,"result":{');
    expect(outcome).toEqual(new HttpTransportError("tools/call: the server sent no readable JSON"));
  });

  it("keeps the status for an error status without a JSON-RPC answer", async () => {
    const { outcome } = await callWith(500, "oops");
    expect(outcome).toBeInstanceOf(HttpStatusError);
    expect((outcome as HttpStatusError).message).toBe("HTTP 500 for tools/call");
  });
});

/**
 * A 2025 endpoint whose `tools/call` stream sends one progress event (with an id and a short
 * `retry`) and closes before the response; a GET that resumes it answers `resume`.
 */
async function cutting(resume: "405" | "cut-again"): Promise<{ url: URL; gets: string[] }> {
  const gets: string[] = [];
  let event = 0;
  const progress = () =>
    `id: e${++event}\nretry: 5\ndata: ${JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p", progress: event },
    })}\n\n`;
  const stream = (res: ServerResponse) =>
    res.writeHead(200, { "content-type": "text/event-stream" }).end(progress());
  const url = await endpoint2025(
    (message, res) => (message.method === "tools/call" ? stream(res) : res.writeHead(202).end()),
    (req, res) => {
      gets.push(String(req.headers["last-event-id"]));
      if (resume === "405") res.writeHead(405).end();
      else stream(res);
    },
  );
  return { url, gets };
}

describe("the 2025 HTTP client resumes a cut event stream (SEP-1699), within bounds", () => {
  const withProgress = { name: "x", _meta: { progressToken: "p" } };

  it("fails the request when the server refuses the resuming GET", async () => {
    const { url, gets } = await cutting("405");
    const { outcome, received } = await callOver(url, withProgress);
    expect(outcome).toBeInstanceOf(HttpTransportError);
    expect((outcome as Error).message).toBe("tools/call: the event stream ended before the response");
    expect(gets).toEqual(["e1"]);
    expect(received.filter((m) => "method" in m && m.method === "notifications/progress")).toHaveLength(1);
  });

  it("gives up after five resumptions that never bring the response", async () => {
    const { url, gets } = await cutting("cut-again");
    const { outcome, received } = await callOver(url, withProgress);
    expect((outcome as Error).message).toBe("tools/call: the event stream ended before the response");
    // Each resumption asks from the last event it saw.
    expect(gets).toEqual(["e1", "e2", "e3", "e4", "e5"]);
    expect(received.filter((m) => "method" in m && m.method === "notifications/progress")).toHaveLength(6);
  });
});

describe("the 2025 HTTP client bounds a stream's events", () => {
  it("fails the request with ResponseTooLargeError, and does not resume into the same event", async () => {
    const gets: string[] = [];
    const url = await endpoint2025(
      (message, res) => {
        if (message.method !== "tools/call") return res.writeHead(202).end();
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(`id: e1\nretry: 5\ndata:\n\nid: e2\ndata: ${"x".repeat(2_000)}\n\n`);
      },
      (req, res) => {
        gets.push(String(req.headers["last-event-id"]));
        res.writeHead(405).end();
      },
    );
    const { outcome } = await callOver(url, { name: "x" }, { maxResponseBytes: 1_000 });
    expect(outcome).toBeInstanceOf(ResponseTooLargeError);
    expect((outcome as Error).message).toBe("tools/call: an SSE event is larger than 1000 bytes");
    expect(gets).toEqual([]);
  });

  it("fails a request whose JSON answer passes the bound with ResponseTooLargeError", async () => {
    const url = await answering(
      200,
      JSON.stringify({ jsonrpc: "2.0", id: 2, result: { x: "y".repeat(2_000) } }),
    );
    const { outcome } = await callOver(url, { name: "x" }, { maxResponseBytes: 1_000 });
    expect(outcome).toBeInstanceOf(ResponseTooLargeError);
    expect((outcome as Error).message).toBe("tools/call: the response is larger than 1000 bytes");
  });

  it("reports an event past the bound on the session's GET stream to onerror, and ends that stream", async () => {
    const url = await endpoint2025(
      (_message, res) => res.writeHead(202).end(),
      (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${"x".repeat(2_000)}\n\n`);
      },
    );
    const transport = new LegacyHttpClientTransport(url, { maxResponseBytes: 1_000 });
    const reported = new Promise<Error>((resolve) => {
      transport.onerror = resolve;
    });
    await transport.send(LEGACY_INITIALIZE);
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const error = await reported;
    await transport.close();
    expect(error).toEqual(new ResponseTooLargeError("an SSE event is larger than 1000 bytes"));
  });
});
