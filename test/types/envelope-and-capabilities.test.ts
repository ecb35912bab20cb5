import { describe, expect, it } from "vitest";
import {
  CacheableResultSchema,
  CacheHintsSchema,
  CacheScopeSchema,
  ClientCapabilitiesSchema,
  CursorSchema,
  EmptyResultSchema,
  IconSchema,
  ImplementationSchema,
  JSONObjectSchema,
  LOGGING_LEVEL_ORDER,
  LoggingLevelSchema,
  MetaKey,
  MetaObjectSchema,
  NotificationMetaSchema,
  PaginatedResultSchema,
  ProgressTokenSchema,
  RequestMetaSchema,
  RequestParamsSchema,
  ResultBaseSchema,
  ResultMetaSchema,
  ResultType,
  RoleSchema,
  ServerCapabilitiesSchema,
} from "../../src/types/index.js";
import { expectInvalid, expectValid, META, without } from "./helpers.js";

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
const CLIENT_INFO = { name: "ExampleClient", version: "1.0.0" };

describe("MetaKey", () => {
  it("holds exactly the reserved _meta keys of 2026-07-28", () => {
    expect(MetaKey).toEqual({
      ProtocolVersion: "io.modelcontextprotocol/protocolVersion",
      ClientCapabilities: "io.modelcontextprotocol/clientCapabilities",
      ClientInfo: "io.modelcontextprotocol/clientInfo",
      LogLevel: "io.modelcontextprotocol/logLevel",
      ServerInfo: "io.modelcontextprotocol/serverInfo",
      SubscriptionId: "io.modelcontextprotocol/subscriptionId",
      ProgressToken: "progressToken",
      TraceParent: "traceparent",
      TraceState: "tracestate",
      Baggage: "baggage",
    });
  });

  it("prefixes every key except progressToken and the OpenTelemetry keys with io.modelcontextprotocol/", () => {
    const unprefixed = new Set(["progressToken", "traceparent", "tracestate", "baggage"]);
    for (const key of Object.values(MetaKey)) {
      if (!unprefixed.has(key)) expect(key.startsWith("io.modelcontextprotocol/"), key).toBe(true);
    }
  });
});

describe("RequestMetaSchema", () => {
  it("accepts the two required keys alone (clientInfo is optional since PR #3002)", () => {
    expectValid(RequestMetaSchema, META);
  });

  it("accepts every optional key at once", () => {
    expectValid(RequestMetaSchema, {
      ...META,
      [MetaKey.ClientInfo]: {
        ...CLIENT_INFO,
        title: "Example",
        description: "d",
        websiteUrl: "https://e.com",
      },
      [MetaKey.LogLevel]: "warning",
      [MetaKey.ProgressToken]: "tok-1",
      [MetaKey.TraceParent]: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
      [MetaKey.TraceState]: "rojo=00f067aa0ba902b7",
      [MetaKey.Baggage]: "userId=alice",
    });
  });

  it("keeps unknown and vendor-prefixed keys (loose)", () => {
    const parsed = RequestMetaSchema.parse({ ...META, "com.example/trace": { a: 1 } });
    expect(parsed["com.example/trace"]).toEqual({ a: 1 });
  });

  it("accepts any protocolVersion string (version support is checked elsewhere, answered with -32022)", () => {
    expectValid(RequestMetaSchema, { ...META, [MetaKey.ProtocolVersion]: "1900-01-01" });
  });

  it.each([
    ["missing protocolVersion", without(META, MetaKey.ProtocolVersion)],
    ["missing clientCapabilities", without(META, MetaKey.ClientCapabilities)],
    ["protocolVersion as number", { ...META, [MetaKey.ProtocolVersion]: 20260728 }],
    ["protocolVersion null", { ...META, [MetaKey.ProtocolVersion]: null }],
    ["capabilities as string", { ...META, [MetaKey.ClientCapabilities]: "all" }],
    ["capabilities as array", { ...META, [MetaKey.ClientCapabilities]: [] }],
    ["capabilities null", { ...META, [MetaKey.ClientCapabilities]: null }],
    ["capabilities as boolean", { ...META, [MetaKey.ClientCapabilities]: true }],
    ["clientInfo without version", { ...META, [MetaKey.ClientInfo]: { name: "c" } }],
    ["clientInfo without name", { ...META, [MetaKey.ClientInfo]: { version: "1" } }],
    ["clientInfo with numeric version", { ...META, [MetaKey.ClientInfo]: { name: "c", version: 1 } }],
    ["clientInfo as string", { ...META, [MetaKey.ClientInfo]: "client/1.0" }],
    ["unknown log level", { ...META, [MetaKey.LogLevel]: "verbose" }],
    ["upper-case log level", { ...META, [MetaKey.LogLevel]: "INFO" }],
    ['"warn" instead of "warning"', { ...META, [MetaKey.LogLevel]: "warn" }],
    ["float progressToken", { ...META, [MetaKey.ProgressToken]: 1.5 }],
    ["boolean progressToken", { ...META, [MetaKey.ProgressToken]: true }],
    ["null progressToken", { ...META, [MetaKey.ProgressToken]: null }],
    ["object progressToken", { ...META, [MetaKey.ProgressToken]: {} }],
    ["non-string traceparent", { ...META, [MetaKey.TraceParent]: 1 }],
    ["non-string tracestate", { ...META, [MetaKey.TraceState]: {} }],
    ["non-string baggage", { ...META, [MetaKey.Baggage]: ["a=b"] }],
  ])("rejects %s", (_label, meta) => {
    expectInvalid(RequestMetaSchema, meta);
  });

  it.each(LEVELS.map((level) => [level]))("accepts logLevel %s", (level) => {
    expectValid(RequestMetaSchema, { ...META, [MetaKey.LogLevel]: level });
  });

  it.each([["abc"], [""], [0], [7], [-3]])("accepts progressToken %j (string or integer)", (token) => {
    expectValid(RequestMetaSchema, { ...META, [MetaKey.ProgressToken]: token });
  });

  it.each([[null], [[]], ["_meta"], [1]])("rejects a non-object _meta %j", (meta) => {
    expectInvalid(RequestMetaSchema, meta);
  });
});

describe("RequestParamsSchema", () => {
  it("requires _meta on every request's params", () => {
    expectValid(RequestParamsSchema, { _meta: META });
    expectInvalid(RequestParamsSchema, {});
    expectInvalid(RequestParamsSchema, { _meta: {} });
    expectInvalid(RequestParamsSchema, { _meta: without(META, MetaKey.ClientCapabilities) });
  });

  it("keeps method-specific params next to _meta (loose)", () => {
    expect(RequestParamsSchema.parse({ _meta: META, name: "x" })).toMatchObject({ name: "x" });
  });
});

describe("ClientCapabilitiesSchema", () => {
  it.each([
    ["no capabilities", {}],
    ["roots (no listChanged sub-field any more)", { roots: {} }],
    ["sampling baseline", { sampling: {} }],
    ["sampling with context and tools", { sampling: { context: {}, tools: {} } }],
    ["elicitation {} (form-only, back-compat)", { elicitation: {} }],
    ["elicitation form and url", { elicitation: { form: {}, url: {} } }],
    ["elicitation url only", { elicitation: { url: {} } }],
    ["experimental", { experimental: { "x-feature": { level: 2 } } }],
    [
      "extensions",
      { extensions: { "io.modelcontextprotocol/tasks": {}, "com.example/ui": { mimeTypes: ["a"] } } },
    ],
    ["an unknown capability (not a closed set)", { "com.example/custom": { on: true } }],
    [
      "everything",
      {
        experimental: {},
        roots: {},
        sampling: { context: {}, tools: {} },
        elicitation: { form: {}, url: {} },
        extensions: {},
      },
    ],
  ])("accepts %s", (_label, capabilities) => {
    expectValid(ClientCapabilitiesSchema, capabilities);
  });

  it.each([
    ["an array", []],
    ["null", null],
    ["a string", "elicitation"],
    ["roots: true", { roots: true }],
    ["roots as array", { roots: [] }],
    ["sampling: true", { sampling: true }],
    ["sampling.tools: true", { sampling: { tools: true } }],
    ["sampling.context as string", { sampling: { context: "all" } }],
    ["elicitation: true", { elicitation: true }],
    ["elicitation.form: true", { elicitation: { form: true } }],
    ["elicitation.url as array", { elicitation: { url: [] } }],
    ["experimental value not an object", { experimental: { x: true } }],
    ["experimental as array", { experimental: [] }],
    ["extension value not an object", { extensions: { "io.modelcontextprotocol/tasks": true } }],
    ["extensions as array", { extensions: ["io.modelcontextprotocol/tasks"] }],
  ])("rejects %s", (_label, capabilities) => {
    expectInvalid(ClientCapabilitiesSchema, capabilities);
  });
});

describe("ServerCapabilitiesSchema", () => {
  it.each([
    ["no capabilities", {}],
    ["tools baseline", { tools: {} }],
    ["tools.listChanged", { tools: { listChanged: true } }],
    ["prompts.listChanged false", { prompts: { listChanged: false } }],
    ["resources subscribe and listChanged", { resources: { subscribe: true, listChanged: true } }],
    ["logging (deprecated) and completions", { logging: {}, completions: {} }],
    ["extensions", { extensions: { "io.modelcontextprotocol/tasks": {} } }],
    ["experimental", { experimental: { foo: {} } }],
    ["an unknown capability", { "com.example/x": {} }],
  ])("accepts %s", (_label, capabilities) => {
    expectValid(ServerCapabilitiesSchema, capabilities);
  });

  it.each([
    ["an array", []],
    ["null", null],
    ['tools.listChanged "yes"', { tools: { listChanged: "yes" } }],
    ["tools: true", { tools: true }],
    ["prompts.listChanged as number", { prompts: { listChanged: 1 } }],
    ["resources.subscribe as string", { resources: { subscribe: "true" } }],
    ["logging: true", { logging: true }],
    ["completions as array", { completions: [] }],
    ["extension value not an object", { extensions: { "io.modelcontextprotocol/tasks": 1 } }],
    ["experimental value not an object", { experimental: { foo: "bar" } }],
  ])("rejects %s", (_label, capabilities) => {
    expectInvalid(ServerCapabilitiesSchema, capabilities);
  });
});

describe("ResultMetaSchema and NotificationMetaSchema", () => {
  it("accepts an empty result _meta and serverInfo", () => {
    expectValid(ResultMetaSchema, {});
    expectValid(ResultMetaSchema, { [MetaKey.ServerInfo]: { name: "ExampleServer", version: "1.0.0" } });
  });

  it("accepts subscriptionId as string or integer", () => {
    expectValid(ResultMetaSchema, { [MetaKey.SubscriptionId]: "listen-1" });
    expectValid(ResultMetaSchema, { [MetaKey.SubscriptionId]: 7 });
    expectValid(NotificationMetaSchema, { [MetaKey.SubscriptionId]: "listen-1" });
    expectValid(NotificationMetaSchema, { [MetaKey.SubscriptionId]: 7 });
    expectValid(NotificationMetaSchema, {});
  });

  it.each([
    ["serverInfo without version", { [MetaKey.ServerInfo]: { name: "s" } }],
    ["serverInfo without name", { [MetaKey.ServerInfo]: { version: "1" } }],
    ["serverInfo as string", { [MetaKey.ServerInfo]: "server/1.0" }],
  ])("ResultMetaSchema reads a malformed %s as absent (display-only stamp)", (_label, meta) => {
    const parsed = ResultMetaSchema.safeParse(meta);
    expect(parsed.success).toBe(true);
    expect(parsed.data?.[MetaKey.ServerInfo]).toBeUndefined();
  });

  it.each([
    ["float subscriptionId", { [MetaKey.SubscriptionId]: 1.5 }],
    ["boolean subscriptionId", { [MetaKey.SubscriptionId]: true }],
  ])("ResultMetaSchema rejects %s", (_label, meta) => {
    expectInvalid(ResultMetaSchema, meta);
  });

  it("NotificationMetaSchema rejects a non-id subscriptionId", () => {
    expectInvalid(NotificationMetaSchema, { [MetaKey.SubscriptionId]: null });
    expectInvalid(NotificationMetaSchema, { [MetaKey.SubscriptionId]: 0.5 });
  });

  it("keeps vendor keys in result _meta", () => {
    expect(ResultMetaSchema.parse({ "com.example/x": 1 })).toEqual({ "com.example/x": 1 });
  });
});

describe("Implementation and Icon", () => {
  it("accepts name + version, and every optional field", () => {
    expectValid(ImplementationSchema, CLIENT_INFO);
    expectValid(ImplementationSchema, {
      ...CLIENT_INFO,
      title: "Example",
      description: "An example",
      websiteUrl: "https://example.com",
      icons: [
        { src: "https://example.com/i.png", mimeType: "image/png", sizes: ["48x48", "any"], theme: "dark" },
      ],
    });
  });

  it("rejects missing name or version and malformed icons", () => {
    expectInvalid(ImplementationSchema, { name: "x" });
    expectInvalid(ImplementationSchema, { version: "1" });
    expectInvalid(ImplementationSchema, { ...CLIENT_INFO, icons: [{}] });
    expectInvalid(ImplementationSchema, { ...CLIENT_INFO, icons: "https://e.com/i.png" });
  });

  it("Icon: src required; theme is light or dark; sizes is a string array", () => {
    expectValid(IconSchema, { src: "data:image/png;base64,AAAA" });
    expectValid(IconSchema, { src: "https://e.com/i.svg", theme: "light" });
    expectInvalid(IconSchema, { mimeType: "image/png" });
    expectInvalid(IconSchema, { src: "https://e.com/i.svg", theme: "blue" });
    expectInvalid(IconSchema, { src: "https://e.com/i.svg", sizes: "48x48" });
    expectInvalid(IconSchema, { src: "https://e.com/i.svg", sizes: [48] });
  });
});

describe("common primitives", () => {
  it("LoggingLevelSchema has the eight syslog levels in increasing severity", () => {
    expect(LoggingLevelSchema.options).toEqual([...LEVELS]);
    expect(LOGGING_LEVEL_ORDER).toEqual([...LEVELS]);
  });

  it("RoleSchema is user | assistant", () => {
    expect(RoleSchema.options).toEqual(["user", "assistant"]);
    expectInvalid(RoleSchema, "system");
  });

  it("ProgressTokenSchema is string | integer", () => {
    expectValid(ProgressTokenSchema, "t");
    expectValid(ProgressTokenSchema, 3);
    expectInvalid(ProgressTokenSchema, 3.1);
    expectInvalid(ProgressTokenSchema, null);
  });

  it("CursorSchema is a string", () => {
    expectValid(CursorSchema, "eyJwYWdlIjogMn0=");
    expectInvalid(CursorSchema, 2);
  });

  it("JSONObjectSchema / MetaObjectSchema accept objects only", () => {
    for (const schema of [JSONObjectSchema, MetaObjectSchema]) {
      expectValid(schema, {});
      expectValid(schema, { a: [1, { b: null }] });
      expectInvalid(schema, []);
      expectInvalid(schema, null);
      expectInvalid(schema, "x");
    }
  });
});

describe("result base and cache hints", () => {
  it("ResultType holds the two core discriminators", () => {
    expect(ResultType).toEqual({ Complete: "complete", InputRequired: "input_required" });
  });

  it("ResultBaseSchema: resultType optional (legacy reads as complete), any string (extensions add values)", () => {
    expectValid(ResultBaseSchema, {});
    expectValid(ResultBaseSchema, { resultType: "complete" });
    expectValid(ResultBaseSchema, { resultType: "task" });
    expectInvalid(ResultBaseSchema, { resultType: 1 });
    expectInvalid(ResultBaseSchema, { resultType: null });
  });

  it("ResultBaseSchema validates result _meta", () => {
    expectValid(ResultBaseSchema, { resultType: "complete", _meta: { [MetaKey.ServerInfo]: CLIENT_INFO } });
    expectValid(ResultBaseSchema, { resultType: "complete", _meta: { [MetaKey.ServerInfo]: { name: "x" } } });
    expectInvalid(ResultBaseSchema, { resultType: "complete", _meta: [] });
  });

  it("EmptyResultSchema accepts an empty complete result", () => {
    expectValid(EmptyResultSchema, { resultType: "complete" });
  });

  it("CacheScopeSchema is public | private", () => {
    expect(CacheScopeSchema.options).toEqual(["public", "private"]);
  });

  it("CacheHintsSchema (what servers emit): both fields required, ttlMs a non-negative integer", () => {
    expectValid(CacheHintsSchema, { ttlMs: 0, cacheScope: "private" });
    expectValid(CacheHintsSchema, { ttlMs: 3_600_000, cacheScope: "public" });
    expectInvalid(CacheHintsSchema, { ttlMs: 0 });
    expectInvalid(CacheHintsSchema, { cacheScope: "public" });
    expectInvalid(CacheHintsSchema, { ttlMs: -1, cacheScope: "public" });
    expectInvalid(CacheHintsSchema, { ttlMs: 1.5, cacheScope: "public" });
    expectInvalid(CacheHintsSchema, { ttlMs: "60", cacheScope: "public" });
    expectInvalid(CacheHintsSchema, { ttlMs: 0, cacheScope: "shared" });
  });

  it("CacheableResultSchema / PaginatedResultSchema (as received): hints optional so legacy results parse", () => {
    for (const schema of [CacheableResultSchema, PaginatedResultSchema]) {
      expectValid(schema, { resultType: "complete" });
      expectValid(schema, { resultType: "complete", ttlMs: 0, cacheScope: "public" });
      expectInvalid(schema, { resultType: "complete", ttlMs: -1, cacheScope: "public" });
      expectInvalid(schema, { resultType: "complete", ttlMs: 0.5, cacheScope: "public" });
      expectInvalid(schema, { resultType: "complete", ttlMs: 10, cacheScope: "PUBLIC" });
    }
    expectValid(PaginatedResultSchema, { resultType: "complete", nextCursor: "c" });
    expectInvalid(PaginatedResultSchema, { resultType: "complete", nextCursor: 2 });
  });
});
