// The 2025 client opens the session's GET stream as part of the handshake: the server has answered
// the GET before the first request after `initialize`, so what it sends there for that request's
// side effects is not lost, and a stream-resuming server (the conformance suite's sse-retry) never
// takes the fresh GET for a resumption. A server that never answers the GET holds the handshake
// back by a bounded wait only.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LegacyHttpClientTransport } from "../../../src/transports/http/legacy-client.js";
import type { JSONRPCMessage } from "../../../src/types/index.js";
import { LEGACY_INITIALIZE } from "./helpers.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A 2025 endpoint on a real socket that records, in order, each POST's method and the moment it
 * answered the GET; `answerGet` decides when (or whether) the GET gets its headers.
 */
async function endpoint(answerGet: (res: ServerResponse, answered: () => void) => void) {
  const events: string[] = [];
  const server = createServer((req, res) => {
    if (req.method === "DELETE") return res.writeHead(200).end();
    if (req.method === "GET") {
      return answerGet(res, () => {
        res.writeHead(200, { "content-type": "text/event-stream" }).flushHeaders();
        events.push("GET answered");
      });
    }
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    req.on("end", () => {
      const message = JSON.parse(text) as { id?: number; method: string };
      events.push(message.method);
      if (message.id === undefined) return res.writeHead(202).end();
      const result = message.method === "initialize" ? { protocolVersion: "2025-11-25" } : { tools: [] };
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), events };
}

/** The handshake, then one `tools/list`; what the transport received. */
async function handshakeThenList(url: URL) {
  const transport = new LegacyHttpClientTransport(url);
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  await transport.send(LEGACY_INITIALIZE);
  await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await transport.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  await transport.close();
  return received;
}

describe("the 2025 client's session stream", () => {
  it("is answered before the first request after the handshake goes out", async () => {
    const { url, events } = await endpoint((_res, answered) => setTimeout(answered, 150));
    await handshakeThenList(url);
    expect(events).toEqual(["initialize", "notifications/initialized", "GET answered", "tools/list"]);
  });

  it("holds the handshake back only so long when the server never answers the GET", async () => {
    const { url, events } = await endpoint(() => {});
    const received = await handshakeThenList(url);
    expect(events).toEqual(["initialize", "notifications/initialized", "tools/list"]);
    expect(received.at(-1)).toEqual({ jsonrpc: "2.0", id: 2, result: { tools: [] } });
  });

  it("goes on at once when the server offers no GET stream (405)", async () => {
    const { url, events } = await endpoint((res) => {
      events.push("GET refused");
      res.writeHead(405).end();
    });
    await handshakeThenList(url);
    expect(events).toEqual(["initialize", "notifications/initialized", "GET refused", "tools/list"]);
  });
});
