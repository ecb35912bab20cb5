import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  acceptedContent,
  elicitationRequest,
  inputRequired,
  inputResponse,
  renderRequestedSchema,
  rootsRequest,
  sample,
  samplingRequest,
  urlElicitationRequest,
} from "../../../src/server/mcp/index.js";
import {
  type ClientCapabilities,
  type InputRequest,
  InputRequestSchema,
  McpError,
  type RequestedSchema,
} from "../../../src/types/index.js";
import { errorOf, resultOf } from "../../helpers.js";
import { contextWith, quietServer, send, stamp } from "./helpers.js";

const SAMPLED = {
  role: "assistant",
  content: { type: "text", text: "Paris" },
  model: "test-model",
  stopReason: "endTurn",
};
const ROOTS = { roots: [{ uri: "file:///work", name: "work" }] };

describe("inputRequired", () => {
  it("builds a result from requests, from state, or from both", () => {
    const ask = rootsRequest();
    expect(inputRequired({ inputRequests: { roots: ask } })).toEqual({
      resultType: "input_required",
      inputRequests: { roots: ask },
    });
    expect(inputRequired({ requestState: "s" })).toEqual({ resultType: "input_required", requestState: "s" });
    expect(inputRequired({ inputRequests: { roots: ask }, requestState: "s" })).toEqual({
      resultType: "input_required",
      inputRequests: { roots: ask },
      requestState: "s",
    });
  });

  it("drops an empty inputRequests map when state is present", () => {
    expect(inputRequired({ inputRequests: {}, requestState: "s" })).toEqual({
      resultType: "input_required",
      requestState: "s",
    });
  });

  it.each([
    ["both absent", {}],
    ["empty requests and no state", { inputRequests: {} }],
  ])("throws when %s", (_label, fields) => {
    expect(() => inputRequired(fields)).toThrow(
      "An InputRequiredResult needs a non-empty inputRequests or a requestState",
    );
  });
});

describe("elicitationRequest", () => {
  it("renders a zod object with string formats, number bounds, booleans and a single-select enum", () => {
    const Form = z.object({
      email: z.email(),
      homepage: z.url(),
      born: z.iso.date(),
      at: z.iso.datetime(),
      name: z.string().min(2).max(20).describe("Your name"),
      age: z.number().min(0).max(150),
      seats: z.int().min(1).max(5),
      subscribe: z.boolean().default(false),
      color: z.enum(["red", "green"]),
      nickname: z.string().optional(),
    });
    const request = elicitationRequest("Tell me about you", Form);
    expect(InputRequestSchema.safeParse(request).success).toBe(true);
    expect(request.method).toBe("elicitation/create");
    expect(request.params).toMatchObject({ mode: "form", message: "Tell me about you" });
    const schema = (request.params as { requestedSchema: RequestedSchema }).requestedSchema;
    expect(schema).not.toHaveProperty("$schema");
    expect(schema).not.toHaveProperty("additionalProperties");
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["email", "homepage", "born", "at", "name", "age", "seats", "color"]);
    expect(schema.properties).toMatchObject({
      email: { type: "string", format: "email" },
      homepage: { type: "string", format: "uri" },
      born: { type: "string", format: "date" },
      at: { type: "string", format: "date-time" },
      name: { type: "string", minLength: 2, maxLength: 20, description: "Your name" },
      age: { type: "number", minimum: 0, maximum: 150 },
      seats: { type: "integer", minimum: 1, maximum: 5 },
      subscribe: { type: "boolean", default: false },
      color: { type: "string", enum: ["red", "green"] },
      nickname: { type: "string" },
    });
  });

  it("accepts a multi-select enum (array of enum strings)", () => {
    const schema = renderRequestedSchema(z.object({ tags: z.array(z.enum(["a", "b"])) }));
    expect(schema.properties.tags).toEqual({ type: "array", items: { type: "string", enum: ["a", "b"] } });
  });

  it("passes a RequestedSchema through unchanged", () => {
    const requested: RequestedSchema = {
      type: "object",
      properties: {
        region: { type: "string", title: "Region", oneOf: [{ const: "eu", title: "Europe" }] },
        count: { type: "integer", minimum: 1 },
      },
      required: ["region"],
    };
    expect(elicitationRequest("Where?", requested)).toEqual({
      method: "elicitation/create",
      params: { mode: "form", message: "Where?", requestedSchema: requested },
    });
  });

  it.each([
    ["a nested object", z.object({ address: z.object({ city: z.string() }) }), "properties.address"],
    [
      "an array of objects",
      z.object({ people: z.array(z.object({ name: z.string() })) }),
      "properties.people",
    ],
    ["a union", z.object({ id: z.union([z.string(), z.number()]) }), "properties.id"],
    ["a nullable field", z.object({ id: z.string().nullable() }), "properties.id"],
    ["a non-object root", z.string(), "type"],
  ])("rejects %s with a clear message", (_label, schema, where) => {
    expect(() => elicitationRequest("?", schema)).toThrow(
      "An elicitation form must be a flat object of strings, numbers, integers, booleans or enums " +
        `(no nesting, no arrays of objects); offending part: ${where}`,
    );
  });
});

describe("urlElicitationRequest", () => {
  it("builds a URL-mode elicitation from a string or a URL object", () => {
    expect(urlElicitationRequest("Sign in", "https://example.com/login?x=1")).toEqual({
      method: "elicitation/create",
      params: { mode: "url", message: "Sign in", url: "https://example.com/login?x=1" },
    });
    expect(urlElicitationRequest("Sign in", new URL("https://example.com/a b")).params).toMatchObject({
      url: "https://example.com/a%20b",
    });
  });

  it.each(["not a url", "", "//example.com/relative", " https://example.com/", "https://example.com/a b"])(
    "rejects %j",
    (url) => {
      expect(() => urlElicitationRequest("Sign in", url)).toThrow(`Not a valid URL: ${url}`);
    },
  );
});

describe("samplingRequest and rootsRequest", () => {
  it("turns the prompt shorthand into one user text message", () => {
    expect(samplingRequest({ prompt: "Capital of France?", maxTokens: 50 })).toEqual({
      method: "sampling/createMessage",
      params: {
        maxTokens: 50,
        messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
      },
    });
  });

  it("keeps explicit messages (the prompt appended last) and other params, tools included", () => {
    const tools = [{ name: "lookup", inputSchema: { type: "object" as const } }];
    const request = samplingRequest({
      messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
      prompt: "And then?",
      maxTokens: 10,
      systemPrompt: "Be brief",
      tools,
      toolChoice: { mode: "auto" },
    });
    expect(request).toEqual({
      method: "sampling/createMessage",
      params: {
        maxTokens: 10,
        systemPrompt: "Be brief",
        tools,
        toolChoice: { mode: "auto" },
        messages: [
          { role: "user", content: { type: "text", text: "Hi" } },
          { role: "user", content: { type: "text", text: "And then?" } },
        ],
      },
    });
    expect(InputRequestSchema.safeParse(request).success).toBe(true);
  });

  it("refuses a sampling request with neither messages nor prompt", () => {
    const build = () => samplingRequest({ maxTokens: 10 });
    expect(build).toThrow(TypeError);
    expect(build).toThrow("samplingRequest needs messages or a prompt");
  });

  it("refuses, at build time, messages that break the tool-loop rules, naming the message and the toolUseId", () => {
    const use = {
      role: "assistant" as const,
      content: { type: "tool_use" as const, id: "t1", name: "w", input: {} },
    };
    const result = {
      role: "user" as const,
      content: { type: "tool_result" as const, toolUseId: "t1", content: [] },
    };
    expect(() => samplingRequest({ messages: [use], prompt: "And the weather?", maxTokens: 10 })).toThrow(
      new TypeError(
        'A sampling conversation must answer each tool_use before anything else; messages[1]: tool_use "t1" of the message before it must be answered first',
      ),
    );
    expect(() => samplingRequest({ messages: [result], maxTokens: 10 })).toThrow(
      'messages[0]: tool_result "t1" answers no tool_use of the message before it',
    );
    expect(() =>
      sample({
        messages: [use, { role: "user", content: [result.content, { type: "text", text: "?" }] }],
        maxTokens: 9,
      }),
    ).toThrow('messages[1]: tool_result "t1" must not share a message with other content');
    expect(samplingRequest({ messages: [use, result], maxTokens: 10 }).params.messages).toEqual([
      use,
      result,
    ]);
  });

  it("builds a roots request", () => {
    expect(rootsRequest()).toEqual({ method: "roots/list", params: {} });
  });
});

describe("inputResponse", () => {
  it.each([
    ["missing (round one)", undefined, { kind: "missing" }],
    ["missing (other key answered)", { other: { action: "accept" } }, { kind: "missing" }],
    [
      "accept with content",
      { k: { action: "accept", content: { region: "eu", n: 2, ok: true, tags: ["a"] } } },
      { kind: "accept", content: { region: "eu", n: 2, ok: true, tags: ["a"] } },
    ],
    [
      "accept without content (URL consent)",
      { k: { action: "accept" } },
      { kind: "accept", content: undefined },
    ],
    ["decline", { k: { action: "decline" } }, { kind: "decline" }],
    ["cancel", { k: { action: "cancel" } }, { kind: "cancel" }],
    ["a sampling result", { k: SAMPLED }, { kind: "sampling", result: SAMPLED }],
    ["a roots result", { k: ROOTS }, { kind: "roots", result: ROOTS }],
    ["an unknown action", { k: { action: "maybe" } }, { kind: "invalid" }],
    ["nested content", { k: { action: "accept", content: { a: { b: 1 } } } }, { kind: "invalid" }],
    ["a non-object", { k: "yes" }, { kind: "invalid" }],
    ["a root outside file://", { k: { roots: [{ uri: "https://x" }] } }, { kind: "invalid" }],
  ])("reads %s", (_label, responses, expected) => {
    expect(inputResponse(contextWith(responses), "k")).toEqual(expected);
  });
});

describe("acceptedContent", () => {
  const Region = z.object({ region: z.enum(["eu", "us"]), count: z.number().default(1) });

  it("returns the validated content (defaults applied) of an accepted answer", async () => {
    const ctx = contextWith({ k: { action: "accept", content: { region: "eu" } } });
    expect(await acceptedContent(ctx, "k", Region)).toEqual({ region: "eu", count: 1 });
  });

  it("returns the raw content when no schema is given", async () => {
    const ctx = contextWith({ k: { action: "accept", content: { anything: "goes" } } });
    expect(await acceptedContent(ctx, "k")).toEqual({ anything: "goes" });
  });

  it.each([
    ["missing", undefined],
    ["declined", { k: { action: "decline" } }],
    ["cancelled", { k: { action: "cancel" } }],
    ["accepted without content", { k: { action: "accept" } }],
  ])("returns undefined when the answer is %s", async (_label, responses) => {
    expect(await acceptedContent(contextWith(responses), "k", Region)).toBeUndefined();
  });

  it("throws McpError -32602 when the answer does not match the schema", async () => {
    const ctx = contextWith({ k: { action: "accept", content: { region: "mars" } } });
    const error = await acceptedContent(ctx, "k", Region).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: -32602,
      message: 'The answer to "k" does not match the requested schema',
    });
  });

  it("throws McpError -32602 when the answer is not an elicitation result at all", async () => {
    const ctx = contextWith({ k: { action: "nope" } });
    const error = await acceptedContent(ctx, "k", Region).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602, message: 'The answer to "k" is not an elicitation result' });
  });

  // Regression: a well-formed answer of the wrong kind (a sampling or roots result under a key that asked
  // for an elicitation) reads as "not answered" (undefined) instead of the -32602 the docstring
  // promises ("A malformed answer is a -32602 error") — and whose message, "is not an elicitation
  // result", describes exactly this case. inputResponse() classifies it as `sampling`/`roots`, and
  // acceptedContent only raises for `invalid`. The Python SDK rejects a non-elicitation response to
  // an elicitation (python-sdk-behaviour.md §9.3 #40, test_non_elicitation_response_raises).
  it.each([
    ["a sampling result", SAMPLED],
    ["a roots result", ROOTS],
  ])(
    "throws McpError -32602 when the answer is %s instead of an elicitation result",
    async (_label, answer) => {
      const error = await acceptedContent(contextWith({ k: answer }), "k", Region).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({
        code: -32602,
        message: 'The answer to "k" is not an elicitation result',
      });
    },
  );

  it("surfaces the -32602 on the wire when a tool lets it propagate", async () => {
    const mcp = quietServer("helpers");
    mcp.tool("t", {}, async (_a, ctx) => {
      const answer = await acceptedContent(ctx, "k", Region);
      return answer ? "ok" : inputRequired({ inputRequests: { k: elicitationRequest("Region?", Region) } });
    });
    expect(
      errorOf(
        await send(mcp, "tools/call", {
          name: "t",
          inputResponses: { k: { action: "accept", content: { region: 1 } } },
        }),
      ),
    ).toEqual({ code: -32602, message: 'The answer to "k" does not match the requested schema' });
  });
});

describe("the builders against the capability gate", () => {
  const Region = z.object({ region: z.string() });
  const cases: [string, () => InputRequest, ClientCapabilities, ClientCapabilities, ClientCapabilities][] = [
    // label, request, declared (passes), declared (refused), requiredCapabilities
    [
      "form elicitation",
      () => elicitationRequest("Region?", Region),
      { elicitation: {} },
      { sampling: {} },
      { elicitation: { form: {} } },
    ],
    [
      "form elicitation (url-only client)",
      () => elicitationRequest("Region?", Region),
      { elicitation: { form: {} } },
      { elicitation: { url: {} } },
      { elicitation: { form: {} } },
    ],
    [
      "URL elicitation",
      () => urlElicitationRequest("Sign in", "https://example.com/login"),
      { elicitation: { url: {} } },
      { elicitation: { form: {} } },
      { elicitation: { url: {} } },
    ],
    [
      "sampling",
      () => samplingRequest({ prompt: "Hi", maxTokens: 5 }),
      { sampling: {} },
      { roots: {} },
      { sampling: {} },
    ],
    [
      "sampling with tools",
      () =>
        samplingRequest({
          prompt: "Hi",
          maxTokens: 5,
          tools: [{ name: "t", inputSchema: { type: "object" } }],
        }),
      { sampling: { tools: {} } },
      { sampling: {} },
      { sampling: { tools: {} } },
    ],
    ["roots", () => rootsRequest(), { roots: {} }, { elicitation: {} }, { roots: {} }],
  ];

  function askingServer(build: () => InputRequest) {
    const mcp = quietServer("helpers");
    mcp.tool("ask", {}, () => inputRequired({ inputRequests: { q: build() } }));
    return mcp;
  }

  it.each(cases)("%s passes when the client declared the capability", async (_label, build, declared) => {
    const result = resultOf(await send(askingServer(build), "tools/call", { name: "ask" }, declared));
    expect(result).toEqual({
      resultType: "input_required",
      inputRequests: { q: build() },
      _meta: stamp("helpers"),
    });
  });

  it.each(cases)(
    "%s is refused with -32021 otherwise",
    async (_label, build, _declared, refused, required) => {
      const error = errorOf(await send(askingServer(build), "tools/call", { name: "ask" }, refused));
      expect(error.code).toBe(-32021);
      expect(error.data).toEqual({ requiredCapabilities: required });
      expect(error.message).toContain("'q'");
    },
  );
});
