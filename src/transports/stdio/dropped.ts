/**
 * What is left of a line dropped for its length: its head, enough to tell which request it asked
 * or answered, so the side waiting for that request is told at once rather than at its timeout.
 * Serializers write the short members first as a rule (`{"jsonrpc":"2.0","id":7,"method":…` and
 * `{"jsonrpc":"2.0","id":7,"result":…`), so the id usually comes before the long value.
 */
import { ErrorCode } from "../../types/core.js";
import type { JSONRPCErrorResponse, RequestId } from "../../types/index.js";
import { isRequestId } from "../../types/record.js";

/** Bytes kept of a dropped line to find its id in. */
export const DROPPED_HEAD_BYTES = 1024;

/**
 * The id of the dropped message, read from the top-level members before its first object or array
 * value: a request's when the head shows a method (`kind` "request"), a response's when the value
 * it stopped at is the result or error ("response"). `undefined` when the head does not say.
 *
 * @example
 * droppedId('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a', "request"); // 7
 */
export function droppedId(head: string, kind: "request" | "response"): RequestId | undefined {
  const open = /^\s*\{/.exec(head);
  if (!open) return undefined;
  // One member: its key, then a primitive value and a comma, or the start of an object or array.
  const member =
    /\s*"((?:[^"\\]|\\.)*)"\s*:\s*(?:("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)\s*,|[[{])/y;
  member.lastIndex = open[0].length;
  const primitives = new Map<string, unknown>();
  let stoppedAt: string | undefined;
  for (let match = member.exec(head); match; match = member.exec(head)) {
    const [, key = "", primitive] = match;
    if (primitive === undefined) {
      stoppedAt = key;
      break;
    }
    primitives.set(key, JSON.parse(primitive));
  }
  const id = primitives.get("id");
  if (!isRequestId(id)) return undefined;
  if (kind === "request") return typeof primitives.get("method") === "string" ? id : undefined;
  return !primitives.has("method") && (stoppedAt === "result" || stoppedAt === "error") ? id : undefined;
}

/**
 * The error response standing in for a response dropped for its length, when its head names the
 * request; `undefined` otherwise.
 *
 * @example
 * const answer = droppedResponse(head, maxLineBytes);
 * if (answer) transport.onmessage?.(answer);
 */
export function droppedResponse(head: string, maxLineBytes: number): JSONRPCErrorResponse | undefined {
  const id = droppedId(head, "response");
  if (id === undefined) return undefined;
  const message = `The response was longer than maxLineBytes (${maxLineBytes} bytes) and was dropped`;
  return { jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message, data: { maxLineBytes } } };
}

/**
 * The answer to a request dropped for its length (a 2025 server's question, say), when its head
 * names it: -32600, as a server answers one, so the asker stops waiting for an answer.
 *
 * @example
 * const refusal = droppedRequestAnswer(head, maxLineBytes);
 * if (refusal) void transport.send(refusal);
 */
export function droppedRequestAnswer(head: string, maxLineBytes: number): JSONRPCErrorResponse | undefined {
  const id = droppedId(head, "request");
  if (id === undefined) return undefined;
  const error = { code: ErrorCode.InvalidRequest, message: "Message too large", data: { maxLineBytes } };
  return { jsonrpc: "2.0", id, error };
}
