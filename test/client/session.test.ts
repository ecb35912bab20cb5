import { describe, expect, it } from "vitest";
import { InputRequiredError } from "../../src/client/errors.js";
import { ClientSession } from "../../src/client/session.js";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import { ProtocolError, RequestAbortedError } from "../../src/shared/errors.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import {
  isInputRequiredResult,
  type JSONRPCResponse,
  McpError,
  type ResultObject,
} from "../../src/types/index.js";
import { wireTap } from "../helpers.js";
import { DISCOVERED } from "./stubs.js";

/** A server whose every carrier answers what `answer` returns, recording the params it saw. */
function stubServer(answer: (method: string, params: Record<string, unknown>) => unknown) {
  const seen: { method: string; params: Record<string, unknown> }[] = [];
  const handle = (method: string) => (_ctx: unknown, params: Record<string, unknown>) => {
    seen.push({ method, params });
    return answer(method, params) as never;
  };
  const server = new Server("stub", {
    version: "9",
    logger: silentLogger,
    onListTools: handle("tools/list"),
    onCallTool: handle("tools/call"),
    onListPrompts: handle("prompts/list"),
    onGetPrompt: handle("prompts/get"),
    onListResources: handle("resources/list"),
    onListResourceTemplates: handle("resources/templates/list"),
    onReadResource: handle("resources/read"),
    onComplete: handle("completion/complete"),
  });
  return { server, seen };
}

async function connect(server: Server, tap = wireTap(), options = {}) {
  const session = await ClientSession.connect(new MemoryTransport(server, { onWire: tap.onWire }), options);
  return { session, tap };
}

const ASK = {
  resultType: "input_required",
  inputRequests: {
    region: {
      method: "elicitation/create",
      params: {
        message: "Region?",
        requestedSchema: { type: "object", properties: { region: { type: "string" } } },
      },
    },
  },
  requestState: "state-1",
};

describe("ClientSession envelope", () => {
  it("puts the full _meta envelope on every request", async () => {
    const { server } = stubServer(() => ({ tools: [] }));
    const { session, tap } = await connect(server, wireTap(), {
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: "probe", version: "3.1" },
    });
    await session.listTools();
    expect(tap.sent()).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
            "io.modelcontextprotocol/clientInfo": { name: "probe", version: "3.1" },
          },
        },
      },
    ]);
  });

  it("adds logLevel, a progress token and extra meta keys, but never lets them override the envelope", async () => {
    const { server } = stubServer(() => ({ content: [] }));
    const { session, tap } = await connect(server, wireTap(), { logLevel: "info" });
    await session.callTool(
      "t",
      {},
      {
        onProgress: () => {},
        meta: { traceparent: "00-abc-def-01", "io.modelcontextprotocol/protocolVersion": "1999-01-01" },
      },
    );
    const sentMeta = (tap.sent()[0]?.params as Record<string, Record<string, unknown>> | undefined)?._meta;
    expect(sentMeta).toMatchObject({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/logLevel": "info",
      traceparent: "00-abc-def-01",
    });
    expect(typeof sentMeta?.progressToken).toBe("string");
  });

  it("rebuilds the shared envelope when the log level or the capabilities change", async () => {
    const { server } = stubServer(() => ({ tools: [] }));
    const { session, tap } = await connect(server);
    await session.listTools();
    session.logLevel = "debug";
    await session.listTools();
    session.capabilities = { roots: {} };
    await session.listTools();
    const metas = tap.sent().map((message) => (message.params as Record<string, unknown>)._meta);
    const common = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "roundtrip-client", version: "0.1.0" },
    };
    expect(metas).toEqual([
      { ...common, "io.modelcontextprotocol/clientCapabilities": {} },
      {
        ...common,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/logLevel": "debug",
      },
      {
        ...common,
        "io.modelcontextprotocol/clientCapabilities": { roots: {} },
        "io.modelcontextprotocol/logLevel": "debug",
      },
    ]);
  });

  it("learns serverInfo from the result stamp", async () => {
    const { server } = stubServer(() => ({ tools: [] }));
    const { session } = await connect(server);
    expect(session.serverInfo).toBeUndefined();
    await session.listTools();
    expect(session.serverInfo).toEqual({ name: "stub", version: "9" });
  });
});

describe("ClientSession typed calls", () => {
  it("discovers", async () => {
    const { server } = stubServer(() => ({}));
    const { session } = await connect(server);
    const discovered = await session.discover();
    expect(discovered.supportedVersions).toEqual(["2026-07-28"]);
    expect(discovered.capabilities).toEqual({ tools: {}, prompts: {}, resources: {}, completions: {} });
  });

  it("sends each method with its params", async () => {
    const { server, seen } = stubServer((method) => {
      switch (method) {
        case "tools/list":
          return { tools: [] };
        case "prompts/list":
          return { prompts: [] };
        case "resources/list":
          return { resources: [] };
        case "resources/templates/list":
          return { resourceTemplates: [] };
        case "prompts/get":
          return { messages: [] };
        case "resources/read":
          return { contents: [] };
        case "completion/complete":
          return { completion: { values: ["x"] } };
        default:
          return { content: [] };
      }
    });
    const { session } = await connect(server);
    await session.listTools("c1");
    await session.listPrompts();
    await session.listResources();
    await session.listResourceTemplates();
    await session.callTool("tool", { a: 1 });
    await session.getPrompt("prompt", { who: "me" });
    await session.readResource("x://1");
    const completion = await session.complete({
      ref: { type: "ref/prompt", name: "prompt" },
      argument: { name: "who", value: "m" },
    });
    expect(completion.completion.values).toEqual(["x"]);
    expect(seen.map(({ method, params }) => ({ method, params: { ...params, _meta: undefined } }))).toEqual([
      { method: "tools/list", params: { cursor: "c1", _meta: undefined } },
      { method: "prompts/list", params: { _meta: undefined } },
      { method: "resources/list", params: { _meta: undefined } },
      { method: "resources/templates/list", params: { _meta: undefined } },
      { method: "tools/call", params: { name: "tool", arguments: { a: 1 }, _meta: undefined } },
      { method: "prompts/get", params: { name: "prompt", arguments: { who: "me" }, _meta: undefined } },
      { method: "resources/read", params: { uri: "x://1", _meta: undefined } },
      {
        method: "completion/complete",
        params: {
          ref: { type: "ref/prompt", name: "prompt" },
          argument: { name: "who", value: "m" },
          _meta: undefined,
        },
      },
    ]);
  });

  it("raises the server's error as an McpError", async () => {
    const { session } = await connect(new Server("empty", { logger: silentLogger }));
    const error = await session.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32601);
  });
});

const ELICITING = { capabilities: { elicitation: {} } };

describe("ClientSession aborts", () => {
  it("an already aborted signal sends nothing and keeps the caller's reason as the cause", async () => {
    const { server } = stubServer(() => ({ tools: [] }));
    const { session, tap } = await connect(server);
    const error = await session
      .listTools(undefined, { signal: AbortSignal.abort("no longer needed") })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).toMatchObject({ message: "Request tools/list was aborted", cause: "no longer needed" });
    expect(tap.sent().filter((m) => m.method === "tools/list")).toEqual([]);
  });
});

describe("ClientSession manual loop", () => {
  it.each([
    ["callTool", (s: ClientSession) => s.callTool("t", {})],
    ["getPrompt", (s: ClientSession) => s.getPrompt("p")],
    ["readResource", (s: ClientSession) => s.readResource("x://1")],
  ])("%s throws InputRequiredError without the opt-in, carrying the result", async (_name, call) => {
    const { server } = stubServer(() => ASK);
    const { session } = await connect(server, wireTap(), ELICITING);
    const error = (await call(session).catch((e: unknown) => e)) as InputRequiredError;
    expect(error).toBeInstanceOf(InputRequiredError);
    expect(error.message).toContain("allowInputRequired: true");
    expect(error.result).toMatchObject(ASK);
  });

  it.each([
    ["callTool", (s: ClientSession) => s.callTool("t", {}, { allowInputRequired: true })],
    ["getPrompt", (s: ClientSession) => s.getPrompt("p", undefined, { allowInputRequired: true })],
    ["readResource", (s: ClientSession) => s.readResource("x://1", { allowInputRequired: true })],
  ])("%s returns the InputRequiredResult with the opt-in", async (_name, call) => {
    const { server } = stubServer(() => ASK);
    const { session } = await connect(server, wireTap(), ELICITING);
    expect(await call(session)).toMatchObject(ASK);
  });

  it("threads inputResponses and a byte-exact requestState into the retry, with a new id", async () => {
    const state = '  opaque\u2028state with spaces, quotes " and unicode é  ';
    const { server, seen } = stubServer((_m, params) =>
      params.requestState ? { content: [] } : { ...ASK, requestState: state },
    );
    const { session, tap } = await connect(server, wireTap(), ELICITING);
    const first = await session.callTool("t", { x: 1 }, { allowInputRequired: true });
    if (!isInputRequiredResult(first)) throw new Error("expected input_required");
    const responses = { region: { action: "accept" as const, content: { region: "eu-west-1" } } };
    await session.callTool(
      "t",
      { x: 1 },
      { allowInputRequired: true, inputResponses: responses, requestState: first.requestState },
    );
    expect(first.requestState).toBe(state);
    expect(seen[1]?.params.requestState).toBe(state);
    expect(seen[1]?.params.inputResponses).toEqual(responses);
    const ids = tap.sent().map((m) => m.id);
    expect(ids[0]).not.toEqual(ids[1]);
    expect((tap.sent()[1]?.params as Record<string, unknown> | undefined)?.requestState).toBe(state);
  });

  it("omits requestState and inputResponses when not given", async () => {
    const { server } = stubServer(() => ({ content: [] }));
    const { session, tap } = await connect(server, wireTap(), ELICITING);
    await session.callTool("t");
    expect(Object.keys(tap.sent()[0]?.params as object).sort()).toEqual(["_meta", "name"]);
  });
});

describe("ClientSession result checks (hand-written server stubs)", () => {
  /** A transport stub that answers every request with the given result, bypassing our server. */
  function rawServer(result: ResultObject) {
    return {
      dispatch: async (message: unknown) => ({
        jsonrpc: "2.0" as const,
        id: (message as { id: number }).id,
        result,
      }),
    };
  }

  it("reads a missing resultType as complete", async () => {
    const session = await ClientSession.connect(
      new MemoryTransport(rawServer({ content: [{ type: "text", text: "ok" }] })),
    );
    expect(await session.callTool("t")).toEqual({ content: [{ type: "text", text: "ok" }] });
  });

  it("rejects an unknown resultType", async () => {
    const session = await ClientSession.connect(
      new MemoryTransport(rawServer({ resultType: "mystery", content: [] })),
    );
    const error = await session.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain('unknown resultType "mystery"');
  });

  it("rejects input_required on a method that cannot carry it", async () => {
    const session = await ClientSession.connect(
      new MemoryTransport(rawServer({ resultType: "input_required", requestState: "s" })),
    );
    await expect(session.listTools()).rejects.toBeInstanceOf(ProtocolError);
  });

  it("rejects a malformed InputRequiredResult", async () => {
    const session = await ClientSession.connect(
      new MemoryTransport(rawServer({ resultType: "input_required" })),
    );
    await expect(session.callTool("t", {}, { allowInputRequired: true })).rejects.toThrow(
      /malformed InputRequiredResult/,
    );
  });

  it("rejects an InputRequiredResult asking under the key __proto__, which no answer can carry", async () => {
    const elicit = {
      method: "elicitation/create",
      params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: {} } },
    };
    for (const request of [elicit, { method: "evil/run", params: {} }]) {
      const result = JSON.parse(
        `{"resultType":"input_required","inputRequests":{"__proto__":${JSON.stringify(request)}},"requestState":"s"}`,
      ) as ResultObject;
      const session = await ClientSession.connect(new MemoryTransport(rawServer(result)));
      await expect(session.callTool("t", {}, { allowInputRequired: true })).rejects.toThrow(
        new ProtocolError(
          'The server sent a malformed InputRequiredResult for tools/call (inputRequests: the key "__proto__" cannot be answered)',
        ),
      );
    }
  });

  it("rejects a malformed complete result", async () => {
    const session = await ClientSession.connect(
      new MemoryTransport(rawServer({ resultType: "complete", tools: "nope" })),
    );
    await expect(session.listTools()).rejects.toThrow(
      "The server sent a malformed tools/list result (tools: expected an array)",
    );
  });
});

describe("MemoryTransport hand-over", () => {
  const when = new Date("2026-07-28T00:00:00.000Z");
  const content = [{ type: "text", text: "ok", annotations: undefined }];
  const answer = () => ({ content, structuredContent: { when } });

  it("hands the objects over by default (no JSON round trip)", async () => {
    const { server } = stubServer(answer);
    const session = await ClientSession.connect(new MemoryTransport(server));
    const result = (await session.callTool("t", {})) as ResultObject;
    expect(result.content).toBe(content);
    expect((result.structuredContent as { when: unknown }).when).toBe(when);
  });

  it("crosses as JSON with serialize: true, exactly as a real wire would carry it", async () => {
    const { server } = stubServer(answer);
    const session = await ClientSession.connect(new MemoryTransport(server, { serialize: true }));
    const result = (await session.callTool("t", {})) as ResultObject;
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
    expect(result.content).not.toBe(content);
    expect(Object.hasOwn((result.content as object[])[0] as object, "annotations")).toBe(false);
    expect(result.structuredContent).toEqual({ when: "2026-07-28T00:00:00.000Z" });
  });

  it("builds a request's signal on first read: already aborted when read after the cancel", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: boolean[] = [];
    const server = new Server("lazy", {
      logger: silentLogger,
      onCallTool: async (ctx) => {
        await gate;
        seen.push(ctx.signal.aborted);
        return { content: [] };
      },
    });
    const session = await ClientSession.connect(new MemoryTransport(server));
    const controller = new AbortController();
    const call = session.callTool("t", {}, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(call).rejects.toThrow(/aborted/);
    release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen).toEqual([true]);
  });

  it("crosses as JSON whenever an onWire tap is set", async () => {
    const { server } = stubServer(answer);
    const { session, tap } = await connect(server);
    const result = (await session.callTool("t", {})) as ResultObject;
    expect(result.structuredContent).toEqual({ when: "2026-07-28T00:00:00.000Z" });
    expect(tap.messages.length).toBeGreaterThan(0);
  });
});

describe("ClientSession and malformed responses", () => {
  /** A peer that answers discovery properly and `tools/list` with `answer` (its id filled in). */
  function rawPeer(answer: Record<string, unknown>): Dispatcher {
    return {
      dispatch: async (message: unknown): Promise<JSONRPCResponse | undefined> => {
        const { id, method } = message as { id?: number; method: string };
        if (id === undefined) return undefined;
        if (method === "server/discover") return { jsonrpc: "2.0", id, result: DISCOVERED } as never;
        return { jsonrpc: "2.0", id, ...answer } as never;
      },
    };
  }

  async function failureOf(answer: Record<string, unknown>): Promise<unknown> {
    const session = await ClientSession.connect(new MemoryTransport(rawPeer(answer), { serialize: true }));
    return session.listTools().catch((caught: unknown) => caught);
  }

  it("keeps a well-formed error's code, message and data", async () => {
    const error = await failureOf({ error: { code: -32000, message: "busy", data: { retryInMs: 5 } } });
    expect(error).toBeInstanceOf(McpError);
    const { code, message, data } = error as McpError;
    expect([code, message, data]).toEqual([-32000, "busy", { retryInMs: 5 }]);
  });

  // A local verdict on what the peer sent: a ProtocolError with no code, never an McpError that
  // reads as the server's own -32603 (spec: local errors must not be confusable with the peer's).
  it.each([
    ["no code", { message: "x" }],
    ["a string code", { code: "-32000", message: "x" }],
    ["a fractional code", { code: -32000.5, message: "x" }],
    ["no message", { code: -32000 }],
    ["a number as message", { code: -32000, message: 7 }],
    ["an array", []],
    ["an empty object", {}],
  ])("turns an error object with %s into a ProtocolError 'Malformed response'", async (_label, bad) => {
    const error = await failureOf({ error: bad });
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).not.toHaveProperty("code");
    expect((error as Error).message).toBe("Malformed response: not a JSON-RPC error object");
  });

  it.each([
    ["no result", {}],
    ["a string result", { result: "ok" }],
    ["an array result", { result: [] }],
    ["a null result", { result: null }],
    ["a null error and no result", { error: null }],
  ])("answers %s with a ProtocolError 'Malformed response: no result object'", async (_label, answer) => {
    const error = await failureOf(answer);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).not.toHaveProperty("code");
    expect((error as Error).message).toBe("Malformed response: no result object");
  });
});
