// Unregistering tools, prompts and resources at run time: each leaves its list, later requests
// answer as for an unknown one on the wire, listen streams hear the list change, and the name can
// be registered again.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "../../../src/client/client.js";
import type { JSONRPCNotification } from "../../../src/types/index.js";
import { quietServer, send } from "./helpers.js";

function liveServer() {
  const mcp = quietServer("live", { listChanged: true });
  mcp.tool("export", { input: z.object({ table: z.string() }) }, ({ table }) => `exported ${table}`);
  mcp.tool("ping", {}, () => "pong");
  mcp.prompt("briefing", {}, () => "Brief me.");
  mcp.resource("file:///notes.txt", {}, () => "notes");
  mcp.resource("users://{id}", {}, ({ id }) => `user ${id}`);
  return mcp;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error("condition not reached");
}

describe("MCPServer.removeTool / removePrompt / removeResource", () => {
  it("a removed tool leaves tools/list and answers -32602 like an unknown one; it can come back", async () => {
    const mcp = liveServer();
    expect(mcp.removeTool("export")).toBe(true);
    const listed = (await send(mcp, "tools/list")) as unknown as { result: { tools: { name: string }[] } };
    expect(listed.result.tools.map((tool) => tool.name)).toEqual(["ping"]);
    expect(await send(mcp, "tools/call", { name: "export", arguments: { table: "t" } })).toMatchObject({
      error: { code: -32602, message: "Unknown tool: export" },
    });
    expect(mcp.removeTool("export")).toBe(false);

    mcp.tool("export", {}, () => "exported everything");
    expect(await send(mcp, "tools/call", { name: "export" })).toMatchObject({
      result: { content: [{ type: "text", text: "exported everything" }] },
    });
  });

  it("a removed prompt and removed resources leave their lists and their reads", async () => {
    const mcp = liveServer();
    expect(mcp.removePrompt("briefing")).toBe(true);
    expect(mcp.removeResource("file:///notes.txt")).toBe(true);
    expect(mcp.removeResource("users://{id}")).toBe(true);
    expect(mcp.removeResource("users://7")).toBe(false);
    expect(await send(mcp, "prompts/list")).toMatchObject({ result: { prompts: [] } });
    expect(await send(mcp, "resources/list")).toMatchObject({ result: { resources: [] } });
    expect(await send(mcp, "resources/templates/list")).toMatchObject({ result: { resourceTemplates: [] } });
    expect(await send(mcp, "prompts/get", { name: "briefing" })).toMatchObject({ error: { code: -32602 } });
    expect(await send(mcp, "resources/read", { uri: "file:///notes.txt" })).toMatchObject({
      error: { code: -32602 },
    });
    expect(await send(mcp, "resources/read", { uri: "users://7" })).toMatchObject({
      error: { code: -32602 },
    });
  });

  it("listen streams hear each list change, and nothing for a name that was not registered", async () => {
    const mcp = liveServer();
    const client = await Client.connect(mcp);
    const seen: string[] = [];
    const sub = client.listen(
      { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
      (notification: JSONRPCNotification) => seen.push(notification.method),
    );
    await sub.acknowledged;
    expect(mcp.removeTool("nope")).toBe(false);
    mcp.removeTool("ping");
    mcp.removePrompt("briefing");
    mcp.removeResource("users://{id}");
    await until(() => seen.length === 3);
    expect(seen).toEqual([
      "notifications/tools/list_changed",
      "notifications/prompts/list_changed",
      "notifications/resources/list_changed",
    ]);
    sub.close();
    await client.close();
  });
});
