// The 2025 HTTP client sends a request once more when its POST was refused (ECONNREFUSED: it
// reached no server, so it cannot run twice), the rule the 2026 client already follows. A server
// restarting on the same port refuses the first attempt; the second then meets the 404 of the
// forgotten session and goes again in a new one. A POST that broke after the server took it (it
// may have run) is never sent again. A notification or response whose POST failed on the network
// rejects with HttpTransportError as on the 2026 client (before: fetch's raw TypeError). Real
// sockets on 127.0.0.1.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../../src/client/client.js";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { HttpTransportError } from "../../../src/transports/http/errors.js";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { LegacyHttpClientTransport } from "../../../src/transports/http/legacy-client.js";
import { toNodeListener } from "../../../src/transports/http/node.js";
import { OAuthError } from "../../../src/transports/http/oauth/errors.js";
import { onJsonMessage } from "../../helpers.js";
import { LEGACY_INITIALIZE } from "./helpers.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await stop(server);
});

async function stop(server: Server): Promise<void> {
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await closed;
}

/**
 * Our server with a `charge` tool that notes each run in `ran`. Every response closes its
 * connection, so no kept-alive socket outlives a stop: the next POST opens a new one.
 */
async function start(port: number, ran: string[], name: string): Promise<Server> {
  const mcp = new MCPServer(name, { version: "1.0.0", logger: silentLogger });
  mcp.tool("charge", {}, () => {
    ran.push(name);
    return "charged";
  });
  const listener = toNodeListener(createHttpHandler(mcp, { localhostOnly: true }));
  const server = createServer((req, res) => {
    res.setHeader("connection", "close");
    listener(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return server;
}

describe("the 2025 HTTP client and a refused POST", () => {
  it("sends the request again; a server restarted on the same port runs it once, in a new session", async () => {
    const ran: string[] = [];
    const first = await start(0, ran, "first");
    const port = (first.address() as AddressInfo).port;
    const wire: string[] = [];
    let restartOnRefusal = false;
    const fetchImpl = async (input: URL | RequestInfo, init?: RequestInit) => {
      const rpc = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }).method : "";
      try {
        const response = await fetch(input, init);
        wire.push(`${init?.method} ${rpc} ${response.status}`);
        return response;
      } catch (error) {
        const code = String((error as { cause?: { code?: unknown } }).cause?.code);
        wire.push(`${init?.method} ${rpc} ${code}`);
        if (restartOnRefusal && code === "ECONNREFUSED") {
          restartOnRefusal = false;
          await start(port, ran, "second");
        }
        throw error;
      }
    };
    const client = await Client.connect(`http://127.0.0.1:${port}/mcp`, {
      mode: "legacy",
      eraCache: false,
      http: { fetch: fetchImpl as typeof fetch },
    });
    expect((await client.callTool("charge")).content).toEqual([{ type: "text", text: "charged" }]);
    servers.splice(servers.indexOf(first), 1);
    await stop(first);
    restartOnRefusal = true;
    wire.length = 0;

    const result = await client.callTool("charge");
    expect(result.content).toEqual([{ type: "text", text: "charged" }]);
    expect(ran).toEqual(["first", "second"]);
    expect(wire.filter((entry) => entry.startsWith("POST"))).toEqual([
      "POST tools/call ECONNREFUSED",
      "POST tools/call 404",
      "POST initialize 200",
      "POST notifications/initialized 202",
      "POST tools/call 200",
    ]);
    await client.close();
  });

  it("never sends again a request whose connection broke after the server took it", async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      onJsonMessage(req, (message) => {
        received.push(String(message.method));
        if (message.method !== "initialize") return void req.socket.destroy();
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
        const result = {
          protocolVersion: "2025-11-25",
          capabilities: {},
          serverInfo: { name: "x", version: "1" },
        };
        res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const transport = new LegacyHttpClientTransport(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    );
    await transport.send(LEGACY_INITIALIZE);
    const outcome = await transport
      .send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "charge" } })
      .catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(HttpTransportError);
    expect((outcome as Error).message).toBe(
      "tools/call: the POST failed (fetch failed: other side closed (UND_ERR_SOCKET))",
    );
    expect(received).toEqual(["initialize", "tools/call"]);
    await transport.close();
  });
});

/** A 127.0.0.1 port nothing listens on any more. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await stop(server);
  return port;
}

describe.each([
  ["2025", LegacyHttpClientTransport],
  ["2026", StreamableHttpClientTransport],
] as const)("the %s HTTP client's notification to a closed port", (_era, Transport) => {
  it("rejects with HttpTransportError naming the POST, as a request's does", async () => {
    const port = await closedPort();
    const transport = new Transport(`http://127.0.0.1:${port}/mcp`);
    const outcome = await transport
      .send({ jsonrpc: "2.0", method: "notifications/initialized" })
      .catch((error: unknown) => error);
    await transport.close();
    expect(outcome).toBeInstanceOf(HttpTransportError);
    expect((outcome as Error).message).toBe(
      `POST notifications/initialized failed: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it("keeps the authProvider's failure as it is, not as a network one", async () => {
    const transport = new Transport("http://127.0.0.1:9/mcp", {
      authProvider: () => {
        throw new Error("vault sealed");
      },
    });
    const outcome = await transport
      .send({ jsonrpc: "2.0", method: "notifications/initialized" })
      .catch((error: unknown) => error);
    await transport.close();
    expect(outcome).toBeInstanceOf(HttpTransportError);
    expect((outcome as Error).message).toBe("The authProvider failed to supply a token");
  });
});

describe.each([
  ["2025", LegacyHttpClientTransport],
  ["2026", StreamableHttpClientTransport],
] as const)("the %s HTTP client's request whose 401 recovery fails", (_era, Transport) => {
  // Regression (2025): the OAuthError became HttpTransportError "<method>: the POST failed (...)".
  it("rejects with the authProvider's OAuthError as it is", async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' }).end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const denied = new OAuthError("access_denied", "the user declined the authorization");
    const transport = new Transport(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, {
      authProvider: {
        token: () => "stale",
        unauthorized: () => Promise.reject(denied),
      },
    });
    const outcome = await transport
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
      .catch((error: unknown) => error);
    await transport.close();
    expect(outcome).toBe(denied);
  });
});

it("the 2025 HTTP client's response to a closed port rejects with HttpTransportError naming it", async () => {
  const port = await closedPort();
  const transport = new LegacyHttpClientTransport(`http://127.0.0.1:${port}/mcp`);
  const outcome = await transport
    .send({ jsonrpc: "2.0", id: 7, result: {} })
    .catch((error: unknown) => error);
  await transport.close();
  expect(outcome).toBeInstanceOf(HttpTransportError);
  expect((outcome as Error).message).toBe(
    `POST response failed: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`,
  );
});
