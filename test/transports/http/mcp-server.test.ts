import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ClientSession } from "../../../src/client/session.js";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { StreamableHttpClientTransport } from "../../../src/transports/http/client.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { post, read, rpc } from "./helpers.js";

let handle: HttpServerHandle;
beforeAll(async () => {
  const mcp = new MCPServer("routed", { logger: silentLogger });
  mcp.tool(
    "route",
    {
      description: "Routes by region",
      input: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }), size: z.number().optional() }),
    },
    ({ region }) => `routed to ${region}`,
  );
  handle = await serveHttp(mcp);
});
afterAll(() => handle.close());

describe("MCPServer over HTTP", () => {
  it("checks Mcp-Param-* against the tool's own schema with no option", async () => {
    const body = rpc("tools/call", { name: "route", arguments: { region: "eu" } }, 1);
    expect(await read(await post(handle.url, body))).toEqual({
      status: 400,
      contentType: "application/json",
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32020, message: "Missing required header Mcp-Param-Region" },
      },
    });
    expect((await post(handle.url, body, { "mcp-param-region": "eu" })).status).toBe(200);
  });

  it("serves a ClientSession that learned the tools", async () => {
    const transport = new StreamableHttpClientTransport(handle.url);
    const session = await ClientSession.connect(transport);
    const { tools } = await session.listTools();
    expect(transport.filterListedTools(tools, () => {}).map((t) => t.name)).toEqual(["route"]);
    const result = await session.callTool("route", { region: "ap-south-1" });
    expect(result.content).toEqual([{ type: "text", text: "routed to ap-south-1" }]);
    await session.close();
  });
});
