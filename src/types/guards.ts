import {
  describeFailure,
  validCreateMessageRequest,
  validCreateMessageResult,
  validElicitRequest,
  validElicitResult,
  validInputRequests,
  validJSONRPCErrorResponse,
  validJSONRPCNotification,
  validJSONRPCRequest,
  validJSONRPCResultResponse,
  validListRootsRequest,
  validListRootsResult,
} from "./checks.generated.js";
import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitRequestURLParams,
  ElicitResult,
  InputRequest,
  InputRequiredResult,
  ListRootsRequest,
  ListRootsResult,
  SamplingMessage,
} from "./input.js";
import type {
  JSONRPCErrorResponse,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResultResponse,
} from "./jsonrpc.js";
import { isRecord } from "./record.js";

/**
 * True for a result that asks for input: a typed `InputRequiredResult` or any wire object whose
 * `resultType` is `"input_required"`.
 *
 * @example
 * if (isInputRequiredResult(result)) console.log(Object.keys(result.inputRequests ?? {}));
 */
export function isInputRequiredResult(value: unknown): value is InputRequiredResult {
  return isRecord(value) && value.resultType === "input_required";
}

/**
 * What is wrong with an `inputRequests` map, or undefined when each entry is an embedded request
 * under a key an answer can be keyed by. `"__proto__"` (an own key, as `JSON.parse` makes it) cannot:
 * assigning or copying the responses makes it the prototype, so the answer is lost. Both sides
 * refuse it.
 *
 * @example
 * describeInputRequestsProblem(JSON.parse('{"__proto__": {"method": "roots/list", "params": {}}}'));
 * // 'inputRequests: the key "__proto__" cannot be answered'
 */
export function describeInputRequestsProblem(value: unknown): string | undefined {
  if (!validInputRequests(value)) {
    return `inputRequests holds something that is not an embedded request (${describeFailure(validInputRequests, value)})`;
  }
  if (Object.hasOwn(value as object, "__proto__"))
    return 'inputRequests: the key "__proto__" cannot be answered';
  for (const [key, request] of Object.entries(value as Record<string, InputRequest>)) {
    const problem =
      request.method === "sampling/createMessage"
        ? describeToolLoopProblem(request.params.messages)
        : undefined;
    if (problem) return `inputRequests[${JSON.stringify(key)}]: ${problem}`;
  }
  return undefined;
}

/**
 * What breaks the tool-loop rules of a sampling conversation, or undefined when it keeps them: a
 * message carrying `tool_result` blocks holds nothing else, and the next message answers each
 * `tool_use` of a message by its `toolUseId`, and nothing but those (the last message's are answered
 * on a later round).
 *
 * @example
 * describeToolLoopProblem([{ role: "user", content: { type: "tool_result", toolUseId: "a", content: [] } }]);
 * // 'messages[0]: tool_result "a" answers no tool_use of the message before it'
 */
export function describeToolLoopProblem(messages: readonly SamplingMessage[]): string | undefined {
  let uses: string[] = [];
  for (const [index, { content }] of messages.entries()) {
    const blocks = Array.isArray(content) ? content : [content];
    const results = blocks.flatMap((block) => (block.type === "tool_result" ? [block.toolUseId] : []));
    const at = `messages[${index}]`;
    for (const id of results) {
      if (results.length < blocks.length)
        return `${at}: tool_result ${JSON.stringify(id)} must not share a message with other content`;
      if (!uses.includes(id))
        return `${at}: tool_result ${JSON.stringify(id)} answers no tool_use of the message before it`;
    }
    for (const id of uses) {
      if (!results.includes(id))
        return `${at}: tool_use ${JSON.stringify(id)} of the message before it must be answered first`;
    }
    uses = blocks.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
  }
  return undefined;
}

/**
 * True for an elicitation answer (`{ action, content? }`).
 *
 * @example
 * isElicitResult({ action: "decline" }); // true
 */
export function isElicitResult(value: unknown): value is ElicitResult {
  return validElicitResult(value);
}

/**
 * True for a sampling answer (a message with `model`).
 *
 * @example
 * isCreateMessageResult({ role: "assistant", content: { type: "text", text: "Hi" }, model: "m" }); // true
 */
export function isCreateMessageResult(value: unknown): value is CreateMessageResult {
  return validCreateMessageResult(value);
}

/**
 * True for a roots answer (`{ roots }`).
 *
 * @example
 * isListRootsResult({ roots: [{ uri: "file:///home/me/project" }] }); // true
 */
export function isListRootsResult(value: unknown): value is ListRootsResult {
  return validListRootsResult(value);
}

/**
 * True for an embedded `elicitation/create` request (form or URL; a URL holds no whitespace or control
 * character).
 *
 * @example
 * if (isElicitRequest(request)) console.log(request.params.message);
 */
export function isElicitRequest(value: unknown): value is ElicitRequest {
  return validElicitRequest(value);
}

/**
 * True for an embedded URL-mode elicitation.
 *
 * @example
 * if (isUrlElicitRequest(request)) console.log(`Open ${request.params.url}`);
 */
export function isUrlElicitRequest(
  value: unknown,
): value is ElicitRequest & { params: ElicitRequestURLParams } {
  return isElicitRequest(value) && value.params.mode === "url";
}

/**
 * True for an embedded `sampling/createMessage` request.
 *
 * @example
 * if (isCreateMessageRequest(request)) console.log(request.params.maxTokens);
 */
export function isCreateMessageRequest(value: unknown): value is CreateMessageRequest {
  return validCreateMessageRequest(value);
}

/**
 * True for an embedded `roots/list` request.
 *
 * @example
 * if (isListRootsRequest(request)) console.log("the server asks for our roots");
 */
export function isListRootsRequest(value: unknown): value is ListRootsRequest {
  return validListRootsRequest(value);
}

/**
 * True for a well-formed JSON-RPC request (has an id and a method).
 *
 * @example
 * isJSONRPCRequest({ jsonrpc: "2.0", id: 1, method: "tools/list" }); // true
 */
export function isJSONRPCRequest(value: unknown): value is JSONRPCRequest {
  return validJSONRPCRequest(value);
}

/**
 * True for a well-formed JSON-RPC notification (a method and no id).
 *
 * @example
 * isJSONRPCNotification({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }); // true
 */
export function isJSONRPCNotification(value: unknown): value is JSONRPCNotification {
  return isRecord(value) && !Object.hasOwn(value, "id") && validJSONRPCNotification(value);
}

/**
 * True for a successful JSON-RPC response.
 *
 * @example
 * isJSONRPCResultResponse({ jsonrpc: "2.0", id: 1, result: {} }); // true
 */
export function isJSONRPCResultResponse(value: unknown): value is JSONRPCResultResponse {
  return validJSONRPCResultResponse(value);
}

/**
 * True for a JSON-RPC error response.
 *
 * @example
 * isJSONRPCErrorResponse({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Nope" } }); // true
 */
export function isJSONRPCErrorResponse(value: unknown): value is JSONRPCErrorResponse {
  return validJSONRPCErrorResponse(value);
}
