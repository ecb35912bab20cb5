import { describe, expect, it } from "vitest";
import type { Middleware } from "../../src/server/context.js";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import type { ClientCapabilities, InputRequest } from "../../src/types/index.js";
import { errorOf, recordingLogger, request, resultOf } from "../helpers.js";

const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "stamps", version: "2.0.0" } };

const ELICIT_FORM: InputRequest = {
  method: "elicitation/create",
  params: {
    message: "Region?",
    requestedSchema: { type: "object", properties: { region: { type: "string" } } },
  },
};
const ELICIT_URL: InputRequest = {
  method: "elicitation/create",
  params: { mode: "url", message: "Sign in", url: "https://example.com/login" },
};
const SAMPLE: InputRequest = {
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 },
};
const SAMPLE_WITH_TOOLS: InputRequest = {
  method: "sampling/createMessage",
  params: { ...SAMPLE.params, tools: [{ name: "t", inputSchema: { type: "object" } }] } as never,
};
const SAMPLE_TOOL_CHOICE: InputRequest = {
  method: "sampling/createMessage",
  params: { ...SAMPLE.params, toolChoice: { mode: "auto" } } as never,
};
const ROOTS: InputRequest = { method: "roots/list", params: {} };

function serverAnswering(result: unknown, logger = silentLogger) {
  const handler = () => result as never;
  return new Server("stamps", {
    version: "2.0.0",
    logger,
    onListTools: handler,
    onCallTool: handler,
    onListPrompts: handler,
    onGetPrompt: handler,
    onListResources: handler,
    onListResourceTemplates: handler,
    onReadResource: handler,
    onComplete: handler,
  });
}

describe("resultType and serverInfo stamping", () => {
  it("stamps resultType complete and serverInfo when the handler omits them", async () => {
    const server = serverAnswering({ content: [] });
    expect(resultOf(await server.dispatch(request("tools/call", { name: "x" })))).toEqual({
      content: [],
      resultType: "complete",
      _meta: SERVER_INFO,
    });
  });

  it("keeps the handler's own _meta keys next to the stamp", async () => {
    const server = serverAnswering({ content: [], _meta: { "com.example/trace": "t1" } });
    expect(resultOf(await server.dispatch(request("tools/call", { name: "x" })))._meta).toEqual({
      "com.example/trace": "t1",
      ...SERVER_INFO,
    });
  });

  it("never mutates the handler's result object", async () => {
    const original = { content: [] };
    const server = serverAnswering(original);
    await server.dispatch(request("tools/call", { name: "x" }));
    expect(original).toEqual({ content: [] });
  });

  it("stamps completion/complete (not cacheable) without cache hints", async () => {
    const server = serverAnswering({ completion: { values: ["a"] } });
    const result = resultOf(
      await server.dispatch(
        request("completion/complete", {
          ref: { type: "ref/prompt", name: "p" },
          argument: { name: "a", value: "" },
        }),
      ),
    );
    expect(result).toEqual({ completion: { values: ["a"] }, resultType: "complete", _meta: SERVER_INFO });
  });

  it("answers an unknown resultType with -32603", async () => {
    const server = serverAnswering({ content: [], resultType: "task" });
    expect(errorOf(await server.dispatch(request("tools/call", { name: "x" })))).toEqual({
      code: -32603,
      message: "Handler returned an invalid result",
    });
  });

  it.each([
    ["not an object", "just a string"],
    ["an array", [1]],
    ["a tool result without content", { structuredContent: 1 }],
  ])("answers a handler result that is %s with -32603 and logs why", async (_label, result) => {
    const logger = recordingLogger();
    const server = serverAnswering(result, logger);
    expect(errorOf(await server.dispatch(request("tools/call", { name: "x" })))).toEqual({
      code: -32603,
      message: "Handler returned an invalid result",
    });
    expect(
      logger.lines.some((l) => l.startsWith("error: tools/call: handler returned an invalid result")),
    ).toBe(true);
  });
});

describe("cache hints", () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ["tools/list", {}, { tools: [] }],
    ["prompts/list", {}, { prompts: [] }],
    ["resources/list", {}, { resources: [] }],
    ["resources/templates/list", {}, { resourceTemplates: [] }],
    ["resources/read", { uri: "x://1" }, { contents: [] }],
  ];

  it.each(cases)(
    "puts ttlMs 0 / private on %s when the handler gives none",
    async (method, params, result) => {
      const out = resultOf(await serverAnswering(result).dispatch(request(method, params)));
      expect(out).toMatchObject({ ttlMs: 0, cacheScope: "private", resultType: "complete" });
    },
  );

  it("puts them on server/discover too", async () => {
    const out = resultOf(await serverAnswering({}).dispatch(request("server/discover")));
    expect(out).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });

  it("keeps the handler's own hints", async () => {
    const out = resultOf(
      await serverAnswering({ tools: [], ttlMs: 60_000, cacheScope: "public" }).dispatch(
        request("tools/list"),
      ),
    );
    expect(out).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
  });

  it("uses configured per-method defaults", async () => {
    const server = new Server("cfg", {
      logger: silentLogger,
      onListTools: () => ({ tools: [] }),
      cacheHints: { "tools/list": { ttlMs: 5000, cacheScope: "public" } },
    });
    expect(resultOf(await server.dispatch(request("tools/list")))).toMatchObject({
      ttlMs: 5000,
      cacheScope: "public",
    });
  });

  it.each([
    ["tools/list", { ttlMs: -1, cacheScope: "public" }],
    ["tools/list", { ttlMs: 1.5, cacheScope: "public" }],
    ["prompts/list", { ttlMs: 10, cacheScope: "shared" }],
    ["tools/call", { ttlMs: 10, cacheScope: "public" }],
  ])("refuses a wrong cacheHints entry at construction (%s %j)", (method, hint) => {
    const build = () =>
      new Server("cfg", {
        logger: silentLogger,
        cacheHints: { [method]: hint } as never,
        onListTools: () => ({ tools: [] }),
      });
    expect(build).toThrow(
      new TypeError(
        `cacheHints["${method}"] must be { ttlMs: integer >= 0, cacheScope: public | private } on a cacheable method`,
      ),
    );
  });

  it("never puts hints on input_required, even when the handler does", async () => {
    const server = serverAnswering({
      resultType: "input_required",
      requestState: "s",
      ttlMs: 10,
      cacheScope: "public",
    });
    const out = resultOf(await server.dispatch(request("resources/read", { uri: "x://1" })));
    expect(out).toEqual({ resultType: "input_required", requestState: "s", _meta: SERVER_INFO });
  });
});

describe("server/discover", () => {
  it("is registered automatically and advertises only what is registered", async () => {
    const toolsOnly = new Server("t", {
      version: "1",
      logger: silentLogger,
      onCallTool: () => ({ content: [] }),
    });
    expect(resultOf(await toolsOnly.dispatch(request("server/discover")))).toEqual({
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "t", version: "1" } },
    });
  });

  it("derives every capability and merges configured extras and instructions", async () => {
    const server = serverAnswering({});
    const everything = new Server("all", {
      logger: silentLogger,
      instructions: "Be nice.",
      capabilities: { logging: {}, tools: { listChanged: true } },
      onListTools: () => ({ tools: [] }),
      onListPrompts: () => ({ prompts: [] }),
      onListResourceTemplates: () => ({ resourceTemplates: [] }),
      onComplete: () => ({ completion: { values: [] } }),
    });
    expect(server.capabilities).toEqual({ tools: {}, prompts: {}, resources: {}, completions: {} });
    expect(resultOf(await everything.dispatch(request("server/discover")))).toMatchObject({
      capabilities: {
        tools: { listChanged: true },
        prompts: {},
        resources: {},
        completions: {},
        logging: {},
      },
      instructions: "Be nice.",
    });
  });

  it("stamps an empty version when the server has none", async () => {
    const server = new Server("unversioned", { logger: silentLogger });
    expect(resultOf(await server.dispatch(request("server/discover")))._meta).toEqual({
      "io.modelcontextprotocol/serverInfo": { name: "unversioned", version: "" },
    });
  });
});

describe("input_required rules", () => {
  const everything: ClientCapabilities = {
    elicitation: { form: {}, url: {} },
    sampling: { tools: {}, context: {} },
    roots: {},
  };

  it.each([
    ["tools/call", { name: "x" }],
    ["prompts/get", { name: "x" }],
    ["resources/read", { uri: "x://1" }],
  ])("is accepted from %s", async (method, params) => {
    const server = serverAnswering({ resultType: "input_required", inputRequests: { region: ELICIT_FORM } });
    expect(resultOf(await server.dispatch(request(method, params, everything)))).toEqual({
      resultType: "input_required",
      inputRequests: { region: ELICIT_FORM },
      _meta: SERVER_INFO,
    });
  });

  it.each([
    ["tools/list", {}],
    ["prompts/list", {}],
    ["resources/list", {}],
    ["resources/templates/list", {}],
    ["server/discover", {}],
    ["completion/complete", { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } }],
  ])("is refused from %s with -32603", async (method, params) => {
    const server = serverAnswering({ resultType: "input_required", requestState: "s" });
    if (method === "server/discover")
      server.setRequestHandler("server/discover", () => ({
        resultType: "input_required",
        requestState: "s",
      }));
    expect(errorOf(await server.dispatch(request(method, params, everything)))).toEqual({
      code: -32603,
      message: "Handler returned an invalid result",
    });
  });

  it.each([
    ["neither field", {}],
    ["an empty inputRequests", { inputRequests: {} }],
    ["a non-string requestState", { requestState: 42 }],
    [
      "a non-string requestState next to valid requests",
      { inputRequests: { region: ELICIT_FORM }, requestState: 42 },
    ],
    [
      "an entry that is not an embedded request",
      { inputRequests: { x: { method: "tools/call", params: {} } } },
    ],
    ["an entry without method", { inputRequests: { x: { params: { message: "hi" } } } }],
    // JSON.parse makes "__proto__" an own key; no response could be keyed by it.
    [
      "a valid request under the key __proto__",
      JSON.parse(`{"inputRequests":{"__proto__":${JSON.stringify(ELICIT_FORM)}}}`),
    ],
  ])("refuses a result with %s with -32603", async (_label, fields) => {
    const server = serverAnswering({ resultType: "input_required", ...fields });
    expect(errorOf(await server.dispatch(request("tools/call", { name: "x" }, everything))).code).toBe(
      -32603,
    );
  });

  it("accepts a state-only result", async () => {
    const server = serverAnswering({ resultType: "input_required", requestState: "not-yet" });
    expect(resultOf(await server.dispatch(request("tools/call", { name: "x" })))).toEqual({
      resultType: "input_required",
      requestState: "not-yet",
      _meta: SERVER_INFO,
    });
  });
});

describe("a sampling request that breaks the tool-loop rules", () => {
  it("is an invalid handler result: -32603, the reason logged with the key, message index and toolUseId", async () => {
    const logger = recordingLogger();
    const broken: InputRequest = {
      method: "sampling/createMessage",
      params: {
        maxTokens: 10,
        messages: [
          { role: "assistant", content: { type: "tool_use", id: "t1", name: "w", input: {} } },
          { role: "user", content: { type: "text", text: "skip it" } },
        ],
      },
    };
    const server = serverAnswering({ resultType: "input_required", inputRequests: { llm: broken } }, logger);
    expect(errorOf(await server.dispatch(request("tools/call", { name: "x" }, { sampling: {} })))).toEqual({
      code: -32603,
      message: "Handler returned an invalid result",
    });
    expect(logger.lines).toContain(
      'error: tools/call: handler returned an invalid result: inputRequests["llm"]: messages[1]: tool_use "t1" of the message before it must be answered first',
    );
  });
});

describe("capability gating of embedded requests", () => {
  const gate = (inputRequest: InputRequest, capabilities: ClientCapabilities) =>
    serverAnswering({ resultType: "input_required", inputRequests: { q: inputRequest } }).dispatch(
      request("tools/call", { name: "x" }, capabilities),
    );

  it.each<[string, InputRequest, ClientCapabilities, ClientCapabilities]>([
    ["form elicitation without elicitation", ELICIT_FORM, {}, { elicitation: { form: {} } }],
    [
      "form elicitation with url-only elicitation",
      ELICIT_FORM,
      { elicitation: { url: {} } },
      { elicitation: { form: {} } },
    ],
    ["url elicitation with bare elicitation", ELICIT_URL, { elicitation: {} }, { elicitation: { url: {} } }],
    [
      "url elicitation with form-only",
      ELICIT_URL,
      { elicitation: { form: {} } },
      { elicitation: { url: {} } },
    ],
    ["sampling without sampling", SAMPLE, { elicitation: {} }, { sampling: {} }],
    [
      "sampling with tools without sampling.tools",
      SAMPLE_WITH_TOOLS,
      { sampling: {} },
      { sampling: { tools: {} } },
    ],
    [
      "sampling with toolChoice without sampling.tools",
      SAMPLE_TOOL_CHOICE,
      { sampling: {} },
      { sampling: { tools: {} } },
    ],
    ["roots without roots", ROOTS, { sampling: {} }, { roots: {} }],
  ])("refuses %s with -32021", async (_label, inputRequest, capabilities, required) => {
    const error = errorOf(await gate(inputRequest, capabilities));
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: required });
    expect(error.message).toContain("'q'");
  });

  it.each<[string, InputRequest, ClientCapabilities]>([
    ["form elicitation with bare elicitation", ELICIT_FORM, { elicitation: {} }],
    ["form elicitation with form", ELICIT_FORM, { elicitation: { form: {} } }],
    ["url elicitation with url", ELICIT_URL, { elicitation: { url: {} } }],
    ["sampling with sampling", SAMPLE, { sampling: {} }],
    ["sampling with tools and sampling.tools", SAMPLE_WITH_TOOLS, { sampling: { tools: {} } }],
    ["roots with roots", ROOTS, { roots: {} }],
  ])("lets %s through", async (_label, inputRequest, capabilities) => {
    expect(resultOf(await gate(inputRequest, capabilities)).resultType).toBe("input_required");
  });

  it("names every missing capability at once, sub-capabilities included", async () => {
    const server = serverAnswering({
      resultType: "input_required",
      inputRequests: { a: ELICIT_FORM, b: SAMPLE_WITH_TOOLS, c: ROOTS },
    });
    const error = errorOf(await server.dispatch(request("tools/call", { name: "x" }, {})));
    expect(error.data).toEqual({
      requiredCapabilities: { elicitation: { form: {} }, sampling: { tools: {} }, roots: {} },
    });
  });
});

describe("middleware", () => {
  it("runs in order around the handler and may replace the context and the result", async () => {
    const order: string[] = [];
    const server = new Server("mw", {
      logger: silentLogger,
      onCallTool: (_ctx, params) => {
        order.push(`handler:${params.name}`);
        return { content: [{ type: "text", text: String(params.requestState) }] };
      },
    });
    const outer: Middleware = async (ctx, next) => {
      order.push("outer:in");
      const result = await next({ ...ctx, params: { ...ctx.params, requestState: "rewritten" } });
      order.push("outer:out");
      return { ...result, isError: false };
    };
    const inner: Middleware = {
      handle: async (ctx, next) => {
        order.push(`inner:${ctx.params.requestState}`);
        return next(ctx);
      },
    };
    server.middleware.push(outer, inner);
    const result = resultOf(
      await server.dispatch(request("tools/call", { name: "t", requestState: "orig" })),
    );
    expect(order).toEqual(["outer:in", "inner:rewritten", "handler:t", "outer:out"]);
    expect(result).toMatchObject({ content: [{ type: "text", text: "rewritten" }], isError: false });
  });

  it("sees an invalid handler result fail, as the client will (-32603), before anything is stamped", async () => {
    const seen: unknown[] = [];
    const server = new Server("mw", {
      logger: silentLogger,
      onCallTool: () => ({ content: "text" }) as never,
    });
    server.middleware.push((ctx, next) =>
      next(ctx).catch((error: unknown) => {
        seen.push((error as { code?: unknown }).code);
        throw error;
      }),
    );
    const error = errorOf(await server.dispatch(request("tools/call", { name: "t" })));
    expect(error).toMatchObject({ code: -32603, message: "Handler returned an invalid result" });
    expect(seen).toEqual([-32603]);
  });

  it("a result a middleware makes itself is checked too", async () => {
    const server = new Server("mw", { logger: silentLogger, onCallTool: () => ({ content: [] }) });
    server.middleware.push(async () => ({ content: [{ type: "unknown-kind" }] }) as never);
    const error = errorOf(await server.dispatch(request("tools/call", { name: "t" })));
    expect(error).toMatchObject({ code: -32603, message: "Handler returned an invalid result" });
  });

  it("sees the envelope on the context", async () => {
    let seen: unknown;
    const server = new Server("ctx", {
      logger: silentLogger,
      onCallTool: (ctx) => {
        seen = {
          method: ctx.method,
          version: ctx.protocolVersion,
          caps: ctx.clientCapabilities,
          info: ctx.clientInfo,
          level: ctx.logLevel,
        };
        return { content: [] };
      },
    });
    await server.dispatch(request("tools/call", { name: "t" }, { roots: {} }));
    expect(seen).toEqual({
      method: "tools/call",
      version: "2026-07-28",
      caps: { roots: {} },
      info: { name: "test-client", version: "1.0.0" },
      level: undefined,
    });
  });
});
