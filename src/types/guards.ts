import {
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  CreateMessageResultSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitRequestURLParams,
  type ElicitResult,
  ElicitResultSchema,
  type InputRequiredResult,
  type ListRootsRequest,
  ListRootsRequestSchema,
  type ListRootsResult,
  ListRootsResultSchema,
} from "./input.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * True for a result that asks for input: a typed `InputRequiredResult` or any wire object whose
 * `resultType` is `"input_required"`.
 *
 * @example
 * if (isInputRequiredResult(result)) console.log(Object.keys(result.inputRequests ?? {}));
 */
export function isInputRequiredResult(value: unknown): value is InputRequiredResult {
  return isObject(value) && value.resultType === "input_required";
}

/** True for an elicitation answer (`{ action, content? }`). */
export function isElicitResult(value: unknown): value is ElicitResult {
  return ElicitResultSchema.safeParse(value).success;
}

/** True for a sampling answer (a message with `model`). */
export function isCreateMessageResult(value: unknown): value is CreateMessageResult {
  return CreateMessageResultSchema.safeParse(value).success;
}

/** True for a roots answer (`{ roots }`). */
export function isListRootsResult(value: unknown): value is ListRootsResult {
  return ListRootsResultSchema.safeParse(value).success;
}

/** True for an embedded `elicitation/create` request (form or URL). */
export function isElicitRequest(value: unknown): value is ElicitRequest {
  return ElicitRequestSchema.safeParse(value).success;
}

/** True for an embedded URL-mode elicitation. */
export function isUrlElicitRequest(
  value: unknown,
): value is ElicitRequest & { params: ElicitRequestURLParams } {
  return isElicitRequest(value) && value.params.mode === "url";
}

/** True for an embedded `sampling/createMessage` request. */
export function isCreateMessageRequest(value: unknown): value is CreateMessageRequest {
  return CreateMessageRequestSchema.safeParse(value).success;
}

/** True for an embedded `roots/list` request. */
export function isListRootsRequest(value: unknown): value is ListRootsRequest {
  return ListRootsRequestSchema.safeParse(value).success;
}
