import {
  describeToolLoopProblem,
  ErrorCode,
  explainFailure,
  McpError,
  validCreateMessageResult,
  validElicitRequestURLParams,
  validElicitResult,
  validListRootsResult,
  validRequestedSchema,
} from "../../types/core.js";
import type {
  CreateMessageRequest,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  InputRequests,
  InputRequiredResult,
  ListRootsRequest,
  ListRootsResult,
  RequestedSchema,
} from "../../types/index.js";
import type { Context } from "./context.js";
import { compileForm } from "./form.js";
import {
  type CompiledSchema,
  compileSchema,
  type InferSchema,
  isRawJsonSchema,
  type JsonSchemaObject,
  type SchemaLike,
} from "./schema.js";

/**
 * What a form elicitation may be described with: a schema, or the flat form itself as a plain
 * object (a `RequestedSchema`, `as const` or not; its shape is checked when it is first used).
 */
export type FormSchema = SchemaLike | JsonSchemaObject;

/**
 * Builds an `InputRequiredResult`. At least one of `inputRequests` (non-empty) or `requestState`
 * is required, as the spec says.
 *
 * @example
 * return inputRequired({ inputRequests: { region: elicitationRequest("Which region?", Region) }, requestState: "v1" });
 */
export function inputRequired(fields: {
  inputRequests?: InputRequests;
  requestState?: string;
}): InputRequiredResult {
  const hasRequests = fields.inputRequests !== undefined && Object.keys(fields.inputRequests).length > 0;
  if (!hasRequests && fields.requestState === undefined) {
    throw new Error("An InputRequiredResult needs a non-empty inputRequests or a requestState");
  }
  const result: InputRequiredResult = { resultType: "input_required" };
  if (hasRequests) result.inputRequests = fields.inputRequests;
  if (fields.requestState !== undefined) result.requestState = fields.requestState;
  return result;
}

const DROPPED_KEYS = new Set(["$schema", "additionalProperties"]);

/**
 * Renders a form schema for elicitation: a zod object (or any object schema) whose properties are
 * flat primitives. Throws when the shape is something elicitation cannot express.
 *
 * @example
 * renderRequestedSchema(z.object({ name: z.string() }));
 * // { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
 */
export function renderRequestedSchema(schema: FormSchema): RequestedSchema {
  const known = rendered.get(schema);
  if (known) return known;
  const json = isRawJsonSchema(schema) ? schema : compileSchema(schema, "input").jsonSchema;
  const cleaned = Object.fromEntries(Object.entries(json).filter(([key]) => !DROPPED_KEYS.has(key)));
  if (!validRequestedSchema(cleaned)) {
    const where = explainFailure(validRequestedSchema, cleaned)?.path.join(".") ?? "";
    throw new Error(
      "An elicitation form must be a flat object of strings, numbers, integers, booleans or enums " +
        `(no nesting, no arrays of objects)${where ? `; offending part: ${where}` : ""}`,
    );
  }
  rendered.set(schema, cleaned as RequestedSchema);
  return cleaned as RequestedSchema;
}

/** Rendered forms by schema object: resolvers render the same question on every round. */
const rendered = new WeakMap<object, RequestedSchema>();

const compiledForms = new WeakMap<object, CompiledSchema>();

/**
 * The validator of a form's answers: the schema's own, or for a plain-object form a check of its
 * flat keywords (see form.ts), compiled once per form object.
 */
export function compileFormSchema<T>(schema: FormSchema): CompiledSchema<T> {
  if (!isRawJsonSchema(schema)) return compileSchema<T>(schema);
  let compiled = compiledForms.get(schema);
  if (!compiled) {
    renderRequestedSchema(schema); // refuses what is not a flat form, with the reason
    compiled = compileForm(schema);
    compiledForms.set(schema, compiled);
  }
  return compiled as CompiledSchema<T>;
}

/**
 * An embedded form elicitation.
 *
 * @example
 * const ask = elicitationRequest("Which region?", z.object({ region: z.enum(["eu", "us"]) }));
 * return inputRequired({ inputRequests: { region: ask } });
 */
export function elicitationRequest(message: string, schema: FormSchema): ElicitRequest {
  // A plain form with a keyword its answers would not be checked against fails before the user is asked.
  if (isRawJsonSchema(schema)) compileFormSchema(schema);
  return {
    method: "elicitation/create",
    params: { mode: "form", message, requestedSchema: renderRequestedSchema(schema) },
  };
}

/**
 * An embedded URL elicitation (the user completes something out of band, e.g. a sign-in).
 *
 * @example
 * inputRequired({ inputRequests: { login: urlElicitationRequest("Sign in to continue", signInUrl) } });
 */
export function urlElicitationRequest(message: string, url: string | URL): ElicitRequest {
  const href = String(url);
  const params = { mode: "url" as const, message, url: href };
  // Refused here, where the author sees it, rather than as an invalid result once returned.
  if (!validElicitRequestURLParams(params)) throw new Error(`Not a valid URL: ${href}`);
  return { method: "elicitation/create", params };
}

/**
 * An embedded sampling request. `prompt` is shorthand for one user text message. Throws a
 * TypeError when the messages break the tool-loop rules (see `describeToolLoopProblem`).
 *
 * @example
 * inputRequired({ inputRequests: { summary: samplingRequest({ prompt: "Summarize the log", maxTokens: 200 }) } });
 */
export function samplingRequest(
  params: Partial<CreateMessageRequestParams> & { maxTokens: number; prompt?: string },
): CreateMessageRequest {
  const { prompt, messages, ...rest } = params;
  const all = [
    ...(messages ?? []),
    ...(prompt === undefined
      ? []
      : [{ role: "user" as const, content: { type: "text" as const, text: prompt } }]),
  ];
  if (all.length === 0) throw new TypeError("samplingRequest needs messages or a prompt");
  // Refused here, where the server author sees it, rather than by the client once the question is out.
  const problem = describeToolLoopProblem(all);
  if (problem)
    throw new TypeError(`A sampling conversation must answer each tool_use before anything else; ${problem}`);
  return { method: "sampling/createMessage", params: { ...rest, messages: all } };
}

/**
 * An embedded roots request.
 *
 * @example
 * if (ctx.canAsk(rootsRequest())) return inputRequired({ inputRequests: { roots: rootsRequest() } });
 */
export function rootsRequest(): ListRootsRequest {
  return { method: "roots/list", params: {} };
}

/** One answer from `ctx.inputResponses`, told apart by kind. */
export type InputResponseView<T = Record<string, unknown>> =
  | { kind: "missing" }
  | { kind: "accept"; content: T | undefined }
  | { kind: "decline" }
  | { kind: "cancel" }
  | { kind: "sampling"; result: CreateMessageResult }
  | { kind: "roots"; result: ListRootsResult }
  | { kind: "invalid" };

/**
 * Reads one answer of this round. Unknown shapes read as `invalid` rather than throwing, so a
 * handler can decide to ask again.
 *
 * @example
 * const answer = inputResponse(ctx, "region");
 * if (answer.kind !== "accept") return inputRequired({ inputRequests: { region: ASK } });
 */
export function inputResponse(ctx: Context, key: string): InputResponseView {
  const responses = ctx.inputResponses;
  // Own keys only: an inherited "constructor" or "toString" is no answer, and must read as missing.
  const raw = responses !== undefined && Object.hasOwn(responses, key) ? responses[key] : undefined;
  if (raw === undefined) return { kind: "missing" };
  if (validElicitResult(raw)) {
    const elicit = raw as ElicitResult;
    if (elicit.action === "accept") return { kind: "accept", content: elicit.content };
    return { kind: elicit.action };
  }
  if (validCreateMessageResult(raw)) return { kind: "sampling", result: raw as CreateMessageResult };
  if (validListRootsResult(raw)) return { kind: "roots", result: raw as ListRootsResult };
  return { kind: "invalid" };
}

/**
 * The accepted content of a form answer, validated against `schema` when given; undefined when
 * the question was not answered or was declined/cancelled. A malformed answer is a -32602 error.
 *
 * @example
 * const form = await acceptedContent(ctx, "region", Region); // undefined unless accepted
 */
export async function acceptedContent<S extends FormSchema | undefined = undefined>(
  ctx: Context,
  key: string,
  schema?: S,
): Promise<(S extends SchemaLike ? InferSchema<S> : Record<string, unknown>) | undefined> {
  const answer = inputResponse(ctx, key);
  if (answer.kind === "invalid" || answer.kind === "sampling" || answer.kind === "roots") {
    throw new McpError(
      ErrorCode.InvalidParams,
      `The answer to ${JSON.stringify(key)} is not an elicitation result`,
    );
  }
  if (answer.kind !== "accept" || answer.content === undefined) return undefined;
  if (schema === undefined) return answer.content as never;
  const checked = await compileFormSchema(schema).validate(answer.content);
  if (!checked.ok) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `The answer to ${JSON.stringify(key)} does not match the requested schema`,
    );
  }
  return checked.value as never;
}
