/**
 * Interop with the official TypeScript SDK 2.4.0, a peer we did not write: its client in its
 * default (legacy) mode and in `auto` completes our resolver tools over HTTP and stdio; our client
 * in `auto` completes elicitation flows against its McpServer served the 2025 way.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client as OfficialClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport as OfficialStdio } from "@modelcontextprotocol/client/stdio";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "../../src/client/client.js";
import { type HttpServerHandle, serveHttp } from "../../src/transports/http/node.js";
import { buildDualEraServer } from "../fixtures/legacy/dual-era.js";
import { regionCallback } from "./helpers.js";
import { DUAL_ERA, killSpawned, OFFICIAL_LEGACY, REPO_ROOT, spawnTarget } from "./stdio-helpers.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  killSpawned();
});

type Mode = "legacy" | "auto";

/** The official client with handlers for all three back-channel kinds. */
function officialClient(mode: Mode) {
  const client = new OfficialClient(
    { name: "official-client", version: "2.4.0" },
    {
      capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
      ...(mode === "auto" ? { versionNegotiation: { mode: "auto" as const } } : {}),
    },
  );
  client.setRequestHandler("elicitation/create", async () => ({
    action: "accept",
    content: { region: "eu-north-1" },
  }));
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    content: { type: "text", text: "official summary" },
    model: "m",
  }));
  client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///official" }] }));
  cleanups.push(() => client.close());
  return client;
}

async function exercise(client: OfficialClient) {
  const texts: string[] = [];
  for (const [name, args] of [
    ["provision", { name: "db" }],
    ["summarize", { topic: "x" }],
    ["workspace", {}],
    ["handbuilt", { name: "db" }],
  ] as const) {
    const result = await client.callTool({ name, arguments: args });
    texts.push(String((result.content as { text?: string }[])[0]?.text));
  }
  return texts;
}

const EXPECTED = (version: string) => [
  "Provisioned db in eu-north-1.",
  "official summary",
  "file:///official",
  `Handbuilt db in eu-north-1 (state handbuilt-v1, ${version}).`,
];

describe("the official client completes our resolver tools", () => {
  it.each([
    ["legacy", "2025-11-25"],
    ["auto", "2026-07-28"],
  ] as [Mode, string][])("over HTTP in %s mode", async (mode, version) => {
    const handle: HttpServerHandle = await serveHttp(buildDualEraServer({ legacyShim: true }), { port: 0 });
    cleanups.push(() => handle.close());
    const client = officialClient(mode);
    await client.connect(new StreamableHTTPClientTransport(handle.url));
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    expect(await exercise(client)).toEqual(EXPECTED(version));
  });

  it.each([
    ["legacy", "2025-11-25"],
    ["auto", "2026-07-28"],
  ] as [Mode, string][])("over stdio in %s mode", async (mode, version) => {
    const client = officialClient(mode);
    const target = spawnTarget(DUAL_ERA, { LEGACY_SHIM: "1" });
    await client.connect(
      new OfficialStdio({
        ...target,
        args: [...target.args],
        env: { ...process.env, ...target.env } as Record<string, string>,
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    expect(await exercise(client)).toEqual(EXPECTED(version));
  });
});

/** The official McpServer on its stateful 2025 Streamable HTTP transport (one session). */
async function officialLegacyHttp(): Promise<string> {
  const server = new McpServer({ name: "official-legacy", version: "2.4.0" });
  server.registerTool(
    "provision",
    { description: "p", inputSchema: z.object({ name: z.string() }) },
    async ({ name }, ctx) => {
      const answer = await ctx.mcpReq.elicitInput({
        message: "Which region?",
        requestedSchema: { type: "object", properties: { region: { type: "string" } }, required: ["region"] },
      });
      return {
        content: [
          { type: "text", text: `Official provisioned ${name} in ${String(answer.content?.region)}.` },
        ],
      };
    },
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  await server.connect(transport);
  const http: HttpServer = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const hasBody = req.method === "POST";
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: hasBody ? Buffer.concat(chunks) : undefined,
    });
    const response = await transport.handleRequest(request);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      headers[key] = value;
    });
    res.writeHead(response.status, headers);
    const reader = response.body?.getReader();
    for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
      res.write(chunk.value);
    }
    res.end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await server.close();
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

describe("our client in auto mode against the official server, served the 2025 way", () => {
  it("over HTTP (their stateful WebStandardStreamableHTTPServerTransport)", async () => {
    const url = await officialLegacyHttp();
    const asked: (string | number)[] = [];
    const client = await Client.connect(url, {
      elicitation: (ctx, params) => {
        asked.push(ctx.requestId);
        expect(params.message).toBe("Which region?");
        return { action: "accept", content: { region: "us-west-2" } };
      },
    });
    cleanups.push(() => client.close());
    expect([client.era, client.protocolVersion]).toEqual(["legacy", "2025-11-25"]);
    expect(client.serverInfo).toMatchObject({ name: "official-legacy" });
    const result = await client.callTool("provision", { name: "db" });
    expect(result.content).toEqual([{ type: "text", text: "Official provisioned db in us-west-2." }]);
    expect(asked).toHaveLength(1);
    expect(typeof asked[0]).toBe("number");
  });

  it("over stdio (their classic StdioServerTransport)", async () => {
    const client = await Client.connect(
      { ...spawnTarget(OFFICIAL_LEGACY), cwd: REPO_ROOT },
      { elicitation: regionCallback("eu-south-1") },
    );
    cleanups.push(() => client.close());
    expect([client.era, client.protocolVersion]).toEqual(["legacy", "2025-11-25"]);
    const result = await client.callTool("provision", { name: "db" });
    expect(result.content).toEqual([{ type: "text", text: "Official provisioned db in eu-south-1." }]);
  });
});
