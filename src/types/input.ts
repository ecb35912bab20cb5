import * as z from "zod";
import { JSONObjectSchema, MetaObjectSchema, RoleSchema } from "./common.js";
import { SamplingContentSchema } from "./content.js";
import { RequestParamsSchema } from "./meta.js";
import { ResultBaseSchema } from "./result.js";

// ---- elicitation/create ----------------------------------------------------------------

const described = { title: z.string().optional(), description: z.string().optional() };

// A plain string property: enum-shaped keys are refused here so that a malformed enum never
// passes as a free-text field.
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
export const NumberSchemaSchema = z.looseObject({
  type: z.enum(["number", "integer"]),
  ...described,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
});
export const BooleanSchemaSchema = z.looseObject({
  type: z.literal("boolean"),
  ...described,
  default: z.boolean().optional(),
});
const TitledOptionSchema = z.looseObject({ const: z.string(), title: z.string() });
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
export type PrimitiveSchemaDefinition = z.infer<typeof PrimitiveSchemaDefinitionSchema>;

export const RequestedSchemaSchema = z.looseObject({
  $schema: z.string().optional(),
  type: z.literal("object"),
  properties: z.record(z.string(), PrimitiveSchemaDefinitionSchema),
  required: z.array(z.string()).optional(),
});
export type RequestedSchema = z.infer<typeof RequestedSchemaSchema>;

export const ElicitRequestFormParamsSchema = z.looseObject({
  mode: z.literal("form").optional(),
  message: z.string(),
  requestedSchema: RequestedSchemaSchema,
  _meta: MetaObjectSchema.optional(),
});
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

export const ElicitRequestURLParamsSchema = z.looseObject({
  mode: z.literal("url"),
  message: z.string(),
  url: OpenableUrlSchema,
  _meta: MetaObjectSchema.optional(),
});
export type ElicitRequestURLParams = z.infer<typeof ElicitRequestURLParamsSchema>;

export const ElicitRequestParamsSchema = z.union([
  ElicitRequestURLParamsSchema,
  ElicitRequestFormParamsSchema,
]);
export type ElicitRequestParams = z.infer<typeof ElicitRequestParamsSchema>;

export const ElicitRequestSchema = z.looseObject({
  method: z.literal("elicitation/create"),
  params: ElicitRequestParamsSchema,
});
export type ElicitRequest = z.infer<typeof ElicitRequestSchema>;

export const ElicitResultSchema = z.looseObject({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
    .optional(),
  _meta: MetaObjectSchema.optional(),
});
export type ElicitResult = z.infer<typeof ElicitResultSchema>;

// ---- sampling/createMessage ------------------------------------------------------------

export const SamplingMessageSchema = z.looseObject({
  role: RoleSchema,
  content: z.union([SamplingContentSchema, z.array(SamplingContentSchema)]),
  _meta: MetaObjectSchema.optional(),
});
export type SamplingMessage = z.infer<typeof SamplingMessageSchema>;

const unitInterval = z.number().min(0).max(1);
export const ModelPreferencesSchema = z.looseObject({
  hints: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  costPriority: unitInterval.optional(),
  speedPriority: unitInterval.optional(),
  intelligencePriority: unitInterval.optional(),
});
export type ModelPreferences = z.infer<typeof ModelPreferencesSchema>;

/** A tool offered to the model in a sampling request (same shape as a listed tool). */
const SamplingToolSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.looseObject({ type: z.literal("object") }),
});

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
export type CreateMessageRequestParams = z.infer<typeof CreateMessageRequestParamsSchema>;

export const CreateMessageRequestSchema = z.looseObject({
  method: z.literal("sampling/createMessage"),
  params: CreateMessageRequestParamsSchema,
});
export type CreateMessageRequest = z.infer<typeof CreateMessageRequestSchema>;

export const CreateMessageResultSchema = SamplingMessageSchema.extend({
  model: z.string(),
  stopReason: z.string().optional(),
});
export type CreateMessageResult = z.infer<typeof CreateMessageResultSchema>;

// ---- roots/list ------------------------------------------------------------------------

export const RootSchema = z.looseObject({
  uri: z.string().startsWith("file://"),
  name: z.string().optional(),
  _meta: MetaObjectSchema.optional(),
});
export type Root = z.infer<typeof RootSchema>;

export const ListRootsRequestSchema = z.looseObject({
  method: z.literal("roots/list"),
  params: z.looseObject({ _meta: MetaObjectSchema.optional() }).optional(),
});
export type ListRootsRequest = z.infer<typeof ListRootsRequestSchema>;

export const ListRootsResultSchema = z.looseObject({
  roots: z.array(RootSchema),
  _meta: MetaObjectSchema.optional(),
});
export type ListRootsResult = z.infer<typeof ListRootsResultSchema>;

// ---- InputRequiredResult ---------------------------------------------------------------

/** One embedded request inside `inputRequests` (no `jsonrpc`, no `id`). */
export const InputRequestSchema = z.discriminatedUnion("method", [
  ElicitRequestSchema,
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
]);
export type InputRequest = z.infer<typeof InputRequestSchema>;

/** One answer inside `inputResponses`. */
export const InputResponseSchema = z.union([
  ElicitResultSchema,
  CreateMessageResultSchema,
  ListRootsResultSchema,
]);
export type InputResponse = z.infer<typeof InputResponseSchema>;

export const InputRequestsSchema = z.record(z.string(), InputRequestSchema);
export type InputRequests = z.infer<typeof InputRequestsSchema>;

/**
 * Answers as they arrive on a retry. Each must be an object; which shape it has is checked by
 * whoever asked (unknown keys are ignored, per the spec).
 */
export const InputResponsesSchema = z.record(z.string(), JSONObjectSchema);
export type InputResponses = Record<string, InputResponse>;

/** Params of the three methods that may answer `input_required`. */
export const InputResponseParamsSchema = RequestParamsSchema.extend({
  inputResponses: InputResponsesSchema.optional(),
  requestState: z.string().optional(),
});

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
export type InputRequiredResult = z.infer<typeof InputRequiredResultSchema>;
