// Our client against the official SDK v1's HTTP+SSE server transport (SSEServerTransport, the
// deprecated 2024-11-05 transport; @modelcontextprotocol/sdk 1.32.2, a dev dependency): a peer we
// did not write. Client.connect(url) finds it by itself, and its tool's elicitation reaches our
// callback over the stream.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "../../src/client/client.js";

let http: Server;
let url: URL;
const transports = new Map<string, SSEServerTransport>();
const requests: string[] = [];

function officialServer(): McpServer {
  const server = new McpServer({ name: "official-v1-sse", version: "1.32.2" });
  server.registerTool(
    "provision",
    { description: "Provision a database", inputSchema: { name: z.string() } },
    async ({ name }) => {
      const answer = await server.server.elicitInput({
        message: "Which region?",
        requestedSchema: { type: "object", properties: { region: { type: "string" } }, required: ["region"] },
      });
      const region = answer.action === "accept" ? String(answer.content?.region) : answer.action;
      return { content: [{ type: "text", text: `Official v1 provisioned ${name} in ${region}.` }] };
    },
  );
  return server;
}

beforeAll(async () => {
  http = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(`${req.method} ${path.pathname}`);
    if (req.method === "GET" && path.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      transports.set(transport.sessionId, transport);
      res.on("close", () => transports.delete(transport.sessionId));
      await officialServer().connect(transport);
      return;
    }
    if (req.method === "POST" && path.pathname === "/messages") {
      const transport = transports.get(path.searchParams.get("sessionId") ?? "");
      if (!transport) return void res.writeHead(404).end("Unknown session");
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(405).end("Method Not Allowed");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`);
});
afterAll(async () => {
  for (const transport of transports.values()) await transport.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

it("our Client finds the official v1 HTTP+SSE server by itself and answers its elicitation", async () => {
  const asked: string[] = [];
  const client = await Client.connect(url, {
    eraCache: false,
    elicitation: (_ctx, params) => {
      asked.push(params.message);
      return { action: "accept", content: { region: "eu-west-1" } };
    },
  });
  try {
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverInfo).toMatchObject({ name: "official-v1-sse", version: "1.32.2" });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["provision"]);
    const result = await client.callTool("provision", { name: "orders" });
    expect(result.content).toEqual([{ type: "text", text: "Official v1 provisioned orders in eu-west-1." }]);
    expect(asked).toEqual(["Which region?"]);
    expect(requests.slice(0, 3)).toEqual(["POST /sse", "POST /sse", "GET /sse"]);
    expect(requests.slice(3).every((request) => request === "POST /messages")).toBe(true);
  } finally {
    await client.close();
  }
});
