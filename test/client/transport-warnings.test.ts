// What a transport reports through `onerror` (here: an SSE event that is not JSON) reaches the
// client's `onWarning`. Before, `Client` and `ClientSession` never listened, so the report was
// dropped. Real sockets: a hand-written server on 127.0.0.1 whose tools/call stream carries junk.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { ClientSessionGroup } from "../../src/client/group.js";
import { MCPServer, Server as McpLowLevelServer, silentLogger } from "../../src/server/index.js";
import { onJsonMessage } from "../helpers.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * Speaks just enough of both eras: a 2025 `initialize` opens session `s-1`; every `tools/call` is
 * answered on an SSE stream whose first event is not JSON.
 */
async function junkStreamServer(): Promise<URL> {
  const server = createServer((req, res) => {
    if (req.method === "DELETE") return void res.writeHead(200).end();
    if (req.method !== "POST") return void res.writeHead(405).end();
    onJsonMessage(req, (message) => {
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === "initialize") {
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
        const result = {
          protocolVersion: "2025-11-25",
          capabilities: {},
          serverInfo: { name: "j", version: "1" },
        };
        return void res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: {not json\n\n");
      const result = { content: [{ type: "text", text: "ok" }] };
      res.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n\n`);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // A token in the URL, as some deployments put one: no warning may carry it.
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp?token=s3cret`);
}

describe.each([
  ["2026-07-28", "2026-07-28"],
  ["2025-11-25", "legacy"],
] as const)("a transport's report on the %s wire", (_era, mode) => {
  it("reaches onWarning, without the URL, and the call completes", async () => {
    const warnings: string[] = [];
    const client = await Client.connect(await junkStreamServer(), {
      mode,
      eraCache: false,
      onWarning: (message) => warnings.push(message),
    });
    const result = await client.callTool("t");
    await client.close();
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
    expect(warnings).toEqual(["The transport reported: Ignored an SSE event that is not JSON"]);
  });

  it("an onWarning that throws leaves the call alone", async () => {
    let calls = 0;
    const client = await Client.connect(await junkStreamServer(), {
      mode,
      eraCache: false,
      onWarning: () => {
        calls++;
        throw new Error("sink gone");
      },
    });
    const result = await client.callTool("t");
    await client.close();
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
    expect(calls).toBe(1);
  });

  it("of a session a group opened reaches the group's onWarning", async () => {
    const warnings: string[] = [];
    await using group = new ClientSessionGroup({ onWarning: (message) => warnings.push(message) });
    const client = await group.connect(await junkStreamServer(), { mode, eraCache: false });
    const result = await client.callTool("t");
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
    expect(warnings).toEqual(["The transport reported: Ignored an SSE event that is not JSON"]);
  });

  it("of a grouped session with its own onWarning reaches that one, not the group's", async () => {
    const groupWarnings: string[] = [];
    const ownWarnings: string[] = [];
    await using group = new ClientSessionGroup({ onWarning: (message) => groupWarnings.push(message) });
    const client = await group.connect(await junkStreamServer(), {
      mode,
      eraCache: false,
      onWarning: (message) => ownWarnings.push(message),
    });
    await client.callTool("t");
    expect(ownWarnings).toEqual(["The transport reported: Ignored an SSE event that is not JSON"]);
    expect(groupWarnings).toEqual([]);
  });
});

// The client's other warnings go to the same sink: its failure must not become the request's
// (nor an uncaught exception), as the docs and `onWarning`'s contract say. Before, only the
// transport's reports were guarded: a throwing instrument with a throwing sink failed every request.
describe("an onWarning that throws", () => {
  const sinkGone = () => {
    throw new Error("sink gone");
  };

  function toolServer() {
    const mcp = new MCPServer("w", { logger: silentLogger });
    mcp.tool("t", {}, () => "ok");
    return mcp;
  }

  it("fails no request an instrument that throws was warned about", async () => {
    await using client = await Client.connect(toolServer(), {
      onWarning: sinkGone,
      instrument: () => ({
        end: () => {
          throw new Error("instrument gone");
        },
      }),
    });
    const result = await client.callTool("t");
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("fails no request whose progress listener threw", async () => {
    const mcp = new MCPServer("w", { logger: silentLogger });
    mcp.tool("t", {}, async (_args, ctx) => {
      await ctx.progress(1, 2);
      return "ok";
    });
    await using client = await Client.connect(mcp, { onWarning: sinkGone });
    const result = await client.callTool(
      "t",
      {},
      {
        onProgress: () => {
          throw new Error("listener gone");
        },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("of a group lets a member whose list failed join, as the warning says", async () => {
    const server = new McpLowLevelServer("w", {
      logger: silentLogger,
      onListTools: () => ({ tools: [{ name: "t", inputSchema: { type: "object" } }] }),
      onListPrompts: () => {
        throw new Error("prompts are down");
      },
    });
    await using group = new ClientSessionGroup({ onWarning: sinkGone });
    await group.connect(server);
    expect([...group.tools.keys()]).toEqual(["t"]);
  });
});
