// The server's identity as clients see it (serverInfo on server/discover and on every result):
// title, description, websiteUrl and icons when given, nothing when not; and MCPServer passes
// maxSubscriptions on to its listen streams.
import { describe, expect, it } from "vitest";
import { Client } from "../../../src/client/client.js";
import { quietServer, send } from "./helpers.js";

const ICON = { src: "https://example.com/icon.png", mimeType: "image/png", sizes: ["48x48"] };

describe("serverInfo", () => {
  it("carries the identity fields that were given, on discovery and on results", async () => {
    const mcp = quietServer("weather", {
      version: "2.0.0",
      title: "Weather",
      description: "Forecasts by city",
      websiteUrl: "https://example.com/weather",
      icons: [ICON],
    });
    mcp.tool("ping", {}, () => "pong");
    const expected = {
      name: "weather",
      version: "2.0.0",
      title: "Weather",
      description: "Forecasts by city",
      websiteUrl: "https://example.com/weather",
      icons: [ICON],
    };
    const client = await Client.connect(mcp);
    expect(client.serverInfo).toEqual(expected);
    expect(await send(mcp, "tools/call", { name: "ping" })).toMatchObject({
      result: { _meta: { "io.modelcontextprotocol/serverInfo": expected } },
    });
  });

  it("carries only name and version when nothing else is given", async () => {
    const client = await Client.connect(quietServer("plain", { version: "1" }));
    expect(client.serverInfo).toEqual({ name: "plain", version: "1" });
  });
});

describe("MCPServer maxSubscriptions", () => {
  it("bounds the listen streams: one more answers -32603", async () => {
    const mcp = quietServer("live", { listChanged: true, maxSubscriptions: 1 });
    mcp.tool("ping", {}, () => "pong");
    const client = await Client.connect(mcp);
    const first = client.listen({ toolsListChanged: true }, () => {}, { reconnect: false });
    await first.acknowledged;
    const second = client.listen({ toolsListChanged: true }, () => {}, { reconnect: false });
    await expect(second.acknowledged).rejects.toMatchObject({ code: -32603 });
    first.close();
    await client.close();
  });
});
