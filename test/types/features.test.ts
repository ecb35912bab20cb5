import { describe, expect, it } from "vitest";
import {
  AnnotationsSchema,
  AudioContentSchema,
  BlobResourceContentsSchema,
  CallToolRequestParamsSchema,
  CallToolResultSchema,
  CancelledNotificationParamsSchema,
  CompleteRequestParamsSchema,
  CompleteResultSchema,
  ContentBlockSchema,
  DiscoverResultSchema,
  EmbeddedResourceSchema,
  GetPromptRequestParamsSchema,
  GetPromptResultSchema,
  ImageContentSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  LoggingMessageNotificationParamsSchema,
  PaginatedRequestParamsSchema,
  ProgressNotificationParamsSchema,
  PromptArgumentSchema,
  PromptMessageSchema,
  PromptReferenceSchema,
  PromptSchema,
  ReadResourceRequestParamsSchema,
  ReadResourceResultSchema,
  ResourceContentsSchema,
  ResourceLinkSchema,
  ResourceSchema,
  ResourceTemplateReferenceSchema,
  ResourceTemplateSchema,
  ResourceUpdatedNotificationParamsSchema,
  SamplingContentSchema,
  SubscriptionFilterSchema,
  SubscriptionsAcknowledgedNotificationParamsSchema,
  SubscriptionsListenRequestParamsSchema,
  TextContentSchema,
  TextResourceContentsSchema,
  ToolAnnotationsSchema,
  ToolInputSchemaSchema,
  ToolResultContentSchema,
  ToolSchema,
  ToolUseContentSchema,
} from "../../src/types/index.js";
import { expectInvalid, expectValid, META, PNG_BASE64, without } from "./helpers.js";

const text = { type: "text", text: "hello" } as const;
const image = { type: "image", data: PNG_BASE64, mimeType: "image/png" } as const;
const audio = { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" } as const;
const resourceLink = { type: "resource_link", uri: "file:///a.rs", name: "a.rs" } as const;
const embeddedText = { type: "resource", resource: { uri: "file:///a.txt", text: "hi" } } as const;
const embeddedBlob = { type: "resource", resource: { uri: "file:///a.png", blob: PNG_BASE64 } } as const;
const toolUse = { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } } as const;
const toolResult = { type: "tool_result", toolUseId: "call_1", content: [text] } as const;

const tool = {
  name: "get_weather",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
} as const;

describe("tools", () => {
  it("Tool: the minimal tool has a name and an object inputSchema", () => {
    expectValid(ToolSchema, { name: "t", inputSchema: { type: "object" } });
    expectValid(ToolSchema, tool);
  });

  it("Tool: accepts every optional field", () => {
    expectValid(ToolSchema, {
      ...tool,
      title: "Weather",
      description: "Get weather",
      outputSchema: { type: "object", properties: { t: { type: "number" } } },
      annotations: {
        title: "W",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      },
      icons: [{ src: "https://e.com/i.png" }],
      _meta: { "com.example/x": 1 },
    });
  });

  it("Tool: inputSchema may use any JSON Schema 2020-12 keyword next to type: object", () => {
    expectValid(ToolSchema, {
      name: "find",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        oneOf: [{ required: ["id"] }, { required: ["name"] }],
        $defs: { id: { type: "string" } },
        properties: { id: { $ref: "#/$defs/id" }, name: { type: "string", "x-mcp-header": "Name" } },
        additionalProperties: false,
      },
    });
  });

  it("Tool: outputSchema may be any schema, including an array schema", () => {
    expectValid(ToolSchema, { ...tool, outputSchema: { type: "array", items: { type: "string" } } });
  });

  it.each([
    ["missing inputSchema", without(tool, "inputSchema")],
    ["missing name", without(tool, "name")],
    ["inputSchema without type", { ...tool, inputSchema: { properties: {} } }],
    ['inputSchema type "array"', { ...tool, inputSchema: { type: "array" } }],
    ['inputSchema type "string"', { ...tool, inputSchema: { type: "string" } }],
    ['inputSchema type ["object","null"]', { ...tool, inputSchema: { type: ["object", "null"] } }],
    ["inputSchema as boolean schema", { ...tool, inputSchema: true }],
    ["inputSchema $schema not a string", { ...tool, inputSchema: { type: "object", $schema: 7 } }],
    ["outputSchema as array", { ...tool, outputSchema: [] }],
    ["annotations.readOnlyHint as string", { ...tool, annotations: { readOnlyHint: "yes" } }],
  ])("Tool rejects %s", (_label, value) => {
    expectInvalid(ToolSchema, value);
  });

  it("ToolInputSchemaSchema and ToolAnnotationsSchema on their own", () => {
    expectValid(ToolInputSchemaSchema, { type: "object" });
    expectInvalid(ToolInputSchemaSchema, {});
    expectValid(ToolAnnotationsSchema, {});
    expectInvalid(ToolAnnotationsSchema, { destructiveHint: 1 });
  });

  it("CallToolResult: needs a content array; structuredContent may be any JSON value", () => {
    expectValid(CallToolResultSchema, { resultType: "complete", content: [] });
    expectValid(CallToolResultSchema, {
      resultType: "complete",
      content: [text, image, audio],
      isError: true,
    });
    for (const structuredContent of [{ a: 1 }, [1, 2], "s", 3, true, null]) {
      expectValid(CallToolResultSchema, { resultType: "complete", content: [text], structuredContent });
    }
  });

  it.each([
    ["missing content", { resultType: "complete" }],
    ["content as object", { resultType: "complete", content: text }],
    ["content as string", { resultType: "complete", content: "hello" }],
    ["an invalid block", { resultType: "complete", content: [{ type: "text" }] }],
    ["a sampling-only block (tool_use)", { resultType: "complete", content: [toolUse] }],
    ["isError as string", { resultType: "complete", content: [], isError: "false" }],
  ])("CallToolResult rejects %s", (_label, value) => {
    expectInvalid(CallToolResultSchema, value);
  });

  it("CallToolRequestParams: name required, arguments an object, MRTR fields optional", () => {
    expectValid(CallToolRequestParamsSchema, { _meta: META, name: "t" });
    expectValid(CallToolRequestParamsSchema, { _meta: META, name: "t", arguments: { a: 1, b: [true] } });
    expectValid(CallToolRequestParamsSchema, {
      _meta: META,
      name: "t",
      inputResponses: { k: { action: "decline" } },
      requestState: "opaque",
    });
    expectInvalid(CallToolRequestParamsSchema, { _meta: META });
    expectInvalid(CallToolRequestParamsSchema, { name: "t" });
    expectInvalid(CallToolRequestParamsSchema, { _meta: META, name: "t", arguments: [1] });
    expectInvalid(CallToolRequestParamsSchema, { _meta: META, name: "t", requestState: 1 });
    expectInvalid(CallToolRequestParamsSchema, { _meta: META, name: "t", inputResponses: { k: "yes" } });
  });

  it("ListToolsResult: tools array, optional nextCursor and cache hints", () => {
    expectValid(ListToolsResultSchema, { resultType: "complete", tools: [] });
    expectValid(ListToolsResultSchema, {
      resultType: "complete",
      tools: [tool],
      nextCursor: "c",
      ttlMs: 300_000,
      cacheScope: "public",
    });
    expectInvalid(ListToolsResultSchema, { resultType: "complete" });
    expectInvalid(ListToolsResultSchema, { resultType: "complete", tools: [{ name: "no-schema" }] });
    expectInvalid(ListToolsResultSchema, {
      resultType: "complete",
      tools: [],
      ttlMs: -5,
      cacheScope: "public",
    });
    expectInvalid(ListToolsResultSchema, {
      resultType: "complete",
      tools: [],
      ttlMs: 5,
      cacheScope: "shared",
    });
  });

  it("PaginatedRequestParams: _meta required, cursor optional string", () => {
    expectValid(PaginatedRequestParamsSchema, { _meta: META });
    expectValid(PaginatedRequestParamsSchema, { _meta: META, cursor: "eyJwYWdlIjogMn0=" });
    expectInvalid(PaginatedRequestParamsSchema, { cursor: "c" });
    expectInvalid(PaginatedRequestParamsSchema, { _meta: META, cursor: 2 });
  });
});

describe("prompts", () => {
  const prompt = { name: "code_review", arguments: [{ name: "code", required: true }] };

  it("Prompt and PromptArgument", () => {
    expectValid(PromptSchema, { name: "p" });
    expectValid(PromptSchema, { ...prompt, title: "T", description: "d", icons: [{ src: "x" }], _meta: {} });
    expectInvalid(PromptSchema, { arguments: [] });
    expectInvalid(PromptSchema, { name: "p", arguments: [{ required: true }] });
    expectValid(PromptArgumentSchema, { name: "a", title: "A", description: "d", required: false });
    expectInvalid(PromptArgumentSchema, { name: "a", required: "yes" });
  });

  it("ListPromptsResult", () => {
    expectValid(ListPromptsResultSchema, {
      resultType: "complete",
      prompts: [prompt],
      ttlMs: 0,
      cacheScope: "private",
    });
    expectInvalid(ListPromptsResultSchema, { resultType: "complete" });
    expectInvalid(ListPromptsResultSchema, { resultType: "complete", prompts: [{}] });
  });

  it("GetPromptRequestParams: arguments is a string map only", () => {
    expectValid(GetPromptRequestParamsSchema, { _meta: META, name: "p" });
    expectValid(GetPromptRequestParamsSchema, { _meta: META, name: "p", arguments: { code: "x", lang: "" } });
    expectValid(GetPromptRequestParamsSchema, { _meta: META, name: "p", requestState: "s" });
    expectInvalid(GetPromptRequestParamsSchema, { _meta: META, name: "p", arguments: { n: 1 } });
    expectInvalid(GetPromptRequestParamsSchema, { _meta: META, name: "p", arguments: { b: true } });
    expectInvalid(GetPromptRequestParamsSchema, { _meta: META, name: "p", arguments: { o: { a: "b" } } });
    expectInvalid(GetPromptRequestParamsSchema, { _meta: META, name: "p", arguments: { n: null } });
    expectInvalid(GetPromptRequestParamsSchema, { _meta: META, name: "p", arguments: ["x"] });
    expectInvalid(GetPromptRequestParamsSchema, { _meta: META });
  });

  it("GetPromptResult and PromptMessage: one content block per message", () => {
    expectValid(GetPromptResultSchema, { resultType: "complete", messages: [] });
    expectValid(GetPromptResultSchema, {
      resultType: "complete",
      description: "d",
      messages: [
        { role: "user", content: text },
        { role: "assistant", content: embeddedText },
        { role: "user", content: resourceLink },
      ],
    });
    expectInvalid(GetPromptResultSchema, { resultType: "complete" });
    expectInvalid(PromptMessageSchema, { role: "system", content: text });
    expectInvalid(PromptMessageSchema, { role: "user", content: [text] });
    expectInvalid(PromptMessageSchema, { role: "user", content: toolUse });
  });
});

describe("resources", () => {
  const resource = { uri: "file:///README.md", name: "README.md" };

  it("Resource: uri and name required", () => {
    expectValid(ResourceSchema, resource);
    expectValid(ResourceSchema, {
      ...resource,
      title: "Readme",
      description: "d",
      mimeType: "text/markdown",
      size: 1024,
      annotations: { audience: ["user"], priority: 0.8, lastModified: "2025-01-12T15:00:58Z" },
      icons: [{ src: "https://e.com/i.png" }],
      _meta: {},
    });
    expectInvalid(ResourceSchema, { uri: "file:///x" });
    expectInvalid(ResourceSchema, { name: "x" });
    expectInvalid(ResourceSchema, { ...resource, size: "1kb" });
  });

  it("ResourceTemplate: uriTemplate and name required", () => {
    expectValid(ResourceTemplateSchema, { uriTemplate: "file:///{path}", name: "Project Files" });
    expectInvalid(ResourceTemplateSchema, { uriTemplate: "file:///{path}" });
    expectInvalid(ResourceTemplateSchema, { uri: "file:///{path}", name: "n" });
  });

  it("ListResourcesResult and ListResourceTemplatesResult", () => {
    expectValid(ListResourcesResultSchema, {
      resultType: "complete",
      resources: [resource],
      nextCursor: "n",
    });
    expectInvalid(ListResourcesResultSchema, { resultType: "complete" });
    expectValid(ListResourceTemplatesResultSchema, {
      resultType: "complete",
      resourceTemplates: [{ uriTemplate: "db://{table}", name: "t" }],
      ttlMs: 3_600_000,
      cacheScope: "public",
    });
    expectInvalid(ListResourceTemplatesResultSchema, {
      resultType: "complete",
      resourceTemplates: [resource],
    });
    expectInvalid(ListResourceTemplatesResultSchema, { resultType: "complete", resources: [] });
  });

  it("ReadResourceRequestParams: uri required", () => {
    expectValid(ReadResourceRequestParamsSchema, { _meta: META, uri: "file:///x" });
    expectValid(ReadResourceRequestParamsSchema, { _meta: META, uri: "file:///x", requestState: "s" });
    expectInvalid(ReadResourceRequestParamsSchema, { _meta: META });
    expectInvalid(ReadResourceRequestParamsSchema, { uri: "file:///x" });
  });

  it("ReadResourceResult: contents are text or blob resource contents", () => {
    expectValid(ReadResourceResultSchema, {
      resultType: "complete",
      contents: [
        { uri: "file:///a.rs", mimeType: "text/x-rust", text: "fn main() {}" },
        { uri: "file:///a.png", mimeType: "image/png", blob: PNG_BASE64 },
      ],
      ttlMs: 60_000,
      cacheScope: "private",
    });
    expectValid(ReadResourceResultSchema, { resultType: "complete", contents: [] });
  });

  it.each([
    ["missing contents", { resultType: "complete" }],
    ["an entry with neither text nor blob", { resultType: "complete", contents: [{ uri: "file:///a" }] }],
    ["an entry without uri", { resultType: "complete", contents: [{ text: "t" }] }],
    ["a blob that is not base64", { resultType: "complete", contents: [{ uri: "file:///a", blob: "%%%" }] }],
    ["a non-string text", { resultType: "complete", contents: [{ uri: "file:///a", text: 5 }] }],
    ["a content block instead of resource contents", { resultType: "complete", contents: [text] }],
    ["negative ttlMs", { resultType: "complete", contents: [], ttlMs: -1, cacheScope: "public" }],
  ])("ReadResourceResult rejects %s", (_label, value) => {
    expectInvalid(ReadResourceResultSchema, value);
  });

  it("TextResourceContents / BlobResourceContents / ResourceContents", () => {
    expectValid(TextResourceContentsSchema, { uri: "u", text: "" });
    expectInvalid(TextResourceContentsSchema, { uri: "u", blob: PNG_BASE64 });
    expectValid(BlobResourceContentsSchema, { uri: "u", blob: PNG_BASE64 });
    expectInvalid(BlobResourceContentsSchema, { uri: "u", blob: "not base64!" });
    expectInvalid(BlobResourceContentsSchema, { uri: "u", text: "t" });
    expectValid(ResourceContentsSchema, { uri: "u", text: "t" });
    expectValid(ResourceContentsSchema, { uri: "u", blob: PNG_BASE64 });
    expectInvalid(ResourceContentsSchema, { uri: "u" });
  });

  it("ResourceUpdatedNotificationParams: uri required", () => {
    expectValid(ResourceUpdatedNotificationParamsSchema, { uri: "file:///a" });
    expectValid(ResourceUpdatedNotificationParamsSchema, {
      uri: "file:///a",
      _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" },
    });
    expectInvalid(ResourceUpdatedNotificationParamsSchema, {});
    expectInvalid(ResourceUpdatedNotificationParamsSchema, { uri: 1 });
  });
});

describe("completion", () => {
  const params = {
    _meta: META,
    ref: { type: "ref/prompt", name: "code_review" },
    argument: { name: "l", value: "py" },
  };

  it("CompleteRequestParams: prompt and resource refs, optional context", () => {
    expectValid(CompleteRequestParamsSchema, params);
    expectValid(CompleteRequestParamsSchema, {
      ...params,
      ref: { type: "ref/resource", uri: "file:///{path}" },
    });
    expectValid(CompleteRequestParamsSchema, { ...params, context: { arguments: { language: "python" } } });
    expectValid(CompleteRequestParamsSchema, { ...params, context: {} });
  });

  it.each([
    ["an unknown ref kind", { ...params, ref: { type: "ref/tool", name: "x" } }],
    ["ref/prompt without name", { ...params, ref: { type: "ref/prompt" } }],
    ["ref/resource without uri", { ...params, ref: { type: "ref/resource", name: "x" } }],
    ["ref without type", { ...params, ref: { name: "x" } }],
    ["missing argument", without(params, "argument")],
    ["argument without value", { ...params, argument: { name: "l" } }],
    ["numeric argument value", { ...params, argument: { name: "l", value: 1 } }],
    ["non-string context argument", { ...params, context: { arguments: { a: 1 } } }],
    ["missing _meta", without(params, "_meta")],
  ])("CompleteRequestParams rejects %s", (_label, value) => {
    expectInvalid(CompleteRequestParamsSchema, value);
  });

  it("PromptReference / ResourceTemplateReference", () => {
    expectValid(PromptReferenceSchema, { type: "ref/prompt", name: "p", title: "P" });
    expectInvalid(PromptReferenceSchema, { type: "ref/resource", name: "p" });
    expectValid(ResourceTemplateReferenceSchema, { type: "ref/resource", uri: "db://{t}" });
    expectInvalid(ResourceTemplateReferenceSchema, { type: "ref/resource" });
  });

  it("CompleteResult: at most 100 values; total an integer; hasMore a boolean", () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    expectValid(CompleteResultSchema, { resultType: "complete", completion: { values: [] } });
    expectValid(CompleteResultSchema, {
      resultType: "complete",
      completion: { values: values(100), total: 500 },
    });
    expectValid(CompleteResultSchema, {
      resultType: "complete",
      completion: { values: ["a"], hasMore: true },
    });
    expectInvalid(CompleteResultSchema, { resultType: "complete", completion: { values: values(101) } });
    expectInvalid(CompleteResultSchema, { resultType: "complete", completion: { values: [1] } });
    expectInvalid(CompleteResultSchema, { resultType: "complete", completion: { values: [], total: 1.5 } });
    expectInvalid(CompleteResultSchema, {
      resultType: "complete",
      completion: { values: [], hasMore: "no" },
    });
    expectInvalid(CompleteResultSchema, { resultType: "complete", completion: {} });
    expectInvalid(CompleteResultSchema, { resultType: "complete" });
  });
});

describe("server/discover", () => {
  const discover = {
    resultType: "complete",
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: {}, resources: {} },
    instructions: "Prefer get_weather.",
    ttlMs: 3_600_000,
    cacheScope: "public",
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "ExampleServer", version: "1.0.0" } },
  } as const;

  it("accepts the spec example and a minimal result", () => {
    expectValid(DiscoverResultSchema, discover);
    expectValid(DiscoverResultSchema, {
      resultType: "complete",
      supportedVersions: ["2026-07-28", "2025-11-25"],
      capabilities: {},
      ttlMs: 0,
      cacheScope: "private",
    });
  });

  it("has no top-level serverInfo field (identity travels in _meta)", () => {
    expect(Object.keys(DiscoverResultSchema.shape)).not.toContain("serverInfo");
  });

  it("tolerates missing cache hints (a missing ttlMs reads as 0)", () => {
    expectValid(DiscoverResultSchema, without(discover, "ttlMs", "cacheScope"));
  });

  it.each([
    ["missing supportedVersions", without(discover, "supportedVersions")],
    ["missing capabilities", without(discover, "capabilities")],
    ["supportedVersions as string", { ...discover, supportedVersions: "2026-07-28" }],
    ["a non-string version", { ...discover, supportedVersions: [20260728] }],
    ["capabilities as array", { ...discover, capabilities: [] }],
    ["malformed capabilities", { ...discover, capabilities: { tools: { listChanged: "y" } } }],
    ["negative ttlMs", { ...discover, ttlMs: -1 }],
    ["float ttlMs", { ...discover, ttlMs: 1000.5 }],
    ["string ttlMs", { ...discover, ttlMs: "1000" }],
    ["unknown cacheScope", { ...discover, cacheScope: "shared" }],
    ["non-string instructions", { ...discover, instructions: 1 }],
  ])("rejects %s", (_label, value) => {
    expectInvalid(DiscoverResultSchema, value);
  });

  it("reads a malformed serverInfo stamp as absent rather than rejecting the result", () => {
    const parsed = DiscoverResultSchema.safeParse({
      ...discover,
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "s" } },
    });
    expect(parsed.success).toBe(true);
    expect(parsed.data?._meta?.["io.modelcontextprotocol/serverInfo"]).toBeUndefined();
  });
});

describe("notifications", () => {
  it("ProgressNotificationParams", () => {
    expectValid(ProgressNotificationParamsSchema, { progressToken: "t", progress: 50 });
    expectValid(ProgressNotificationParamsSchema, {
      progressToken: 3,
      progress: 0.5,
      total: 1,
      message: "half",
    });
    expectInvalid(ProgressNotificationParamsSchema, { progress: 1 });
    expectInvalid(ProgressNotificationParamsSchema, { progressToken: "t" });
    expectInvalid(ProgressNotificationParamsSchema, { progressToken: 1.5, progress: 1 });
    expectInvalid(ProgressNotificationParamsSchema, { progressToken: "t", progress: "1" });
    expectInvalid(ProgressNotificationParamsSchema, { progressToken: "t", progress: 1, total: "2" });
    expectInvalid(ProgressNotificationParamsSchema, { progressToken: "t", progress: 1, message: 3 });
  });

  it.each(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])(
    "LoggingMessageNotificationParams accepts level %s",
    (level) => {
      expectValid(LoggingMessageNotificationParamsSchema, { level, data: "msg" });
    },
  );

  it("LoggingMessageNotificationParams: data may be any JSON value; level and logger are checked", () => {
    for (const data of ["s", 1, { error: "x" }, [1], null, false]) {
      expectValid(LoggingMessageNotificationParamsSchema, { level: "info", logger: "db", data });
    }
    expectInvalid(LoggingMessageNotificationParamsSchema, { level: "verbose", data: "x" });
    expectInvalid(LoggingMessageNotificationParamsSchema, { level: "ERROR", data: "x" });
    expectInvalid(LoggingMessageNotificationParamsSchema, { data: "x" });
    expectInvalid(LoggingMessageNotificationParamsSchema, { level: "info", logger: 1, data: "x" });
  });

  // schema.ts declares `data: unknown;` (required). With the locked zod (4.6.7) a `z.unknown()` key is required at
  // runtime; an older zod install treated it as optional, so this pins the behaviour against the dependency.
  it("LoggingMessageNotificationParams requires data", () => {
    expectInvalid(LoggingMessageNotificationParamsSchema, { level: "info" });
  });

  it("CancelledNotificationParams requires requestId (string or integer); reason optional", () => {
    expectValid(CancelledNotificationParamsSchema, { requestId: "123" });
    expectValid(CancelledNotificationParamsSchema, { requestId: 7, reason: "User requested cancellation" });
    expectInvalid(CancelledNotificationParamsSchema, {});
    expectInvalid(CancelledNotificationParamsSchema, { reason: "r" });
    expectInvalid(CancelledNotificationParamsSchema, { requestId: null });
    expectInvalid(CancelledNotificationParamsSchema, { requestId: 1.5 });
    expectInvalid(CancelledNotificationParamsSchema, { requestId: "1", reason: 5 });
  });

  it("SubscriptionFilter / SubscriptionsListenRequestParams / acknowledged params", () => {
    const filter = {
      toolsListChanged: true,
      promptsListChanged: false,
      resourcesListChanged: true,
      resourceSubscriptions: ["file:///project/config.json"],
    };
    expectValid(SubscriptionFilterSchema, {});
    expectValid(SubscriptionFilterSchema, filter);
    expectValid(SubscriptionFilterSchema, { taskIds: ["t1"] });
    expectInvalid(SubscriptionFilterSchema, { toolsListChanged: "yes" });
    expectInvalid(SubscriptionFilterSchema, { resourceSubscriptions: "file:///a" });
    expectInvalid(SubscriptionFilterSchema, { resourceSubscriptions: [1] });

    expectValid(SubscriptionsListenRequestParamsSchema, { _meta: META, notifications: filter });
    expectInvalid(SubscriptionsListenRequestParamsSchema, { _meta: META });
    expectInvalid(SubscriptionsListenRequestParamsSchema, { notifications: filter });

    expectValid(SubscriptionsAcknowledgedNotificationParamsSchema, {
      _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" },
      notifications: { toolsListChanged: true },
    });
    expectInvalid(SubscriptionsAcknowledgedNotificationParamsSchema, {});
  });
});

describe("content blocks", () => {
  it.each([
    ["text", text],
    [
      "text with annotations and _meta",
      { ...text, annotations: { audience: ["user"], priority: 1 }, _meta: {} },
    ],
    ["image", image],
    ["audio", audio],
    ["resource_link", resourceLink],
    [
      "resource_link with every field",
      { ...resourceLink, title: "t", description: "d", mimeType: "m", size: 3 },
    ],
    ["embedded text resource", embeddedText],
    ["embedded blob resource", embeddedBlob],
  ])("ContentBlock accepts %s", (_label, block) => {
    expectValid(ContentBlockSchema, block);
  });

  it.each([
    ["an unknown type", { type: "video", data: PNG_BASE64, mimeType: "video/mp4" }],
    ["a missing type", { text: "hello" }],
    ["text without text", { type: "text" }],
    ["text with a numeric text", { type: "text", text: 5 }],
    ["image without data", { type: "image", mimeType: "image/png" }],
    ["image without mimeType", { type: "image", data: PNG_BASE64 }],
    ["image with non-base64 data", { ...image, data: "this is not base64!" }],
    ["image with a data: URL instead of base64", { ...image, data: `data:image/png;base64,${PNG_BASE64}` }],
    ["audio with non-base64 data", { ...audio, data: "~~~" }],
    ["resource_link without name", { type: "resource_link", uri: "file:///a" }],
    ["resource_link without uri", { type: "resource_link", name: "a" }],
    ["resource without resource", { type: "resource" }],
    ["resource with neither text nor blob", { type: "resource", resource: { uri: "file:///a" } }],
    ["tool_use (sampling only)", toolUse],
    ["tool_result (sampling only)", toolResult],
    ["annotations.priority above 1", { ...text, annotations: { priority: 1.5 } }],
    ["annotations.priority below 0", { ...text, annotations: { priority: -0.1 } }],
    ['annotations.audience "system"', { ...text, annotations: { audience: ["system"] } }],
  ])("ContentBlock rejects %s", (_label, block) => {
    expectInvalid(ContentBlockSchema, block);
  });

  it("each block schema accepts only its own type", () => {
    expectValid(TextContentSchema, text);
    expectInvalid(TextContentSchema, image);
    expectValid(ImageContentSchema, image);
    expectInvalid(ImageContentSchema, audio);
    expectValid(AudioContentSchema, audio);
    expectInvalid(AudioContentSchema, image);
    expectValid(ResourceLinkSchema, resourceLink);
    expectInvalid(ResourceLinkSchema, embeddedText);
    expectValid(EmbeddedResourceSchema, embeddedBlob);
    expectInvalid(EmbeddedResourceSchema, resourceLink);
  });

  it("Annotations", () => {
    expectValid(AnnotationsSchema, {});
    expectValid(AnnotationsSchema, {
      audience: ["user", "assistant"],
      priority: 0,
      lastModified: "2025-05-03T14:30:00Z",
    });
    expectInvalid(AnnotationsSchema, { priority: "high" });
    expectInvalid(AnnotationsSchema, { audience: "user" });
  });
});

describe("sampling content", () => {
  it.each([
    ["text", text],
    ["image", image],
    ["audio", audio],
    ["tool_use", toolUse],
    ["tool_use with _meta", { ...toolUse, _meta: { "com.example/cache": "x" } }],
    ["tool_result", toolResult],
    [
      "tool_result with structuredContent and isError",
      { ...toolResult, structuredContent: [1], isError: true },
    ],
    [
      "tool_result carrying every ContentBlock kind",
      { ...toolResult, content: [text, image, audio, resourceLink, embeddedText] },
    ],
  ])("SamplingContent accepts %s", (_label, block) => {
    expectValid(SamplingContentSchema, block);
  });

  it.each([
    ["resource_link (not a sampling block)", resourceLink],
    ["embedded resource (not a sampling block)", embeddedText],
    ["an unknown type", { type: "thinking", text: "hmm" }],
    ["tool_use without id", { type: "tool_use", name: "n", input: {} }],
    ["tool_use without name", { type: "tool_use", id: "i", input: {} }],
    ["tool_use with non-object input", { ...toolUse, input: "Paris" }],
    ["tool_use with array input", { ...toolUse, input: ["Paris"] }],
    ["tool_result without toolUseId", { type: "tool_result", content: [] }],
    ["tool_result without content", { type: "tool_result", toolUseId: "c" }],
    ["tool_result with a nested tool_use", { ...toolResult, content: [toolUse] }],
    ["tool_result with isError as string", { ...toolResult, isError: "true" }],
  ])("SamplingContent rejects %s", (_label, block) => {
    expectInvalid(SamplingContentSchema, block);
  });

  it("ToolUseContent / ToolResultContent on their own", () => {
    expectValid(ToolUseContentSchema, toolUse);
    expectInvalid(ToolUseContentSchema, toolResult);
    expectValid(ToolResultContentSchema, toolResult);
    expectInvalid(ToolResultContentSchema, toolUse);
  });
});
