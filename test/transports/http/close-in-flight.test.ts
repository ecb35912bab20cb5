// close() on either Streamable HTTP client while a request and a notification are still being
// POSTed: both exchanges are aborted, the request's send settles quietly (the connection fails the
// awaiting call with ConnectionClosedError) and the notification's send rejects with
// ConnectionClosedError, as the HTTP+SSE client's sends cut by close do. Before, the 2025 client
// rejected the notification with fetch's raw AbortError and the 2026 one with an HttpTransportError
// that read like a network failure. Real sockets: a server on 127.0.0.1 that holds every POST.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ClientSession } from "../../../src/client/session.js";
import { ConnectionClosedError } from "../../../src/shared/errors.js";
import type { Transport } from "../../../src/shared/transport.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { LegacyHttpClientTransport } from "../../../src/transports/http/legacy-client.js";
import { onJsonMessage } from "../../helpers.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * Answers a 2025 `initialize` (session `s-1`) and DELETE; holds every other POST unanswered.
 * `held` lists the methods of the POSTs it holds; `abandoned` those the client then gave up on.
 */
async function holdingServer() {
  const held: string[] = [];
  const abandoned: string[] = [];
  const server = createServer((req, res) => {
    if (req.method === "DELETE") return void res.writeHead(200).end();
    if (req.method !== "POST") return void res.writeHead(405).end();
    onJsonMessage(req, (message) => {
      if (message.method === "initialize") {
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
        const result = {
          protocolVersion: "2025-11-25",
          capabilities: {},
          serverInfo: { name: "h", version: "1" },
        };
        return void res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      }
      if (message.method === "notifications/initialized") return void res.writeHead(202).end();
      held.push(String(message.method));
      res.on("close", () => abandoned.push(String(message.method)));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  return { url, held, abandoned };
}

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5_000) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
} as const;

const settled = (sent: Promise<void>) =>
  sent.then(
    () => ({ resolved: true }),
    (error: unknown) => ({ rejected: error }),
  );

describe.each([
  ["the 2025 client", (url: URL): Transport => new LegacyHttpClientTransport(url), true],
  ["the 2026 client", (url: URL): Transport => new StreamableHttpClientTransport(url), false],
  [
    "the 2026 client over a custom fetch",
    (url: URL): Transport =>
      new StreamableHttpClientTransport(url, { fetch: (input, init) => fetch(input, init) }),
    false,
  ],
])("close() on %s with POSTs in flight", (_label, open, legacy) => {
  it("aborts both; the request's send settles, the notification's rejects with ConnectionClosedError", async () => {
    const server = await holdingServer();
    const transport = open(server.url);
    if (legacy) await transport.send(INITIALIZE);
    const request = settled(
      transport.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } }),
    );
    const notification = settled(
      transport.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" }),
    );
    await until(() => server.held.length === 2);
    await transport.close();

    expect(await request).toEqual({ resolved: true });
    const outcome = await notification;
    expect(outcome).toEqual({ rejected: expect.any(ConnectionClosedError) });
    expect((outcome as { rejected: Error }).rejected.message).toBe("The HTTP transport closed");
    await until(() => server.abandoned.length === 2);
    expect([...server.abandoned].sort()).toEqual(["notifications/roots/list_changed", "tools/call"]);
  });

  it("through a session: the call and the notification both fail with ConnectionClosedError", async () => {
    const server = await holdingServer();
    const transport = open(server.url);
    if (legacy) await transport.send(INITIALIZE);
    const session = await ClientSession.connect(transport);
    const call = session.connection.request("tools/call", { name: "t" }).catch((error: unknown) => error);
    const notify = session.connection
      .notify("notifications/roots/list_changed")
      .catch((error: unknown) => error);
    await until(() => server.held.length === 2);
    await session.close();
    expect(await call).toBeInstanceOf(ConnectionClosedError);
    expect(await notify).toBeInstanceOf(ConnectionClosedError);
  });
});
