import type { RequestId } from "./jsonrpc.js";

/**
 * Whether a value is a JSON object: not null and not an array, the shape of every wire record.
 * One definition for the whole SDK (internal: not re-exported by the entry points).
 *
 * @example
 * isRecord({ jsonrpc: "2.0" }); // true
 * isRecord([1, 2]); // false
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether a value is a JSON-RPC request id as the wire allows it: a string or a safe integer (as
 * `RequestIdSchema`). Past 2^53 JSON.parse rounds, so the value is no longer the id that was sent.
 *
 * @example
 * isRequestId(7); // true
 * isRequestId(1.5); // false
 */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/**
 * A message's id when it is a valid one, else `null` (what an error about that message carries).
 *
 * @example
 * requestIdOf({ jsonrpc: "2.0", id: 3, method: "tools/list" }); // 3
 * requestIdOf([{ id: 3 }]); // null
 */
export function requestIdOf(message: unknown): RequestId | null {
  const id = isRecord(message) ? message.id : undefined;
  return isRequestId(id) ? id : null;
}
