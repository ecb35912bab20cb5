/**
 * A 2025 session at the wire: the handshake, version negotiation, the 2025 result shapes and
 * error codes, logging/setLevel, and the era rule for hand-built InputRequiredResults.
 */
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import { buildDualEraServer } from "../fixtures/legacy/dual-era.js";
import { recordingLogger, resultOf } from "../helpers.js";
import { CLIENT_INFO, RawLegacyClient } from "./helpers.js";

const INVALID_RESULT = { code: -32603, message: "Handler returned an invalid result" };

async function initialized(
  capabilities = {},
  version = "2025-11-25",
  server: Dispatcher = buildDualEraServer(),
) {
  const client = new RawLegacyClient(server);
  await client.initialize(capabilities, version);
  return client;
}

describe("initialize", () => {
  it("answers the InitializeResult: no resultType, no cache hints, no serverInfo stamp", async () => {
    const client = new RawLegacyClient(buildDualEraServer({ instructions: "Ask first." }));
    const response = await client.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {} },
      clientInfo: CLIENT_INFO,
    });
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {}, prompts: {}, resources: {}, logging: {} },
        serverInfo: { name: "dual-era", version: "1.0.0" },
        instructions: "Ask first.",
      },
    });
    expect(client.connection.era).toBe("legacy");
  });

  it.each(["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])(
    "echoes %s, a version it serves",
    async (version) => {
      const client = new RawLegacyClient(buildDualEraServer());
      const response = await client.initialize({}, version);
      expect(resultOf(response).protocolVersion).toBe(version);
    },
  );

  it.each(["2099-01-01", "2026-07-28", "2024-10-07"])(
    "answers its newest handshake version to %s",
    async (version) => {
      const client = new RawLegacyClient(buildDualEraServer());
      const response = await client.initialize({}, version);
      expect(resultOf(response).protocolVersion).toBe("2025-11-25");
    },
  );

  it("refuses malformed params (-32602) and a second initialize (-32600)", async () => {
    const client = new RawLegacyClient(buildDualEraServer());
    const bad = await client.request("initialize", { protocolVersion: "2025-11-25", capabilities: {} });
    expect(bad).toMatchObject({ error: { code: -32602, message: expect.stringContaining("clientInfo") } });
    await client.initialize();
    const again = await client.initialize();
    expect(again).toMatchObject({
      error: { code: -32600, message: expect.stringContaining("already initialized") },
    });
  });

  it("a session shows custom transports what the handshake established, and when the client is ready", async () => {
    const session = new Server("facts", { logger: silentLogger }).legacy?.openSession();
    const send = async () => {};
    expect([session?.facts, session?.clientReady]).toEqual([undefined, false]);
    // `notifications/initialized` before `initialize` changes nothing.
    session?.notification({ method: "notifications/initialized" });
    await session?.handle(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: { roots: {} }, clientInfo: CLIENT_INFO },
      },
      { send },
    );
    expect(session?.facts).toEqual({
      protocolVersion: "2025-06-18",
      clientCapabilities: { roots: {} },
      clientInfo: CLIENT_INFO,
      logLevel: undefined,
    });
    expect(session?.clientReady).toBe(false);
    session?.notification({ method: "notifications/initialized" });
    expect(session?.clientReady).toBe(true);
  });
});

describe("requests of a 2025 session", () => {
  it("answer ping with an empty result", async () => {
    const client = await initialized();
    expect(await client.request("ping")).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("carry no resultType, no cache hints and no serverInfo stamp", async () => {
    const client = await initialized();
    const list = (await client.request("tools/list")) as { result: Record<string, unknown> };
    expect(Object.keys(list.result)).toEqual(["tools"]);
    const read = await client.request("resources/read", { uri: "notes://static" });
    expect(read).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: { contents: [{ uri: "notes://static", mimeType: "text/plain", text: "static notes" }] },
    });
  });

  it("answers an unknown resource with the 2025 code -32002", async () => {
    const client = await initialized();
    const response = await client.request("resources/read", { uri: "nowhere://x" });
    expect(response).toMatchObject({ error: { code: -32002, data: { uri: "nowhere://x" } } });
  });

  it("has no server/discover or subscriptions/listen (2026-only methods)", async () => {
    const client = await initialized();
    for (const method of ["server/discover", "subscriptions/listen"]) {
      expect(await client.request(method, {})).toMatchObject({ error: { code: -32601 } });
    }
  });

  it("asks the client nothing before notifications/initialized: the call fails saying why", async () => {
    const client = new RawLegacyClient(buildDualEraServer());
    await client.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {} },
      clientInfo: CLIENT_INFO,
    });
    const early = await client.call("provision", { name: "orders" });
    expect(client.serverRequests).toEqual([]);
    // A resolver reports a back-channel that cannot ask as any other: an isError result naming it.
    expect(early).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: {
        content: [
          {
            type: "text",
            text:
              "Resolver 'ask_region' could not ask the client: Invalid Request: send " +
              "notifications/initialized before a request the server must ask you about",
          },
        ],
        isError: true,
      },
    });
    client.connection.notification({ method: "notifications/initialized" });
    expect(await client.call("provision", { name: "orders" })).toMatchObject({
      result: { content: [{ type: "text", text: "Provisioned orders in eu-west-1." }] },
    });
    expect(client.serverRequests.map((m) => m.method)).toEqual(["elicitation/create"]);
  });

  it("serves handlers at the negotiated version (ctx.protocolVersion)", async () => {
    const client = await initialized({}, "2025-06-18");
    expect(await client.call("era")).toMatchObject({ result: { content: [{ text: "2025-06-18" }] } });
  });

  it("sends progress for a legacy progressToken, and logs only after logging/setLevel", async () => {
    const client = await initialized();
    await client.request("tools/call", { name: "progress", _meta: { progressToken: "p1" } });
    expect(client.written.map((m) => m.method)).toEqual(["notifications/progress", "notifications/progress"]);
    expect(client.written[0]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p1", progress: 1, total: 2, message: "step 1" },
    });
    expect(await client.request("logging/setLevel", { level: "loud" })).toMatchObject({
      error: { code: -32602 },
    });
    expect(await client.request("logging/setLevel", { level: "info" })).toMatchObject({ result: {} });
    await client.call("progress");
    expect(client.written.at(-1)).toEqual({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: { done: true } },
    });
  });

  it("holds a handler's own ctx.notify to logging/setLevel, and never lets a request out through it", async () => {
    const server = buildDualEraServer();
    server.tool("t", {}, async (_args, { request: ctx }) => {
      for (const level of ["debug", "error", "loud"]) {
        await ctx.notify({ jsonrpc: "2.0", method: "notifications/message", params: { level, data: level } });
      }
      await ctx.notify({ jsonrpc: "2.0", id: 99, method: "roots/list" } as never);
      return "ok";
    });
    const client = await initialized({}, "2025-11-25", server);
    const logsOf = async () => {
      client.written.length = 0;
      await client.call("t");
      expect(client.written.filter((m) => "id" in m)).toEqual([]);
      return client.written.map((m) => (m.params as { level: string }).level);
    };
    expect(await logsOf()).toEqual([]);
    expect(await client.request("logging/setLevel", { level: "error" })).toMatchObject({ result: {} });
    expect(await logsOf()).toEqual(["error"]);
    expect(await client.request("logging/setLevel", { level: "debug" })).toMatchObject({ result: {} });
    expect(await logsOf()).toEqual(["debug", "error"]);
  });

  it("a custom method's result gains no discriminator on a 2025 session", async () => {
    const server = new Server("custom", { logger: silentLogger });
    server.setRequestHandler("x/echo", (_ctx, params) => ({ resultType: "complete", echoed: params.value }));
    const client = await initialized({}, "2025-11-25", server);
    expect(await client.request("x/echo", { value: 7 })).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { echoed: 7 },
    });
  });

  it.each([
    ["a result that is not an object", "just text"],
    ["an unknown resultType", { resultType: "task", content: [] }],
    ["a result of the wrong shape", { content: "not a list of blocks" }],
  ])("answer -32603 for %s, and log why", async (_label, returned) => {
    const logger = recordingLogger();
    const server = new Server("broken", { logger, onCallTool: () => returned as never });
    const client = await initialized({}, "2025-11-25", server);
    expect(await client.request("tools/call", { name: "t" })).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: INVALID_RESULT,
    });
    expect(logger.lines.join("\n")).toContain("handler returned an invalid result");
  });

  it("answer -32603 Internal error for a handler that throws, and log the failure, not send it", async () => {
    const logger = recordingLogger();
    const server = new Server("crashing", {
      logger,
      onCallTool: () => {
        throw new Error("db password=hunter2 rejected");
      },
    });
    const client = await initialized({}, "2025-11-25", server);
    expect(await client.request("tools/call", { name: "t" })).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32603, message: "Internal error" },
    });
    expect(logger.lines.join("\n")).toContain("tools/call: handler failed");
  });

  it("answer logging/setLevel with -32601 when the server declares no logging", async () => {
    const server = new Server("quiet", { onCallTool: () => ({ content: [] }) });
    const client = await initialized({}, "2025-11-25", server);
    expect(await client.request("logging/setLevel", { level: "info" })).toMatchObject({
      error: { code: -32601 },
    });
  });
});

describe("a hand-built InputRequiredResult on a 2025 session (the seed's era rule)", () => {
  it.each([
    ["tool", "tools/call", { name: "handbuilt", arguments: { name: "db" } }],
    ["prompt", "prompts/get", { name: "briefing" }],
    ["template", "resources/read", { uri: "reports://q1" }],
  ])("answers -32603 for a %s, and logs why", async (_kind, method, params) => {
    const logger = recordingLogger();
    const client = await initialized({ elicitation: {} }, "2025-11-25", buildDualEraServer({ logger }));
    const response = await client.request(method, params);
    expect(response).toEqual({ jsonrpc: "2.0", id: 2, error: INVALID_RESULT });
    expect(client.serverRequests).toEqual([]);
    expect(logger.lines.join("\n")).toContain("no input_required vocabulary");
  });

  it.each([
    ["onCallTool", "tools/call", { name: "provision" }],
    ["onGetPrompt", "prompts/get", { name: "briefing" }],
    ["onReadResource", "resources/read", { uri: "reports://q1" }],
  ])("answers -32603 for a low-level Server's %s too, and asks nothing", async (_hook, method, params) => {
    const asking = () => ({
      resultType: "input_required" as const,
      inputRequests: {
        region: {
          method: "elicitation/create" as const,
          params: { message: "Region?", requestedSchema: { type: "object" as const, properties: {} } },
        },
      },
    });
    const logger = recordingLogger();
    const server = new Server("lowlevel", {
      logger,
      onCallTool: asking,
      onGetPrompt: asking,
      onReadResource: asking,
    });
    const client = await initialized({ elicitation: {} }, "2025-11-25", server);
    expect(await client.request(method, params)).toEqual({ jsonrpc: "2.0", id: 2, error: INVALID_RESULT });
    expect(client.serverRequests).toEqual([]);
    expect(logger.lines.join("\n")).toContain("no input_required vocabulary");
  });

  it("the same handlers answer input_required on a modern request", async () => {
    const server = buildDualEraServer();
    const response = await server.dispatch({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "handbuilt",
        arguments: { name: "db" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
        },
      },
    });
    expect(response).toMatchObject({ result: { resultType: "input_required" } });
  });
});
