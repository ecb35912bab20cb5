/**
 * Every JSON example published with the 2026-07-28 schema (test/types/fixtures/spec-examples/<TypeName>/*.json)
 * must parse with the schema we map its type to. The mapping has to cover every folder present: a new
 * folder that is neither mapped, an error folder, nor listed in UNMAPPED fails the suite.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ZodType, z } from "zod";
import {
  AudioContentSchema,
  BlobResourceContentsSchema,
  BooleanSchemaSchema,
  CacheHintsSchema,
  CancelledNotificationParamsSchema,
  ClientCapabilitiesSchema,
  CreateMessageRequestParamsSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestFormParamsSchema,
  ElicitRequestSchema,
  ElicitRequestURLParamsSchema,
  ElicitResultSchema,
  EmbeddedResourceSchema,
  ErrorCode,
  ErrorObjectSchema,
  ImageContentSchema,
  InputRequestsSchema,
  InputRequiredResultSchema,
  InputResponseSchema,
  InputResponsesSchema,
  isCoreMethod,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  LoggingMessageNotificationParamsSchema,
  McpError,
  METHOD_SPECS,
  MetaKey,
  type MethodName,
  ModelPreferencesSchema,
  MultiSelectEnumSchemaSchema,
  NotificationMetaSchema,
  NotificationMethod,
  NumberSchemaSchema,
  PrimitiveSchemaDefinitionSchema,
  ProgressNotificationParamsSchema,
  RequestIdSchema,
  ResourceLinkSchema,
  ResourceSchema,
  ResourceUpdatedNotificationParamsSchema,
  RootSchema,
  SamplingMessageSchema,
  ServerCapabilitiesSchema,
  SingleSelectEnumSchemaSchema,
  StringSchemaSchema,
  SubscriptionsAcknowledgedNotificationParamsSchema,
  TextContentSchema,
  TextResourceContentsSchema,
  ToolResultContentSchema,
  ToolSchema,
  ToolUseContentSchema,
} from "../../src/types/index.js";

const FIXTURE_ROOT = fileURLToPath(new URL("./fixtures/spec-examples/", import.meta.url));

/** The 2026-07-28 release ships 129 example files in 88 type folders; fewer means the fixtures are incomplete. */
const MIN_FOLDERS = 88;
const MIN_FILES = 129;

// ---- schema builders for wire envelopes -------------------------------------------------------------

/** A full JSON-RPC request for a core method, with that method's params schema from METHOD_SPECS. */
function request(method: MethodName): ZodType {
  return JSONRPCRequestSchema.extend({
    method: z.literal(method),
    params: METHOD_SPECS[method].params,
  }).refine(isJSONRPCRequest, "not a JSON-RPC request");
}

/** A full JSON-RPC result response for a core method; MRTR methods may also answer input_required. */
function response(method: MethodName): ZodType {
  const result = METHOD_SPECS[method].inputRequired
    ? z.union([METHOD_SPECS[method].result, InputRequiredResultSchema])
    : METHOD_SPECS[method].result;
  return z
    .looseObject({ jsonrpc: z.literal("2.0"), id: RequestIdSchema, result })
    .refine(isJSONRPCResultResponse, "not a result response");
}

/** A full JSON-RPC notification (no id) with the given method and params. */
function notification(method: string, params: ZodType): ZodType {
  return JSONRPCNotificationSchema.extend({ method: z.literal(method), params }).refine(
    isJSONRPCNotification,
    "a notification must not carry an id",
  );
}

/** `params?: NotificationParams` of the list-changed notifications. */
const ListChangedParamsSchema = z.looseObject({ _meta: NotificationMetaSchema.optional() }).optional();

/** SubscriptionsListenResult: `_meta["io.modelcontextprotocol/subscriptionId"]` is required (schema.ts). */
const ListenCloseMetaSchema = z.looseObject({
  _meta: z.looseObject({ [MetaKey.SubscriptionId]: RequestIdSchema }),
});

// ---- folder → schema(s) -------------------------------------------------------------------------------

/** Each fixture must satisfy every schema listed for its folder. */
const FIXTURE_SCHEMAS: Readonly<Record<string, ZodType | readonly ZodType[]>> = {
  // content
  AudioContent: AudioContentSchema,
  ImageContent: ImageContentSchema,
  TextContent: TextContentSchema,
  ResourceLink: ResourceLinkSchema,
  EmbeddedResource: EmbeddedResourceSchema,
  TextResourceContents: TextResourceContentsSchema,
  BlobResourceContents: BlobResourceContentsSchema,
  ToolUseContent: ToolUseContentSchema,
  ToolResultContent: ToolResultContentSchema,

  // capabilities
  ClientCapabilities: ClientCapabilitiesSchema,
  ServerCapabilities: ServerCapabilitiesSchema,

  // server/discover
  DiscoverRequest: request("server/discover"),
  DiscoverResult: [METHOD_SPECS["server/discover"].result, CacheHintsSchema],
  DiscoverResultResponse: response("server/discover"),

  // tools
  Tool: ToolSchema,
  ListToolsRequest: request("tools/list"),
  ListToolsResult: [METHOD_SPECS["tools/list"].result, CacheHintsSchema],
  ListToolsResultResponse: response("tools/list"),
  CallToolRequest: request("tools/call"),
  CallToolRequestParams: METHOD_SPECS["tools/call"].params,
  CallToolResult: METHOD_SPECS["tools/call"].result,
  CallToolResultResponse: response("tools/call"),
  ToolListChangedNotification: notification(NotificationMethod.ToolsListChanged, ListChangedParamsSchema),

  // prompts
  ListPromptsRequest: request("prompts/list"),
  ListPromptsResult: [METHOD_SPECS["prompts/list"].result, CacheHintsSchema],
  ListPromptsResultResponse: response("prompts/list"),
  GetPromptRequest: request("prompts/get"),
  GetPromptRequestParams: METHOD_SPECS["prompts/get"].params,
  GetPromptResult: METHOD_SPECS["prompts/get"].result,
  GetPromptResultResponse: response("prompts/get"),
  PromptListChangedNotification: notification(NotificationMethod.PromptsListChanged, ListChangedParamsSchema),

  // resources
  Resource: ResourceSchema,
  ListResourcesRequest: request("resources/list"),
  ListResourcesResult: [METHOD_SPECS["resources/list"].result, CacheHintsSchema],
  ListResourcesResultResponse: response("resources/list"),
  ListResourceTemplatesRequest: request("resources/templates/list"),
  ListResourceTemplatesResult: [METHOD_SPECS["resources/templates/list"].result, CacheHintsSchema],
  ListResourceTemplatesResultResponse: response("resources/templates/list"),
  ReadResourceRequest: request("resources/read"),
  ReadResourceResult: [METHOD_SPECS["resources/read"].result, CacheHintsSchema],
  // One upstream response example omits the cache hints, so only the lenient as-received schema applies.
  ReadResourceResultResponse: response("resources/read"),
  ResourceListChangedNotification: notification(
    NotificationMethod.ResourcesListChanged,
    ListChangedParamsSchema,
  ),
  ResourceUpdatedNotification: notification(
    NotificationMethod.ResourcesUpdated,
    ResourceUpdatedNotificationParamsSchema,
  ),
  ResourceUpdatedNotificationParams: ResourceUpdatedNotificationParamsSchema,

  // pagination
  PaginatedRequestParams: METHOD_SPECS["tools/list"].params,

  // completion
  CompleteRequest: request("completion/complete"),
  CompleteRequestParams: METHOD_SPECS["completion/complete"].params,
  CompleteResult: METHOD_SPECS["completion/complete"].result,
  CompleteResultResponse: response("completion/complete"),

  // subscriptions/listen
  SubscriptionsListenRequest: request("subscriptions/listen"),
  SubscriptionsListenResult: [METHOD_SPECS["subscriptions/listen"].result, ListenCloseMetaSchema],
  SubscriptionsListenResultResponse: [
    response("subscriptions/listen"),
    z.looseObject({ result: ListenCloseMetaSchema }),
  ],
  SubscriptionsAcknowledgedNotification: notification(
    NotificationMethod.SubscriptionsAcknowledged,
    SubscriptionsAcknowledgedNotificationParamsSchema,
  ),

  // notifications
  CancelledNotification: notification(NotificationMethod.Cancelled, CancelledNotificationParamsSchema),
  CancelledNotificationParams: CancelledNotificationParamsSchema,
  ProgressNotification: notification(NotificationMethod.Progress, ProgressNotificationParamsSchema),
  ProgressNotificationParams: ProgressNotificationParamsSchema,
  LoggingMessageNotification: notification(
    NotificationMethod.Message,
    LoggingMessageNotificationParamsSchema,
  ),
  LoggingMessageNotificationParams: LoggingMessageNotificationParamsSchema,

  // MRTR
  InputRequiredResult: InputRequiredResultSchema,
  InputRequests: InputRequestsSchema,
  // src's InputResponsesSchema is deliberately lenient (object values); each value must still be a known answer.
  InputResponses: [InputResponsesSchema, z.record(z.string(), InputResponseSchema)],

  // embedded elicitation/create
  ElicitRequest: ElicitRequestSchema,
  ElicitRequestFormParams: ElicitRequestFormParamsSchema,
  ElicitRequestURLParams: ElicitRequestURLParamsSchema,
  ElicitResult: ElicitResultSchema,
  StringSchema: [StringSchemaSchema, PrimitiveSchemaDefinitionSchema],
  NumberSchema: [NumberSchemaSchema, PrimitiveSchemaDefinitionSchema],
  BooleanSchema: [BooleanSchemaSchema, PrimitiveSchemaDefinitionSchema],
  UntitledSingleSelectEnumSchema: [SingleSelectEnumSchemaSchema, PrimitiveSchemaDefinitionSchema],
  TitledSingleSelectEnumSchema: [SingleSelectEnumSchemaSchema, PrimitiveSchemaDefinitionSchema],
  LegacyTitledEnumSchema: [SingleSelectEnumSchemaSchema, PrimitiveSchemaDefinitionSchema],
  UntitledMultiSelectEnumSchema: [MultiSelectEnumSchemaSchema, PrimitiveSchemaDefinitionSchema],
  TitledMultiSelectEnumSchema: [MultiSelectEnumSchemaSchema, PrimitiveSchemaDefinitionSchema],

  // embedded sampling/createMessage
  CreateMessageRequest: CreateMessageRequestSchema,
  CreateMessageRequestParams: CreateMessageRequestParamsSchema,
  CreateMessageResult: CreateMessageResultSchema,
  SamplingMessage: SamplingMessageSchema,
  ModelPreferences: ModelPreferencesSchema,

  // embedded roots/list
  ListRootsRequest: ListRootsRequestSchema,
  ListRootsResult: ListRootsResultSchema,
  Root: RootSchema,
};

/**
 * `*Error` folders. schema.ts defines ParseError, InvalidRequestError, MethodNotFoundError, InvalidParamsError
 * and InternalError as `extends Error` (the bare error member), and the three MCP errors as
 * `extends JSONRPCErrorResponse` (the whole response). src has no schema for the MCP error `data` shapes, so
 * they are spelled out here from schema.ts.
 */
const ERROR_FOLDERS: Readonly<Record<string, { code: number; form: "object" | "response"; data?: ZodType }>> =
  {
    ParseError: { code: ErrorCode.ParseError, form: "object" },
    InvalidRequestError: { code: ErrorCode.InvalidRequest, form: "object" },
    MethodNotFoundError: { code: ErrorCode.MethodNotFound, form: "object" },
    InvalidParamsError: { code: ErrorCode.InvalidParams, form: "object" },
    InternalError: { code: ErrorCode.InternalError, form: "object" },
    HeaderMismatchError: { code: ErrorCode.HeaderMismatch, form: "response" },
    MissingRequiredClientCapabilityError: {
      code: ErrorCode.MissingRequiredClientCapability,
      form: "response",
      data: z.looseObject({ requiredCapabilities: ClientCapabilitiesSchema }),
    },
    UnsupportedProtocolVersionError: {
      code: ErrorCode.UnsupportedProtocolVersion,
      form: "response",
      data: z.looseObject({ supported: z.array(z.string()), requested: z.string() }),
    },
  };

/**
 * Folders we deliberately do not validate, each with the reason. Every folder of the 2026-07-28 release
 * currently has a schema, so this is empty; add `{ folder, reason }` here rather than to the mapping when a
 * type has no counterpart in src/types.
 */
const UNMAPPED: ReadonlyArray<{ folder: string; reason: string }> = [];

// ---- loading ------------------------------------------------------------------------------------------

type Fixture = { folder: string; file: string; path: string };

function listFolders(): string[] {
  if (!existsSync(FIXTURE_ROOT)) return [];
  return readdirSync(FIXTURE_ROOT)
    .filter((name) => statSync(join(FIXTURE_ROOT, name)).isDirectory())
    .sort();
}

function listFixtures(folders: readonly string[]): Fixture[] {
  return folders.flatMap((folder) =>
    readdirSync(join(FIXTURE_ROOT, folder))
      .filter((file) => file.endsWith(".json"))
      .sort()
      .map((file) => ({ folder, file, path: join(FIXTURE_ROOT, folder, file) })),
  );
}

function isSchemaList(entry: ZodType | readonly ZodType[]): entry is readonly ZodType[] {
  return Array.isArray(entry);
}

/** The schemas a folder's fixtures must all satisfy (empty when the folder is not mapped). */
function schemasFor(folder: string): readonly ZodType[] {
  const entry = FIXTURE_SCHEMAS[folder];
  if (entry === undefined) return [];
  return isSchemaList(entry) ? entry : [entry];
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

function assertParses(schema: ZodType, value: unknown, label: string): void {
  const result = schema.safeParse(value);
  expect(result.success, result.success ? label : `${label}\n${z.prettifyError(result.error)}`).toBe(true);
}

const folders = listFolders();
const fixtures = listFixtures(folders);
const unmappedFolders = new Set(UNMAPPED.map((entry) => entry.folder));

describe("spec example fixtures", () => {
  it(`the fixture folder exists and holds at least ${MIN_FOLDERS} type folders and ${MIN_FILES} files`, () => {
    expect(existsSync(FIXTURE_ROOT), `missing ${FIXTURE_ROOT}`).toBe(true);
    expect(folders.length).toBeGreaterThanOrEqual(MIN_FOLDERS);
    expect(fixtures.length).toBeGreaterThanOrEqual(MIN_FILES);
  });

  it("every type folder holds at least one JSON file", () => {
    const counts = new Map(folders.map((folder) => [folder, 0]));
    for (const fixture of fixtures) counts.set(fixture.folder, (counts.get(fixture.folder) ?? 0) + 1);
    expect([...counts].filter(([, count]) => count === 0).map(([folder]) => folder)).toEqual([]);
  });

  it("every folder present is mapped to a schema, is an error folder, or is listed in UNMAPPED", () => {
    const uncovered = folders.filter(
      (folder) =>
        !Object.hasOwn(FIXTURE_SCHEMAS, folder) &&
        !Object.hasOwn(ERROR_FOLDERS, folder) &&
        !unmappedFolders.has(folder),
    );
    expect(uncovered).toEqual([]);
  });

  it("every *Error folder has an entry in ERROR_FOLDERS (validated as an error, not a plain schema)", () => {
    const errorFolders = folders.filter((folder) => folder.endsWith("Error"));
    expect(errorFolders.filter((folder) => !Object.hasOwn(ERROR_FOLDERS, folder))).toEqual([]);
    expect(errorFolders.filter((folder) => Object.hasOwn(FIXTURE_SCHEMAS, folder))).toEqual([]);
  });

  it("UNMAPPED entries have a reason and are not also mapped", () => {
    for (const { folder, reason } of UNMAPPED) {
      expect(reason.trim().length, folder).toBeGreaterThan(0);
      expect(Object.hasOwn(FIXTURE_SCHEMAS, folder) || Object.hasOwn(ERROR_FOLDERS, folder), folder).toBe(
        false,
      );
    }
  });

  it("every request fixture names a core method; no notification fixture carries an id", () => {
    for (const fixture of fixtures) {
      const value = readJson(fixture.path);
      if (fixture.folder.endsWith("Request") && isJSONRPCRequest(value)) {
        expect(isCoreMethod(value.method), `${fixture.folder}/${fixture.file}: ${value.method}`).toBe(true);
      }
      if (fixture.folder.endsWith("Notification")) {
        expect(isJSONRPCNotification(value), `${fixture.folder}/${fixture.file}`).toBe(true);
      }
    }
  });

  const mapped = fixtures.filter((fixture) => Object.hasOwn(FIXTURE_SCHEMAS, fixture.folder));
  if (mapped.length > 0) {
    it.each(mapped.map((fixture) => [`${fixture.folder}/${fixture.file}`, fixture] as const))(
      "%s parses",
      (label, fixture) => {
        const value = readJson(fixture.path);
        const list = schemasFor(fixture.folder);
        expect(list.length).toBeGreaterThan(0);
        for (const schema of list) assertParses(schema, value, label);
      },
    );
  }

  const errors = fixtures.filter((fixture) => Object.hasOwn(ERROR_FOLDERS, fixture.folder));
  if (errors.length > 0) {
    it.each(errors.map((fixture) => [`${fixture.folder}/${fixture.file}`, fixture] as const))(
      "%s is a JSON-RPC error with the right code",
      (label, fixture) => {
        const spec = ERROR_FOLDERS[fixture.folder];
        if (spec === undefined) throw new Error(`no ERROR_FOLDERS entry for ${fixture.folder}`);
        const value = readJson(fixture.path);
        const wire = spec.form === "response" ? value : { jsonrpc: "2.0", id: 1, error: value };
        assertParses(JSONRPCErrorResponseSchema, wire, label);
        expect(isJSONRPCErrorResponse(wire), label).toBe(true);
        const error = JSONRPCErrorResponseSchema.parse(wire).error;
        assertParses(ErrorObjectSchema, error, label);
        expect(error.code, label).toBe(spec.code);
        if (spec.data !== undefined) assertParses(spec.data, error.data, `${label} data`);
        expect(McpError.fromErrorObject(error).toErrorObject()).toEqual(error);
      },
    );
  }
});
