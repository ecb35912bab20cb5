// The 2025 handshake's `notifications/initialized` is bounded by the client's timeoutMs, like every
// request of the handshake: a server that answers initialize and then never answers the
// notification's POST must not hold Client.connect for the HTTP stack's own limit (300 s).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { RequestTimeoutError } from "../../src/shared/errors.js";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const INITIALIZED = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: {} },
  serverInfo: { name: "stalls", version: "1" },
};

/** A 2025 server that answers initialize, then takes notifications/initialized and never answers. */
async function stallingServer(): Promise<{ url: string; abandoned: () => boolean }> {
  let abandoned = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST") {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: unknown; method?: string };
      if (message.method === "initialize") {
        res
          .writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: INITIALIZED }));
      } else if (message.method === "notifications/initialized") {
        res.once("close", () => {
          abandoned = true;
        });
      } else {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stops.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    abandoned: () => abandoned,
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the 2025 handshake against a server that never answers notifications/initialized", () => {
  it("fails Client.connect with RequestTimeoutError after timeoutMs, and abandons the POST", async () => {
    const server = await stallingServer();
    const started = Date.now();
    const outcome = await Promise.race([
      Client.connect(server.url, { mode: "legacy", timeoutMs: 200 }).then(
        () => "connected",
        (error: unknown) => error,
      ),
      pause(3_000).then(() => "still connecting after 3 s"),
    ]);
    expect(outcome).toBeInstanceOf(RequestTimeoutError);
    expect((outcome as Error).message).toBe(
      "The server did not take notifications/initialized within 200 ms",
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    for (let waited = 0; !server.abandoned() && waited < 2_000; waited += 10) await pause(10);
    expect(server.abandoned()).toBe(true);
  });
});
