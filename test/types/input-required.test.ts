import { describe, expect, expectTypeOf, it } from "vitest";
import {
  BooleanSchemaSchema,
  CACHEABLE_METHODS,
  CreateMessageRequestParamsSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestFormParamsSchema,
  ElicitRequestParamsSchema,
  ElicitRequestSchema,
  ElicitRequestURLParamsSchema,
  ElicitResultSchema,
  INPUT_REQUIRED_METHODS,
  InputRequestSchema,
  InputRequestsSchema,
  type InputRequiredResult,
  InputRequiredResultSchema,
  InputResponseParamsSchema,
  InputResponseSchema,
  InputResponsesSchema,
  isCoreMethod,
  isCreateMessageRequest,
  isCreateMessageResult,
  isElicitRequest,
  isElicitResult,
  isInputRequiredResult,
  isListRootsRequest,
  isListRootsResult,
  isUrlElicitRequest,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  METHOD_SPECS,
  ModelPreferencesSchema,
  MultiSelectEnumSchemaSchema,
  NumberSchemaSchema,
  PrimitiveSchemaDefinitionSchema,
  REMOVED_METHODS,
  RequestedSchemaSchema,
  RootSchema,
  SamplingMessageSchema,
  SingleSelectEnumSchemaSchema,
  StringSchemaSchema,
} from "../../src/types/index.js";
import { expectInvalid, expectValid, META, without } from "./helpers.js";

/** The example of spec §2.3 (schema/2026-07-28/examples/InputRequiredResult). */
const SPEC_EXAMPLE = {
  resultType: "input_required",
  inputRequests: {
    github_login: {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "Please provide your GitHub username",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
    },
    capital_of_france: {
      method: "sampling/createMessage",
      params: {
        messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
        maxTokens: 100,
      },
    },
  },
  requestState: "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0",
} as const;

const SPEC_RESPONSES = {
  github_login: { action: "accept", content: { name: "octocat" } },
  capital_of_france: {
    role: "assistant",
    content: { type: "text", text: "The capital of France is Paris." },
    model: "claude-3-sonnet-20240307",
    stopReason: "endTurn",
  },
} as const;

const formParams = {
  message: "Please provide your GitHub username",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
} as const;
const formRequest = { method: "elicitation/create", params: { mode: "form", ...formParams } } as const;
const modelessFormRequest = { method: "elicitation/create", params: formParams } as const;
const urlParams = {
  mode: "url",
  message: "Set your API key",
  url: "https://mcp.example.com/ui/set_api_key",
} as const;
const urlRequest = { method: "elicitation/create", params: urlParams } as const;
const samplingParams = {
  messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
  maxTokens: 100,
} as const;
const samplingRequest = { method: "sampling/createMessage", params: samplingParams } as const;
const rootsRequest = { method: "roots/list" } as const;
const rootsRequestWithParams = { method: "roots/list", params: {} } as const;

const elicitResult = { action: "accept", content: { name: "octocat" } } as const;
const createMessageResult = SPEC_RESPONSES.capital_of_france;
const listRootsResult = { roots: [{ uri: "file:///home/user/project", name: "Project" }] } as const;

/** Wraps one property in a form requestedSchema. */
function formWith(property: unknown): unknown {
  return {
    method: "elicitation/create",
    params: { message: "m", requestedSchema: { type: "object", properties: { p: property } } },
  };
}

describe("InputRequiredResultSchema", () => {
  it("accepts the spec §2.3 example (github_login + capital_of_france)", () => {
    expectValid(InputRequiredResultSchema, SPEC_EXAMPLE);
  });

  it("parses the spec example into typed embedded requests", () => {
    const parsed = InputRequiredResultSchema.parse(SPEC_EXAMPLE);
    expect(Object.keys(parsed.inputRequests ?? {})).toEqual(["github_login", "capital_of_france"]);
    expect(parsed.inputRequests?.github_login?.method).toBe("elicitation/create");
    expect(parsed.inputRequests?.capital_of_france?.method).toBe("sampling/createMessage");
    expect(parsed.requestState).toBe(SPEC_EXAMPLE.requestState);
  });

  it("accepts requestState only (load shedding / continuation)", () => {
    expectValid(InputRequiredResultSchema, {
      resultType: "input_required",
      requestState: "eyJwcm9ncmVzcyI6IjUwJSIsInN0YXRlIjoicHJvY2Vzc2luZyJ9",
    });
  });

  it("accepts inputRequests only", () => {
    expectValid(InputRequiredResultSchema, {
      resultType: "input_required",
      inputRequests: { r: rootsRequest },
    });
  });

  it("accepts an empty inputRequests map when requestState is present", () => {
    expectValid(InputRequiredResultSchema, {
      resultType: "input_required",
      inputRequests: {},
      requestState: "s",
    });
  });

  it("accepts serverInfo in _meta", () => {
    expectValid(InputRequiredResultSchema, {
      ...SPEC_EXAMPLE,
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } },
    });
  });

  it.each([
    ["neither field", { resultType: "input_required" }],
    ["an empty inputRequests map and no requestState", { resultType: "input_required", inputRequests: {} }],
    ['resultType "complete"', { ...SPEC_EXAMPLE, resultType: "complete" }],
    ["a missing resultType", without(SPEC_EXAMPLE, "resultType")],
    ["a non-string requestState", { resultType: "input_required", requestState: 42 }],
    ["a null requestState", { resultType: "input_required", requestState: null }],
    ["inputRequests as an array", { resultType: "input_required", inputRequests: [formRequest] }],
    ["a null entry", { resultType: "input_required", inputRequests: { a: null } }],
    [
      "an entry without method",
      { resultType: "input_required", inputRequests: { a: { params: formParams } } },
    ],
    [
      "an entry with an unknown method",
      { resultType: "input_required", inputRequests: { a: { method: "ping" } } },
    ],
    [
      "an entry with a client→server method",
      { resultType: "input_required", inputRequests: { a: { method: "tools/call", params: { name: "x" } } } },
    ],
    [
      "a removed URL-elicitation notification as an entry",
      {
        resultType: "input_required",
        inputRequests: { a: { method: "notifications/elicitation/complete" } },
      },
    ],
    [
      "a malformed embedded request",
      { resultType: "input_required", inputRequests: { a: { method: "elicitation/create" } } },
    ],
  ])("rejects %s", (_label, value) => {
    expectInvalid(InputRequiredResultSchema, value);
  });
});

describe("embedded elicitation/create", () => {
  it("accepts form mode with and without `mode` (missing mode means form)", () => {
    expectValid(ElicitRequestSchema, formRequest);
    expectValid(ElicitRequestSchema, modelessFormRequest);
    expectValid(InputRequiredResultSchema, {
      resultType: "input_required",
      inputRequests: { a: modelessFormRequest },
    });
  });

  it("keeps a missing mode missing (no default is injected)", () => {
    const parsed = ElicitRequestSchema.parse(modelessFormRequest);
    expect("mode" in parsed.params).toBe(false);
  });

  it("accepts url mode without elicitationId (removed in 2026-07-28)", () => {
    expectValid(ElicitRequestSchema, urlRequest);
    expectValid(ElicitRequestURLParamsSchema, urlParams);
  });

  it.each([
    ["a url that is not a URL", { ...urlParams, url: "not a url" }],
    ["a relative url", { ...urlParams, url: "/ui/set_api_key" }],
    ["an empty url", { ...urlParams, url: "" }],
    ["a missing url", without(urlParams, "url")],
    ["a missing message", without(urlParams, "message")],
    ["a missing mode (url mode needs mode: url)", without(urlParams, "mode")],
  ])("URL params reject %s", (_label, params) => {
    expectInvalid(ElicitRequestURLParamsSchema, params);
    expectInvalid(ElicitRequestSchema, { method: "elicitation/create", params });
  });

  it.each([
    ['mode "url" with a requestedSchema and no url', { mode: "url", ...formParams }],
    ["an unknown mode", { mode: "oauth", ...formParams }],
    ["a missing requestedSchema", { mode: "form", message: "m" }],
    ["a missing message", { mode: "form", requestedSchema: formParams.requestedSchema }],
    ['requestedSchema type "array"', { ...formParams, requestedSchema: { type: "array", properties: {} } }],
    ["requestedSchema without properties", { ...formParams, requestedSchema: { type: "object" } }],
    [
      "requestedSchema.required not a string array",
      { ...formParams, requestedSchema: { ...formParams.requestedSchema, required: [1] } },
    ],
  ])("ElicitRequestParams rejects %s", (_label, params) => {
    expectInvalid(ElicitRequestParamsSchema, params);
    expectInvalid(ElicitRequestSchema, { method: "elicitation/create", params });
  });

  it("ElicitRequestFormParams accepts $schema on the requestedSchema and _meta on params", () => {
    expectValid(ElicitRequestFormParamsSchema, {
      ...formParams,
      requestedSchema: {
        ...formParams.requestedSchema,
        $schema: "https://json-schema.org/draft/2020-12/schema",
      },
      _meta: {},
    });
  });

  it("requestedSchema must be flat: a nested object property is rejected", () => {
    const nested = { type: "object", properties: { street: { type: "string" } } };
    expectInvalid(ElicitRequestSchema, formWith(nested));
    expectInvalid(RequestedSchemaSchema, { type: "object", properties: { address: nested } });
    expectInvalid(InputRequiredResultSchema, {
      resultType: "input_required",
      inputRequests: { a: formWith(nested) },
    });
  });

  it("requestedSchema must be flat: arrays of objects and free-form arrays are rejected", () => {
    expectInvalid(
      ElicitRequestSchema,
      formWith({ type: "array", items: { type: "object", properties: {} } }),
    );
    expectInvalid(ElicitRequestSchema, formWith({ type: "array", items: { type: "string" } }));
    expectInvalid(ElicitRequestSchema, formWith({ type: "array", items: { type: "number", enum: [1, 2] } }));
  });

  it("ElicitRequest needs the elicitation/create method", () => {
    expectInvalid(ElicitRequestSchema, { method: "elicitation/request", params: formParams });
    expectInvalid(ElicitRequestSchema, { params: formParams });
  });
});

describe("PrimitiveSchemaDefinition variants", () => {
  const variants: Array<[string, unknown]> = [
    ["StringSchema (bare)", { type: "string" }],
    [
      "StringSchema (every field)",
      {
        type: "string",
        title: "Name",
        description: "d",
        minLength: 3,
        maxLength: 50,
        format: "email",
        default: "a@b.c",
      },
    ],
    ["StringSchema format uri", { type: "string", format: "uri" }],
    ["StringSchema format date", { type: "string", format: "date" }],
    ["StringSchema format date-time", { type: "string", format: "date-time" }],
    ["NumberSchema number", { type: "number", title: "Age", minimum: 0, maximum: 100.5, default: 50 }],
    ["NumberSchema integer", { type: "integer", minimum: 1, default: 3 }],
    ["BooleanSchema", { type: "boolean", title: "Agree", description: "d", default: false }],
    [
      "UntitledSingleSelectEnumSchema",
      { type: "string", title: "Color", enum: ["Red", "Green"], default: "Red" },
    ],
    [
      "TitledSingleSelectEnumSchema",
      {
        type: "string",
        oneOf: [
          { const: "#FF0000", title: "Red" },
          { const: "#00FF00", title: "Green" },
        ],
        default: "#FF0000",
      },
    ],
    [
      "LegacyTitledEnumSchema (enumNames)",
      { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"], default: "r" },
    ],
    [
      "UntitledMultiSelectEnumSchema",
      {
        type: "array",
        minItems: 1,
        maxItems: 2,
        items: { type: "string", enum: ["Red", "Green", "Blue"] },
        default: ["Red"],
      },
    ],
    [
      "TitledMultiSelectEnumSchema",
      {
        type: "array",
        title: "Colors",
        items: { anyOf: [{ const: "#FF0000", title: "Red" }] },
        default: ["#FF0000"],
      },
    ],
  ];

  it.each(variants)("accepts %s, alone and inside a form elicitation", (_label, property) => {
    expectValid(PrimitiveSchemaDefinitionSchema, property);
    expectValid(ElicitRequestSchema, formWith(property));
  });

  it("the specific variant schemas accept their own shapes", () => {
    expectValid(StringSchemaSchema, { type: "string", format: "date" });
    expectValid(NumberSchemaSchema, { type: "integer" });
    expectValid(BooleanSchemaSchema, { type: "boolean" });
    expectValid(SingleSelectEnumSchemaSchema, { type: "string", enum: ["a"] });
    expectValid(SingleSelectEnumSchemaSchema, { type: "string", oneOf: [{ const: "a", title: "A" }] });
    expectValid(MultiSelectEnumSchemaSchema, { type: "array", items: { type: "string", enum: ["a"] } });
    expectInvalid(SingleSelectEnumSchemaSchema, { type: "string" });
    expectInvalid(MultiSelectEnumSchemaSchema, { type: "array" });
  });

  it.each([
    ['type "object"', { type: "object", properties: {} }],
    ['type "null"', { type: "null" }],
    ["no type", { title: "x" }],
    ['an unsupported string format ("hostname")', { type: "string", format: "hostname" }],
    ["a negative minLength", { type: "string", minLength: -1 }],
    ["a fractional maxLength", { type: "string", maxLength: 2.5 }],
    ["a numeric default on a string", { type: "string", default: 5 }],
    ["a string default on a number", { type: "number", default: "5" }],
    ["a string minimum on a number", { type: "number", minimum: "0" }],
    ["a string default on a boolean", { type: "boolean", default: "true" }],
    [
      "a multi-select with a string default",
      { type: "array", items: { type: "string", enum: ["a"] }, default: "a" },
    ],
    ["a multi-select without items", { type: "array", default: [] }],
    [
      "a multi-select with a negative minItems",
      { type: "array", minItems: -1, items: { type: "string", enum: ["a"] } },
    ],
    ["a titled multi-select option without const", { type: "array", items: { anyOf: [{ title: "A" }] } }],
    ["a titled multi-select option without title", { type: "array", items: { anyOf: [{ const: "a" }] } }],
  ])("rejects %s", (_label, property) => {
    expectInvalid(PrimitiveSchemaDefinitionSchema, property);
    expectInvalid(ElicitRequestSchema, formWith(property));
  });

  it("rejects a single-select enum with non-string values", () => {
    expectInvalid(PrimitiveSchemaDefinitionSchema, { type: "string", enum: [1, 2, 3] });
  });

  it("rejects a titled single-select option without title", () => {
    expectInvalid(PrimitiveSchemaDefinitionSchema, { type: "string", oneOf: [{ const: "a" }] });
  });

  it("rejects legacy enumNames that are not strings", () => {
    expectInvalid(PrimitiveSchemaDefinitionSchema, { type: "string", enum: ["a"], enumNames: [1] });
  });
});

describe("embedded sampling/createMessage", () => {
  const samplingTool = {
    name: "get_weather",
    description: "Get weather",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  };

  it("accepts the minimal request", () => {
    expectValid(CreateMessageRequestSchema, samplingRequest);
  });

  it("accepts every optional parameter", () => {
    expectValid(CreateMessageRequestParamsSchema, {
      ...samplingParams,
      modelPreferences: {
        hints: [{ name: "claude-3-sonnet" }, {}],
        costPriority: 0,
        speedPriority: 0.5,
        intelligencePriority: 1,
      },
      systemPrompt: "You are helpful.",
      includeContext: "none",
      temperature: 0.7,
      stopSequences: ["\n\n"],
      metadata: { provider: { x: 1 } },
      _meta: {},
    });
  });

  it.each([["auto"], ["required"], ["none"]])("accepts tools with toolChoice mode %s", (mode) => {
    expectValid(CreateMessageRequestSchema, {
      method: "sampling/createMessage",
      params: { ...samplingParams, tools: [samplingTool], toolChoice: { mode } },
    });
  });

  it("accepts tools with an empty toolChoice (mode defaults to auto)", () => {
    expectValid(CreateMessageRequestParamsSchema, {
      ...samplingParams,
      tools: [samplingTool],
      toolChoice: {},
    });
  });

  it("accepts the deprecated includeContext values", () => {
    expectValid(CreateMessageRequestParamsSchema, { ...samplingParams, includeContext: "thisServer" });
    expectValid(CreateMessageRequestParamsSchema, { ...samplingParams, includeContext: "allServers" });
  });

  it("accepts a tool loop: assistant tool_use then user tool_result", () => {
    expectValid(CreateMessageRequestParamsSchema, {
      ...samplingParams,
      tools: [samplingTool],
      messages: [
        { role: "user", content: { type: "text", text: "Weather in Paris?" } },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "c1", name: "get_weather", input: { city: "Paris" } }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", toolUseId: "c1", content: [{ type: "text", text: "18°C" }] }],
        },
      ],
    });
  });

  it.each([
    ["a missing maxTokens", without(samplingParams, "maxTokens")],
    ["a fractional maxTokens", { ...samplingParams, maxTokens: 10.5 }],
    ["a missing messages", without(samplingParams, "messages")],
    [
      "a message with an unknown role",
      { ...samplingParams, messages: [{ role: "system", content: { type: "text", text: "x" } }] },
    ],
    [
      "a message with a resource_link",
      {
        ...samplingParams,
        messages: [{ role: "user", content: { type: "resource_link", uri: "u", name: "n" } }],
      },
    ],
    [
      "an unknown toolChoice mode",
      { ...samplingParams, tools: [samplingTool], toolChoice: { mode: "always" } },
    ],
    ["a tool without inputSchema", { ...samplingParams, tools: [{ name: "t" }] }],
    [
      "a tool whose inputSchema is not an object schema",
      { ...samplingParams, tools: [{ name: "t", inputSchema: { type: "string" } }] },
    ],
    ["an unknown includeContext", { ...samplingParams, includeContext: "everything" }],
    ["a priority above 1", { ...samplingParams, modelPreferences: { costPriority: 1.5 } }],
    ["a negative priority", { ...samplingParams, modelPreferences: { speedPriority: -0.1 } }],
    ["a non-numeric temperature", { ...samplingParams, temperature: "hot" }],
    ["non-string stopSequences", { ...samplingParams, stopSequences: [1] }],
    ["metadata as array", { ...samplingParams, metadata: [] }],
  ])("rejects %s", (_label, params) => {
    expectInvalid(CreateMessageRequestParamsSchema, params);
    expectInvalid(CreateMessageRequestSchema, { method: "sampling/createMessage", params });
  });

  it("CreateMessageRequest needs params", () => {
    expectInvalid(CreateMessageRequestSchema, { method: "sampling/createMessage" });
  });

  it("SamplingMessage and ModelPreferences on their own", () => {
    expectValid(SamplingMessageSchema, { role: "user", content: [] });
    expectValid(SamplingMessageSchema, {
      role: "assistant",
      content: { type: "text", text: "x" },
      _meta: {},
    });
    expectInvalid(SamplingMessageSchema, { role: "user" });
    expectValid(ModelPreferencesSchema, {});
    expectInvalid(ModelPreferencesSchema, { hints: [{ name: 1 }] });
    expectInvalid(ModelPreferencesSchema, { intelligencePriority: 2 });
  });
});

describe("embedded roots/list", () => {
  it("accepts roots/list with and without params", () => {
    expectValid(ListRootsRequestSchema, rootsRequest);
    expectValid(ListRootsRequestSchema, rootsRequestWithParams);
    expectValid(ListRootsRequestSchema, { method: "roots/list", params: { _meta: { "com.example/x": 1 } } });
    expectValid(InputRequiredResultSchema, {
      resultType: "input_required",
      inputRequests: { a: rootsRequest, b: rootsRequestWithParams },
    });
  });

  it("rejects malformed params and a wrong method", () => {
    expectInvalid(ListRootsRequestSchema, { method: "roots/list", params: [] });
    expectInvalid(ListRootsRequestSchema, { method: "roots/list", params: "x" });
    expectInvalid(ListRootsRequestSchema, { method: "roots/list", params: { _meta: [] } });
    expectInvalid(ListRootsRequestSchema, { method: "roots/get" });
  });
});

describe("InputRequestSchema / InputRequestsSchema", () => {
  it.each([
    ["form elicitation", formRequest],
    ["modeless form elicitation", modelessFormRequest],
    ["url elicitation", urlRequest],
    ["sampling", samplingRequest],
    ["roots", rootsRequest],
  ])("accepts a %s request", (_label, request) => {
    expectValid(InputRequestSchema, request);
  });

  it("rejects an entry without method, and an unknown method", () => {
    expectInvalid(InputRequestSchema, { params: formParams });
    expectInvalid(InputRequestSchema, { method: "elicitation/complete", params: {} });
    expectInvalid(InputRequestSchema, { method: "ping" });
    expectInvalid(InputRequestSchema, { method: 5 });
  });

  it("InputRequestsSchema is a keyed map of embedded requests", () => {
    expectValid(InputRequestsSchema, {});
    expectValid(InputRequestsSchema, SPEC_EXAMPLE.inputRequests);
    expectInvalid(InputRequestsSchema, [formRequest]);
    expectInvalid(InputRequestsSchema, { a: { method: "unknown" } });
  });
});

describe("answers: ElicitResult, CreateMessageResult, ListRootsResult", () => {
  it.each([["accept"], ["decline"], ["cancel"]])(
    "ElicitResult accepts action %s (no resultType needed)",
    (action) => {
      expectValid(ElicitResultSchema, { action });
    },
  );

  it("ElicitResult content values may be string, number, boolean or string[]", () => {
    expectValid(ElicitResultSchema, {
      action: "accept",
      content: {
        name: "Monalisa",
        age: 30,
        ratio: 0.5,
        subscribed: true,
        colors: ["Red", "Green"],
        none: [],
      },
    });
  });

  it.each([
    ["an unknown action", { action: "approve" }],
    ["an upper-case action", { action: "ACCEPT" }],
    ["a missing action", { content: { a: "b" } }],
    ["an object content value", { action: "accept", content: { address: { street: "x" } } }],
    ["a null content value", { action: "accept", content: { a: null } }],
    ["a number[] content value", { action: "accept", content: { a: [1, 2] } }],
    ["a mixed array content value", { action: "accept", content: { a: ["x", 1] } }],
    ["content as array", { action: "accept", content: ["x"] }],
    ["content as string", { action: "accept", content: "octocat" }],
  ])("ElicitResult rejects %s", (_label, value) => {
    expectInvalid(ElicitResultSchema, value);
  });

  it("CreateMessageResult needs model, role and content", () => {
    expectValid(CreateMessageResultSchema, createMessageResult);
    expectValid(CreateMessageResultSchema, without(createMessageResult, "stopReason"));
    expectValid(CreateMessageResultSchema, {
      ...createMessageResult,
      stopReason: "provider_specific_reason",
    });
    expectValid(CreateMessageResultSchema, {
      role: "assistant",
      content: [{ type: "tool_use", id: "c1", name: "get_weather", input: { city: "Paris" } }],
      model: "m",
      stopReason: "toolUse",
    });
    expectInvalid(CreateMessageResultSchema, without(createMessageResult, "model"));
    expectInvalid(CreateMessageResultSchema, without(createMessageResult, "role"));
    expectInvalid(CreateMessageResultSchema, without(createMessageResult, "content"));
    expectInvalid(CreateMessageResultSchema, { ...createMessageResult, model: 3 });
    expectInvalid(CreateMessageResultSchema, { ...createMessageResult, stopReason: 1 });
  });

  it("ListRootsResult: roots array of { uri, name? }", () => {
    expectValid(ListRootsResultSchema, listRootsResult);
    expectValid(ListRootsResultSchema, { roots: [] });
    expectValid(RootSchema, { uri: "file:///a", _meta: {} });
    expectInvalid(ListRootsResultSchema, {});
    expectInvalid(ListRootsResultSchema, { roots: [{ name: "no uri" }] });
    expectInvalid(ListRootsResultSchema, { roots: "file:///a" });
    expectInvalid(RootSchema, { uri: "file:///a", name: 1 });
  });

  it("Root.uri must start with file://", () => {
    expectInvalid(RootSchema, { uri: "https://example.com/repo" });
  });

  it("InputResponseSchema accepts each answer kind and rejects a non-answer", () => {
    expectValid(InputResponseSchema, elicitResult);
    expectValid(InputResponseSchema, createMessageResult);
    expectValid(InputResponseSchema, listRootsResult);
    expectInvalid(InputResponseSchema, { resultType: "complete" });
    expectInvalid(InputResponseSchema, "accept");
  });

  it("InputResponsesSchema accepts the spec's InputResponses map; values must be objects", () => {
    expectValid(InputResponsesSchema, SPEC_RESPONSES);
    expectValid(InputResponsesSchema, {});
    expectValid(InputResponsesSchema, { unknown_key: { anything: true } });
    expectInvalid(InputResponsesSchema, { a: "accept" });
    expectInvalid(InputResponsesSchema, { a: null });
    expectInvalid(InputResponsesSchema, [elicitResult]);
  });

  it("InputResponseParamsSchema: both MRTR fields optional next to the required _meta", () => {
    expectValid(InputResponseParamsSchema, { _meta: META });
    expectValid(InputResponseParamsSchema, {
      _meta: META,
      inputResponses: SPEC_RESPONSES,
      requestState: "s",
    });
    expectInvalid(InputResponseParamsSchema, { inputResponses: SPEC_RESPONSES });
    expectInvalid(InputResponseParamsSchema, { _meta: META, requestState: 1 });
  });
});

describe("guards", () => {
  it("isInputRequiredResult: true for a typed result and for a plain wire mapping", () => {
    const typed: InputRequiredResult = InputRequiredResultSchema.parse(SPEC_EXAMPLE);
    expect(isInputRequiredResult(typed)).toBe(true);
    const wire: unknown = JSON.parse(JSON.stringify(SPEC_EXAMPLE));
    expect(isInputRequiredResult(wire)).toBe(true);
    expect(isInputRequiredResult({ resultType: "input_required", requestState: "s" })).toBe(true);
  });

  it("isInputRequiredResult discriminates on resultType only (field checks are the schema's job)", () => {
    expect(isInputRequiredResult({ resultType: "input_required" })).toBe(true);
  });

  it.each([
    ["a complete result", { resultType: "complete", content: [] }],
    ["a result without resultType", { requestState: "s", inputRequests: {} }],
    ["an extension result", { resultType: "task", taskId: "t" }],
    ["null", null],
    ["undefined", undefined],
    ["an array", [{ resultType: "input_required" }]],
    ["an array carrying resultType", Object.assign([], { resultType: "input_required" })],
    ["a string", "input_required"],
  ])("isInputRequiredResult is false for %s", (_label, value) => {
    expect(isInputRequiredResult(value)).toBe(false);
  });

  it("isInputRequiredResult narrows to InputRequiredResult", () => {
    const value: unknown = SPEC_EXAMPLE;
    if (isInputRequiredResult(value)) expectTypeOf(value).toEqualTypeOf<InputRequiredResult>();
  });

  it("isElicitResult / isCreateMessageResult / isListRootsResult recognise exactly their own kind", () => {
    const answers = { elicitResult, createMessageResult, listRootsResult };
    const guards = {
      elicitResult: isElicitResult,
      createMessageResult: isCreateMessageResult,
      listRootsResult: isListRootsResult,
    };
    for (const [answerName, answer] of Object.entries(answers)) {
      for (const [guardName, guard] of Object.entries(guards)) {
        expect(guard(answer), `${guardName}(${answerName})`).toBe(answerName === guardName);
      }
    }
  });

  it.each([[null], [undefined], [{}], [[]], ["accept"]])("answer guards are false for %j", (value) => {
    expect(isElicitResult(value)).toBe(false);
    expect(isCreateMessageResult(value)).toBe(false);
    expect(isListRootsResult(value)).toBe(false);
  });

  it("isElicitResult is false for an unknown action; isCreateMessageResult is false without model", () => {
    expect(isElicitResult({ action: "approve" })).toBe(false);
    expect(isCreateMessageResult(without(createMessageResult, "model"))).toBe(false);
    expect(isListRootsResult({ roots: [{}] })).toBe(false);
  });

  it("request guards recognise exactly their own embedded kind", () => {
    const cases: Array<
      [string, unknown, { elicit: boolean; url: boolean; sampling: boolean; roots: boolean }]
    > = [
      ["form", formRequest, { elicit: true, url: false, sampling: false, roots: false }],
      ["modeless form", modelessFormRequest, { elicit: true, url: false, sampling: false, roots: false }],
      ["url", urlRequest, { elicit: true, url: true, sampling: false, roots: false }],
      ["sampling", samplingRequest, { elicit: false, url: false, sampling: true, roots: false }],
      ["roots", rootsRequest, { elicit: false, url: false, sampling: false, roots: true }],
      [
        "roots with params",
        rootsRequestWithParams,
        { elicit: false, url: false, sampling: false, roots: true },
      ],
      ["nothing", { method: "ping" }, { elicit: false, url: false, sampling: false, roots: false }],
      ["null", null, { elicit: false, url: false, sampling: false, roots: false }],
    ];
    for (const [label, value, expected] of cases) {
      expect(isElicitRequest(value), `isElicitRequest(${label})`).toBe(expected.elicit);
      expect(isUrlElicitRequest(value), `isUrlElicitRequest(${label})`).toBe(expected.url);
      expect(isCreateMessageRequest(value), `isCreateMessageRequest(${label})`).toBe(expected.sampling);
      expect(isListRootsRequest(value), `isListRootsRequest(${label})`).toBe(expected.roots);
    }
  });

  it("isUrlElicitRequest is false for a url-mode request with an invalid URL", () => {
    expect(isUrlElicitRequest({ method: "elicitation/create", params: { ...urlParams, url: "nope" } })).toBe(
      false,
    );
  });

  it("isUrlElicitRequest narrows params to the URL shape", () => {
    const value: unknown = urlRequest;
    if (!isUrlElicitRequest(value)) throw new Error("expected a URL elicitation");
    expectTypeOf(value.params.url).toEqualTypeOf<string>();
    expect(value.params.url).toBe(urlParams.url);
  });
});

describe("method sets", () => {
  it("INPUT_REQUIRED_METHODS is exactly tools/call, prompts/get, resources/read", () => {
    expect(new Set(INPUT_REQUIRED_METHODS)).toEqual(new Set(["tools/call", "prompts/get", "resources/read"]));
    expect(INPUT_REQUIRED_METHODS.size).toBe(3);
  });

  it("CACHEABLE_METHODS is exactly the six cacheable methods", () => {
    expect(new Set(CACHEABLE_METHODS)).toEqual(
      new Set([
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
      ]),
    );
    expect(CACHEABLE_METHODS.size).toBe(6);
  });

  it("REMOVED_METHODS holds the methods the modern core dropped", () => {
    for (const method of ["initialize", "ping", "logging/setLevel"])
      expect(REMOVED_METHODS.has(method), method).toBe(true);
    expect(new Set(REMOVED_METHODS)).toEqual(
      new Set([
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/result",
        "tasks/list",
      ]),
    );
  });

  it("no removed method is a core method; every MRTR and cacheable method is one", () => {
    for (const method of REMOVED_METHODS) expect(isCoreMethod(method), method).toBe(false);
    for (const method of [...INPUT_REQUIRED_METHODS, ...CACHEABLE_METHODS])
      expect(isCoreMethod(method), method).toBe(true);
  });

  it("the embedded request methods are not client→server methods", () => {
    for (const method of ["elicitation/create", "sampling/createMessage", "roots/list"]) {
      expect(isCoreMethod(method), method).toBe(false);
      expect(Object.hasOwn(METHOD_SPECS, method)).toBe(false);
    }
  });
});
