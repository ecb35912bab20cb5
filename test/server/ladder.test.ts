import { describe, expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import { errorOf, meta, recordingLogger, request, resultOf } from "../helpers.js";

const tool = { name: "echo", inputSchema: { type: "object" as const } };

function makeServer() {
  return new Server("ladder", {
    version: "1.2.3",
    logger: silentLogger,
    onListTools: () => ({ tools: [tool] }),
    onCallTool: (_ctx, params) => ({ content: [{ type: "text", text: String(params.arguments?.text) }] }),
  });
}

describe("the validation ladder", () => {
  it("answers a message that is not a JSON-RPC request with -32600 and a null id", async () => {
    const server = makeServer();
    for (const bad of [
      null,
      42,
      "x",
      [],
      {},
      { jsonrpc: "1.0", method: "tools/list" },
      { jsonrpc: "2.0", id: 1.5 },
    ]) {
      expect(await server.dispatch(bad)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid Request" },
      });
    }
  });

  it("keeps a valid id on an invalid request", async () => {
    const server = makeServer();
    for (const bad of [
      { jsonrpc: "2.0", id: 7, method: 3 },
      { jsonrpc: "1.0", id: 7, method: "tools/list" },
      { jsonrpc: "2.0", id: 7 },
    ]) {
      expect(await server.dispatch(bad)).toEqual({
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32600, message: "Invalid Request" },
      });
    }
  });

  it("rejects a request without params or _meta with -32602", async () => {
    const server = makeServer();
    const noParams = errorOf(await server.dispatch({ jsonrpc: "2.0", id: 1, method: "server/discover" }));
    expect(noParams).toEqual({ code: -32602, message: "Missing required params._meta envelope" });
    const noMeta = errorOf(
      await server.dispatch({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    );
    expect(noMeta.code).toBe(-32602);
  });

  it("names the missing envelope key", async () => {
    const server = makeServer();
    const withoutVersion = errorOf(
      await server.dispatch({
        jsonrpc: "2.0",
        id: 1,
        method: "server/discover",
        params: { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } },
      }),
    );
    expect(withoutVersion).toEqual({
      code: -32602,
      message: "Missing required _meta key io.modelcontextprotocol/protocolVersion",
    });
    const withoutCapabilities = errorOf(
      await server.dispatch({
        jsonrpc: "2.0",
        id: 2,
        method: "server/discover",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
      }),
    );
    expect(withoutCapabilities).toEqual({
      code: -32602,
      message: "Missing required _meta key io.modelcontextprotocol/clientCapabilities",
    });
  });

  it("accepts an envelope without clientInfo", async () => {
    const server = makeServer();
    const response = await server.dispatch({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
    expect(resultOf(response).tools).toEqual([tool]);
  });

  it.each([
    ["capabilities not an object", { "io.modelcontextprotocol/clientCapabilities": "all" }],
    ["clientInfo without version", { "io.modelcontextprotocol/clientInfo": { name: "x" } }],
    ["an unknown log level", { "io.modelcontextprotocol/logLevel": "verbose" }],
    ["a float progress token", { progressToken: 1.5 }],
    ["a numeric protocol version", { "io.modelcontextprotocol/protocolVersion": 20260728 }],
  ])("rejects an envelope with %s as -32602", async (_label, override) => {
    const response = await makeServer().dispatch({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: { ...meta(), ...override } },
    });
    expect(errorOf(response).code).toBe(-32602);
  });

  it("answers an unsupported version with -32022 naming supported and requested", async () => {
    const response = await makeServer().dispatch({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/list",
      params: { _meta: { ...meta(), "io.modelcontextprotocol/protocolVersion": "1900-01-01" } },
    });
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: 9,
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: ["2026-07-28"], requested: "1900-01-01" },
      },
    });
  });

  it("checks the version before the rest of the envelope", async () => {
    const response = await makeServer().dispatch({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2025-11-25" } },
    });
    expect(errorOf(response)).toMatchObject({ code: -32022, data: { requested: "2025-11-25" } });
  });

  it("answers unknown and removed methods with -32601", async () => {
    const server = makeServer();
    expect(errorOf(await server.dispatch(request("tools/frobnicate")))).toEqual({
      code: -32601,
      message: "Method not found: tools/frobnicate",
    });
    for (const removed of ["initialize", "ping", "logging/setLevel", "resources/subscribe"]) {
      const error = errorOf(await server.dispatch(request(removed)));
      expect(error.code).toBe(-32601);
      expect(error.message).toContain("not part of protocol revision 2026-07-28");
    }
  });

  it("answers a method whose handler is not registered with -32601", async () => {
    const error = errorOf(await makeServer().dispatch(request("prompts/list")));
    expect(error.code).toBe(-32601);
  });

  it("answers bad params with -32602 naming the field", async () => {
    const server = makeServer();
    const noName = errorOf(await server.dispatch(request("tools/call", { arguments: {} })));
    expect(noName.code).toBe(-32602);
    expect(noName.message).toMatch(/^Invalid params for tools\/call: name:/);
    const badArgs = errorOf(await server.dispatch(request("tools/call", { name: "echo", arguments: [1] })));
    expect(badArgs.code).toBe(-32602);
    const badState = errorOf(await server.dispatch(request("tools/call", { name: "echo", requestState: 5 })));
    expect(badState.code).toBe(-32602);
    const badResponses = errorOf(
      await server.dispatch(request("tools/call", { name: "echo", inputResponses: { region: "eu" } })),
    );
    expect(badResponses.code).toBe(-32602);
  });

  it("checks a custom method's params against the schema it was registered with, and passes on zod's output", async () => {
    const server = new Server("custom", { logger: silentLogger });
    const seen: unknown[] = [];
    server.setRequestHandler(
      "acme/lookup",
      (_ctx, params) => {
        seen.push(params);
        return { found: true };
      },
      z.object({ id: z.string().min(1), limit: z.number().int().default(10), _meta: z.unknown() }),
    );
    const ok = await server.dispatch(request("acme/lookup", { id: "c-8812" }));
    expect(resultOf(ok)).toMatchObject({ found: true, resultType: "complete" });
    expect(seen).toEqual([{ id: "c-8812", limit: 10, _meta: expect.any(Object) }]);
    const bad = errorOf(await server.dispatch(request("acme/lookup", { id: "", limit: 2.5 })));
    expect(bad).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid params for acme\/lookup: id: .+; limit: .+$/),
    });
    expect(seen).toHaveLength(1);
    // Without a schema, a custom method takes its params as they are.
    server.setRequestHandler("acme/free", (_ctx, params) => ({ echoed: params.anything }));
    expect(resultOf(await server.dispatch(request("acme/free", { anything: [1] })))).toMatchObject({
      echoed: [1],
    });
  });

  it("a core method keeps the spec's params check, whatever schema is given with it", async () => {
    const server = new Server("core", { logger: silentLogger });
    server.setRequestHandler("tools/call", () => ({ content: [] }), z.object({ never: z.string() }));
    const ok = await server.dispatch(request("tools/call", { name: "t" }));
    expect(resultOf(ok)).toMatchObject({ content: [] });
    expect(errorOf(await server.dispatch(request("tools/call", {}))).message).toMatch(
      /^Invalid params for tools\/call: name:/,
    );
  });

  it("serves a valid request", async () => {
    const response = await makeServer().dispatch(
      request("tools/call", { name: "echo", arguments: { text: "hi" } }, {}, "abc"),
    );
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: "abc",
      result: {
        content: [{ type: "text", text: "hi" }],
        resultType: "complete",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "ladder", version: "1.2.3" } },
      },
    });
  });
});

describe("handler failures", () => {
  it("turns an exception into -32603 with a safe message and logs the real one", async () => {
    const logger = recordingLogger();
    const server = new Server("boom", {
      logger,
      onCallTool: () => {
        throw new Error("database password is hunter2");
      },
    });
    const response = await server.dispatch(request("tools/call", { name: "x" }));
    expect(errorOf(response)).toEqual({ code: -32603, message: "Internal error" });
    expect(JSON.stringify(response)).not.toContain("hunter2");
    expect(logger.lines.join("\n")).toContain("tools/call: handler failed");
  });

  it("keeps an McpError's code, message and data", async () => {
    const { McpError } = await import("../../src/types/index.js");
    const server = new Server("picky", {
      logger: silentLogger,
      onCallTool: () => {
        throw new McpError(-32021, "need roots", { requiredCapabilities: { roots: {} } });
      },
    });
    expect(errorOf(await server.dispatch(request("tools/call", { name: "x" })))).toEqual({
      code: -32021,
      message: "need roots",
      data: { requiredCapabilities: { roots: {} } },
    });
  });

  it("maps the retired -32002 to -32602 and -32042 to -32603", async () => {
    const { McpError } = await import("../../src/types/index.js");
    const server = new Server("legacy-codes", {
      logger: silentLogger,
      onReadResource: () => {
        throw new McpError(-32002, "Resource not found", { uri: "x://1" });
      },
      onCallTool: () => {
        throw new McpError(-32042, "URL elicitation required");
      },
    });
    expect(errorOf(await server.dispatch(request("resources/read", { uri: "x://1" })))).toEqual({
      code: -32602,
      message: "Resource not found",
      data: { uri: "x://1" },
    });
    expect(errorOf(await server.dispatch(request("tools/call", { name: "x" }))).code).toBe(-32603);
  });

  it.each([
    [-32020, -32020],
    [-32021, -32021],
    [-32022, -32022],
    [-32023, -32603],
    [-32050, -32603],
    [-32099, -32603],
    [-32019, -32019],
    [-32100, -32100],
    [-32001, -32001],
    [42, 42],
  ])(
    "a handler's %i goes out as %i (the spec's reserved range carries only its defined codes)",
    async (thrown, sent) => {
      const { McpError } = await import("../../src/types/index.js");
      const logger = recordingLogger();
      const server = new Server("codes", {
        logger,
        onCallTool: () => {
          throw new McpError(thrown, "quota exceeded", { left: 0 });
        },
      });
      const error = errorOf(await server.dispatch(request("tools/call", { name: "x" })));
      expect(error).toEqual({ code: sent, message: "quota exceeded", data: { left: 0 } });
      expect(logger.lines.some((line) => line.includes("is reserved; sent as -32603"))).toBe(sent !== thrown);
    },
  );
});

describe("the HTTP status each error travels with", () => {
  it("is 400 for envelope errors and -32022, 404 for -32601, 200 for in-band errors", async () => {
    const { httpStatusOf } = await import("../../src/shared/dispatch.js");
    const server = makeServer();
    const status = async (message: unknown) => {
      const response = await server.dispatch(message);
      if (!response) throw new Error("no response");
      return httpStatusOf(response);
    };
    expect(await status({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toBe(400);
    expect(
      await status({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: { ...meta(), "io.modelcontextprotocol/protocolVersion": "1.0" } },
      }),
    ).toBe(400);
    expect(await status({ jsonrpc: "2.0", id: 1 })).toBe(400);
    expect(await status(request("nope/nope"))).toBe(404);
    expect(await status(request("tools/call", { arguments: {} }))).toBe(200);
    expect(await status(request("tools/call", { name: "echo" }))).toBe(200);
  });

  it("never serializes the status", async () => {
    const response = await makeServer().dispatch({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(JSON.parse(JSON.stringify(response))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Missing required params._meta envelope" },
    });
  });
});
