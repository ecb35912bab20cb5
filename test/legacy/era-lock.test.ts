/**
 * stdio (and any message pipe) locks its era on the first exchange: the envelope locks it modern,
 * `initialize` locks it legacy, and the other era's opening is refused afterwards. Checked on the
 * connection and through a real child process.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { openDualEraConnection } from "../../src/server/legacy/connection.js";
import { silentLogger } from "../../src/server/logger.js";
import { MCPServer } from "../../src/server/mcp/mcp-server.js";
import { elicit, resolver } from "../../src/server/mcp/resolvers/index.js";
import { Server } from "../../src/server/server.js";
import { buildDualEraServer, REGION } from "../fixtures/legacy/dual-era.js";
import { CLIENT_INFO, envelope, RawLegacyClient } from "./helpers.js";
import { DUAL_ERA, killSpawned, RawChild } from "./stdio-helpers.js";

afterEach(killSpawned);

const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT_INFO };
const ENVELOPE_ON_LEGACY =
  "Invalid Request: this connection negotiated protocol revision 2025-11-25 with initialize; " +
  "requests carrying the 2026-07-28 _meta envelope are not accepted on it";

describe("the era lock of one connection", () => {
  it("an envelope locks it modern: a later initialize gets -32022 with the supported list", async () => {
    const client = new RawLegacyClient(buildDualEraServer());
    const discover = await client.request("server/discover", { _meta: envelope() });
    expect(discover).toMatchObject({ result: { supportedVersions: ["2026-07-28"] } });
    expect(client.connection.era).toBe("modern");
    expect(await client.request("initialize", INITIALIZE)).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: ["2026-07-28"], requested: "2025-11-25" },
      },
    });
    expect(await client.request("tools/list", { _meta: envelope() })).toMatchObject({
      result: { resultType: "complete" },
    });
  });

  it("an envelope at a version not served still locks it modern (-32022 both times)", async () => {
    const client = new RawLegacyClient(buildDualEraServer());
    const future = { _meta: { ...envelope(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" } };
    expect(await client.request("tools/list", future)).toMatchObject({
      error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2099-01-01" } },
    });
    expect(client.connection.era).toBe("modern");
    expect(await client.request("initialize", INITIALIZE)).toMatchObject({ error: { code: -32022 } });
  });

  it("initialize locks it legacy: a later envelope request is refused with -32600", async () => {
    const client = new RawLegacyClient(buildDualEraServer());
    await client.initialize();
    expect(await client.request("tools/list", { _meta: envelope() })).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32600, message: ENVELOPE_ON_LEGACY },
    });
    expect(await client.request("tools/list")).toMatchObject({ result: { tools: expect.any(Array) } });
  });

  it("an envelope-less request on an open connection gets the modern answer and locks nothing", async () => {
    const client = new RawLegacyClient(buildDualEraServer());
    expect(await client.request("tools/list")).toMatchObject({
      error: { code: -32602, message: "Missing required params._meta envelope" },
    });
    expect(client.connection.era).toBe("open");
    expect(client.connection.session).toBeUndefined();
    await client.initialize({}, "2025-06-18");
    expect(client.connection.era).toBe("legacy");
    // Its one 2025 session, for a transport that needs what the handshake established.
    expect(client.connection.session?.protocolVersion).toBe("2025-06-18");
  });

  it("notifications and responses before the lock are ignored", async () => {
    const client = new RawLegacyClient(buildDualEraServer());
    client.connection.notification({ method: "notifications/initialized" });
    expect(client.connection.response({ jsonrpc: "2.0", id: 1, result: {} })).toBe(false);
    expect(client.connection.era).toBe("open");
  });

  it("a question asked after the client's input ended fails at once, unsent: nothing could answer it", async () => {
    let ready: () => void = () => {};
    const computed = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const mcp = new MCPServer("late-question", {
      logger: silentLogger,
      legacy: { requestTimeoutMs: 200 },
    });
    const late = resolver("late", async () => {
      await computed;
      return elicit("Which region?", REGION);
    });
    mcp.tool(
      "late",
      { input: z.object({}), resolve: { region: late } },
      (_args, { region }) => region.region,
    );
    const client = new RawLegacyClient(mcp, () => new Promise<never>(() => {}));
    await client.initialize({ elicitation: {} });
    const call = client.call("late");
    client.connection.inputEnded();
    ready();
    expect(await call).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: {
        content: [
          { type: "text", text: "Resolver 'late' could not ask the client: the client's input ended" },
        ],
        isError: true,
      },
    });
    expect(client.serverRequests).toEqual([]);
  });

  it("a server built with legacy: false, or a plain dispatcher, has no legacy face", async () => {
    const modernOnly = new Server("m", { legacy: false });
    expect(openDualEraConnection(modernOnly, async () => {})).toBeUndefined();
    expect(openDualEraConnection({ dispatch: async () => undefined }, async () => {})).toBeUndefined();
    const response = await modernOnly.dispatch({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: INITIALIZE,
    });
    // A 2025 client cannot fall forward: the refusal names the versions served (the spec's SHOULD).
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: ["2026-07-28"], requested: INITIALIZE.protocolVersion },
      },
    });
  });
});

describe("over stdio, a real child process", () => {
  it("serves a 2025 client: initialize, then elicitation/create on the pipe, answered on stdin", async () => {
    const server = new RawChild(DUAL_ERA);
    server.write({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { ...INITIALIZE, capabilities: { elicitation: {} } },
    });
    expect(await server.response(1)).toMatchObject({
      result: { protocolVersion: "2025-11-25", serverInfo: { name: "dual-era" } },
    });
    server.write({ jsonrpc: "2.0", method: "notifications/initialized" });
    server.write({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "provision", arguments: { name: "db" } },
    });
    const ask = await server.next((m) => m.method === "elicitation/create", "the elicitation");
    expect(ask).toMatchObject({ jsonrpc: "2.0", id: 1, params: { message: "Which region?" } });
    server.write({
      jsonrpc: "2.0",
      id: ask.id,
      result: { action: "accept", content: { region: "eu-central-1" } },
    });
    expect(await server.response(2)).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "Provisioned db in eu-central-1." }] },
    });
    server.write({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: envelope() } });
    expect(await server.response(3)).toMatchObject({ error: { code: -32600, message: ENVELOPE_ON_LEGACY } });
    server.end();
  });

  it("locks modern on the first envelope request, then refuses initialize with -32022", async () => {
    const server = new RawChild(DUAL_ERA);
    server.write({ jsonrpc: "2.0", id: "p", method: "server/discover", params: { _meta: envelope() } });
    expect(await server.response("p")).toMatchObject({ result: { supportedVersions: ["2026-07-28"] } });
    server.write({ jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE });
    expect(await server.response(1)).toMatchObject({
      error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2025-11-25" } },
    });
    server.end();
  });

  it("EOF fails questions still waiting for an answer; the request still gets its response", async () => {
    const server = new RawChild(DUAL_ERA);
    server.write({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { ...INITIALIZE, capabilities: { elicitation: {} } },
    });
    await server.response(1);
    server.write({ jsonrpc: "2.0", method: "notifications/initialized" });
    server.write({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "provision", arguments: { name: "db" } },
    });
    await server.next((m) => m.method === "elicitation/create", "the elicitation");
    server.end();
    expect(await server.response(2)).toMatchObject({
      result: { isError: true, content: [{ text: expect.stringContaining("could not ask the client") }] },
    });
  });
});
