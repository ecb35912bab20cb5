import * as z from "zod";
import { JSONObjectSchema, MetaObjectSchema, RoleSchema } from "./common.js";
import { SamplingContentSchema } from "./content.js";
import { RequestParamsSchema } from "./meta.js";
import { ResultBaseSchema } from "./result.js";

// ---- elicitation/create ----------------------------------------------------------------

const described = { title: z.string().optional(), description: z.string().optional() };

/**
 * A plain string property of a form elicitation. Enum-shaped keys are refused here, so that a
 * malformed enum never passes as a free-text field.
 */
export const StringSchemaSchema = z
  .looseObject({
    type: z.literal("string"),
    ...described,
    minLength: z.int().min(0).optional(),
    maxLength: z.int().min(0).optional(),
    format: z.enum(["email", "uri", "date", "date-time"]).optional(),
    default: z.string().optional(),
  })
  .refine((schema) => !("enum" in schema) && !("oneOf" in schema) && !("enumNames" in schema), {
    message: "A malformed enum property",
  });
/** A number or integer property of a form elicitation, with optional bounds and default. */
export const NumberSchemaSchema = z.looseObject({
  type: z.enum(["number", "integer"]),
  ...described,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
});
/** A boolean property of a form elicitation, with an optional default. */
export const BooleanSchemaSchema = z.looseObject({
  type: z.literal("boolean"),
  ...described,
  default: z.boolean().optional(),
});
const TitledOptionSchema = z.looseObject({ const: z.string(), title: z.string() });
/**
 * A single-choice property of a form elicitation: `enum` values (titles in `enumNames`) or titled `oneOf`
 * options.
 */
export const SingleSelectEnumSchemaSchema = z.union([
  z.looseObject({
    type: z.literal("string"),
    ...described,
    enum: z.array(z.string()),
    enumNames: z.array(z.string()).optional(),
    default: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal("string"),
    ...described,
    oneOf: z.array(TitledOptionSchema),
    default: z.string().optional(),
  }),
]);
/**
 * A multiple-choice property of a form elicitation: an array of `enum` values or of titled `anyOf` options.
 */
export const MultiSelectEnumSchemaSchema = z.looseObject({
  type: z.literal("array"),
  ...described,
  minItems: z.int().min(0).optional(),
  maxItems: z.int().min(0).optional(),
  items: z.union([
    z.looseObject({ type: z.literal("string"), enum: z.array(z.string()) }),
    z.looseObject({ anyOf: z.array(TitledOptionSchema) }),
  ]),
  default: z.array(z.string()).optional(),
});

/** One flat property of a form elicitation's `requestedSchema`. */
export const PrimitiveSchemaDefinitionSchema = z.union([
  SingleSelectEnumSchemaSchema,
  StringSchemaSchema,
  NumberSchemaSchema,
  BooleanSchemaSchema,
  MultiSelectEnumSchemaSchema,
]);
/** One flat property of a form elicitation's `requestedSchema`. */
export type PrimitiveSchemaDefinition = z.infer<typeof PrimitiveSchemaDefinitionSchema>;

/** The zod schema of {@link RequestedSchema}. */
export const RequestedSchemaSchema = z.looseObject({
  $schema: z.string().optional(),
  type: z.literal("object"),
  properties: z.record(z.string(), PrimitiveSchemaDefinitionSchema),
  required: z.array(z.string()).optional(),
});
/** What a form elicitation asks for: a flat object schema whose properties are primitives. */
export type RequestedSchema = z.infer<typeof RequestedSchemaSchema>;

/** The zod schema of {@link ElicitRequestFormParams}. */
export const ElicitRequestFormParamsSchema = z.looseObject({
  mode: z.literal("form").optional(),
  message: z.string(),
  requestedSchema: RequestedSchemaSchema,
  _meta: MetaObjectSchema.optional(),
});
/** Params of a form elicitation: the `message` to show and the `requestedSchema` of the answer. */
export type ElicitRequestFormParams = z.infer<typeof ElicitRequestFormParamsSchema>;

/**
 * A URL as the user is shown it and a browser opens it: no URI holds whitespace or a control
 * character (RFC 3986), and the URL parser silently trims the ends and drops every tab and newline,
 * so "https://bank.example\n.evil.example" would open another host than the one it shows. Checked
 * before the URL format, which rewrites the value it passes on.
 */
const OpenableUrlSchema = z
  .string()
  .refine((url) => !/[\s\p{Cc}]/u.test(url), { message: "a URL without whitespace or control characters" })
  .url();

/**
 * The zod schema of {@link ElicitRequestURLParams}. The `url` may hold no whitespace or control character.
 */
export const ElicitRequestURLParamsSchema = z.looseObject({
  mode: z.literal("url"),
  message: z.string(),
  url: OpenableUrlSchema,
  _meta: MetaObjectSchema.optional(),
});
/** Params of a URL elicitation: the `message` to show and the `url` to send the user to. */
export type ElicitRequestURLParams = z.infer<typeof ElicitRequestURLParamsSchema>;

/** The zod schema of {@link ElicitRequestParams}. */
export const ElicitRequestParamsSchema = z.union([
  ElicitRequestURLParamsSchema,
  ElicitRequestFormParamsSchema,
]);
/** Params of `elicitation/create`: a form or a URL elicitation. */
export type ElicitRequestParams = z.infer<typeof ElicitRequestParamsSchema>;

/** The zod schema of {@link ElicitRequest}. */
export const ElicitRequestSchema = z.looseObject({
  method: z.literal("elicitation/create"),
  params: ElicitRequestParamsSchema,
});
/** An `elicitation/create` request as embedded in `inputRequests` (no `jsonrpc`, no `id`). */
export type ElicitRequest = z.infer<typeof ElicitRequestSchema>;

/** The zod schema of {@link ElicitResult}. */
export const ElicitResultSchema = z.looseObject({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
    .optional(),
  _meta: MetaObjectSchema.optional(),
});
/** The answer to an elicitation: `accept` (with the form's `content`), `decline` or `cancel`. */
export type ElicitResult = z.infer<typeof ElicitResultSchema>;

// ---- sampling/createMessage ------------------------------------------------------------

/** The zod schema of {@link SamplingMessage}. */
export const SamplingMessageSchema = z.looseObject({
  role: RoleSchema,
  content: z.union([SamplingContentSchema, z.array(SamplingContentSchema)]),
  _meta: MetaObjectSchema.optional(),
});
/** One message of a sampling conversation: a role and one or more content blocks. */
export type SamplingMessage = z.infer<typeof SamplingMessageSchema>;

const unitInterval = z.number().min(0).max(1);
/** The zod schema of {@link ModelPreferences}. */
export const ModelPreferencesSchema = z.looseObject({
  hints: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  costPriority: unitInterval.optional(),
  speedPriority: unitInterval.optional(),
  intelligencePriority: unitInterval.optional(),
});
/**
 * The model a sampling request prefers: name `hints` and cost, speed and intelligence priorities (0 to 1).
 */
export type ModelPreferences = z.infer<typeof ModelPreferencesSchema>;

/** A tool offered to the model in a sampling request (same shape as a listed tool). */
const SamplingToolSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.looseObject({ type: z.literal("object") }),
});

/** The zod schema of {@link CreateMessageRequestParams}. */
export const CreateMessageRequestParamsSchema = z.looseObject({
  messages: z.array(SamplingMessageSchema),
  modelPreferences: ModelPreferencesSchema.optional(),
  systemPrompt: z.string().optional(),
  includeContext: z.enum(["none", "thisServer", "allServers"]).optional(),
  temperature: z.number().optional(),
  maxTokens: z.int(),
  stopSequences: z.array(z.string()).optional(),
  metadata: JSONObjectSchema.optional(),
  tools: z.array(SamplingToolSchema).optional(),
  toolChoice: z.looseObject({ mode: z.enum(["auto", "required", "none"]).optional() }).optional(),
  _meta: MetaObjectSchema.optional(),
});
/**
 * Params of `sampling/createMessage`: the `messages`, `maxTokens`, and optional preferences, system prompt
 * and tools.
 */
export type CreateMessageRequestParams = z.infer<typeof CreateMessageRequestParamsSchema>;

/** The zod schema of {@link CreateMessageRequest}. */
export const CreateMessageRequestSchema = z.looseObject({
  method: z.literal("sampling/createMessage"),
  params: CreateMessageRequestParamsSchema,
});
/** A `sampling/createMessage` request as embedded in `inputRequests` (no `jsonrpc`, no `id`). */
export type CreateMessageRequest = z.infer<typeof CreateMessageRequestSchema>;

/** The zod schema of {@link CreateMessageResult}. */
export const CreateMessageResultSchema = SamplingMessageSchema.extend({
  model: z.string(),
  stopReason: z.string().optional(),
});
/** The answer to a sampling request: the model's message, the `model` that wrote it and its `stopReason`. */
export type CreateMessageResult = z.infer<typeof CreateMessageResultSchema>;

// ---- roots/list ------------------------------------------------------------------------

/** The zod schema of {@link Root}. */
export const RootSchema = z.looseObject({
  uri: z.string().startsWith("file://"),
  name: z.string().optional(),
  _meta: MetaObjectSchema.optional(),
});
/** A root the client exposes to servers: a `file://` URI and an optional name. */
export type Root = z.infer<typeof RootSchema>;

/** The zod schema of {@link ListRootsRequest}. */
export const ListRootsRequestSchema = z.looseObject({
  method: z.literal("roots/list"),
  params: z.looseObject({ _meta: MetaObjectSchema.optional() }).optional(),
});
/** A `roots/list` request as embedded in `inputRequests` (no `jsonrpc`, no `id`). */
export type ListRootsRequest = z.infer<typeof ListRootsRequestSchema>;

/** The zod schema of {@link ListRootsResult}. */
export const ListRootsResultSchema = z.looseObject({
  roots: z.array(RootSchema),
  _meta: MetaObjectSchema.optional(),
});
/** The answer to `roots/list`: the client's roots. */
export type ListRootsResult = z.infer<typeof ListRootsResultSchema>;

// ---- InputRequiredResult ---------------------------------------------------------------

/** One embedded request inside `inputRequests` (no `jsonrpc`, no `id`). */
export const InputRequestSchema = z.discriminatedUnion("method", [
  ElicitRequestSchema,
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
]);
/** One embedded request inside `inputRequests` (no `jsonrpc`, no `id`). */
export type InputRequest = z.infer<typeof InputRequestSchema>;

/** One answer inside `inputResponses`. */
export const InputResponseSchema = z.union([
  ElicitResultSchema,
  CreateMessageResultSchema,
  ListRootsResultSchema,
]);
/** One answer inside `inputResponses`. */
export type InputResponse = z.infer<typeof InputResponseSchema>;

/** The zod schema of {@link InputRequests}. */
export const InputRequestsSchema = z.record(z.string(), InputRequestSchema);
/** The `inputRequests` of an `input_required` result: embedded requests, each answered under its key. */
export type InputRequests = z.infer<typeof InputRequestsSchema>;

/**
 * Answers as they arrive on a retry. Each must be an object; which shape it has is checked by
 * whoever asked (unknown keys are ignored, per the spec).
 */
export const InputResponsesSchema = z.record(z.string(), JSONObjectSchema);
/** The `inputResponses` of a retry: answers under the keys of the `inputRequests` they answer. */
export type InputResponses = Record<string, InputResponse>;

/** Params of the three methods that may answer `input_required`. */
export const InputResponseParamsSchema = RequestParamsSchema.extend({
  inputResponses: InputResponsesSchema.optional(),
  requestState: z.string().optional(),
});

/**
 * The zod schema of {@link InputRequiredResult}. It needs a non-empty `inputRequests` or a `requestState`.
 */
export const InputRequiredResultSchema = ResultBaseSchema.extend({
  resultType: z.literal("input_required"),
  inputRequests: InputRequestsSchema.optional(),
  requestState: z.string().optional(),
}).refine(
  (result) =>
    (result.inputRequests !== undefined && Object.keys(result.inputRequests).length > 0) ||
    result.requestState !== undefined,
  { message: "An InputRequiredResult needs a non-empty inputRequests or a requestState" },
);
/**
 * A result that asks the client for input before the server can finish: `inputRequests` to answer
 * and/or a `requestState` to send back, unchanged, on the retry.
 */
export type InputRequiredResult = z.infer<typeof InputRequiredResultSchema>;
