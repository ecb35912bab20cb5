// Mounted in a real Express app behind express.json(), which reads the body before the MCP
// endpoint sees the request: toNodeListener takes the parsed body (it would otherwise wait for a
// stream that has already ended). The multi-round flow, the token hook and the size bound still hold.
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { mcp } from "../../../examples/provisioner-mcpserver.js";
import { Client } from "../../../src/client/client.js";
import { createHttpHandler } from "../../../src/transports/http/handler.js";
import { toNodeListener } from "../../../src/transports/http/node.js";
import { post, read, rpc } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function expressApp(options: Parameters<typeof createHttpHandler>[1] = {}) {
  const app = express();
  app.use(express.json({ limit: "1mb" }));
  app.post("/mcp", toNodeListener(createHttpHandler(mcp, options)));
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
}

describe("behind express.json()", () => {
  it("serves a two-round flow through our client", async () => {
    const url = await expressApp();
    const client = await Client.connect(url, {
      elicitation: async () => ({ action: "accept", content: { region: "eu-west-1" } }),
    });
    closers.push(() => client.close());
    expect((await client.callTool("provision", { name: "orders" })).content).toEqual([
      { type: "text", text: "Provisioned 'orders' in eu-west-1." },
    ]);
  });

  it("verifyToken still sees the request, and the body bound still applies to what was parsed", async () => {
    const seen: string[] = [];
    const url = await expressApp({
      maxBodyBytes: 600,
      verifyToken: (request) => {
        seen.push(`${request.headers.get("authorization")} ${new URL(request.url).pathname}`);
        return { token: "t", clientId: "app", scopes: [] };
      },
    });
    const listed = await read(await post(url, rpc("tools/list"), { authorization: "Bearer t" }));
    expect(listed.status).toBe(200);
    expect(seen).toEqual(["Bearer t /mcp"]);
    const big = rpc("tools/call", { name: "provision", arguments: { name: "x".repeat(1000) } });
    const refused = await read(await post(url, big, { authorization: "Bearer t" }));
    expect(refused.status).toBe(413);
  });
});
