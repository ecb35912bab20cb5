import { HTTP_STATUS } from "../shared/dispatch.js";
import { traceOf } from "../shared/errors.js";
import { ErrorCode, httpStatusForError, McpError } from "../types/core.js";
import type { ErrorObject, JSONRPCResponse, RequestId } from "../types/index.js";
import { isRecord } from "../types/record.js";
import type { Logger } from "./context.js";

/** -32020 to -32022 are the spec's defined codes of its reserved -32020..-32099 range; the rest are not. */
const FIRST_UNDEFINED_RESERVED = -32023;
const LAST_RESERVED = -32099;

/**
 * What a handler's failure becomes on the 2026-07-28 wire: an `McpError` keeps its code and data,
 * except retired codes, codes of the range the spec reserves that it has not defined (-32603, same
 * message and data) and the invalid-result error (whose detail is logged, never sent); anything
 * else is a bare -32603 and goes to the log. `where` names the failure in the log (a method, a task);
 * `params`, the request's, give a retired -32002 the `data.uri` of the resource read.
 *
 * @example
 * const error = toWireError("tools/call", caught, server.logger); // { code, message, data? }
 */
export function toWireError(
  where: string,
  error: unknown,
  logger: Logger,
  params?: Record<string, unknown>,
): ErrorObject {
  if (error instanceof McpError) {
    // Retired codes never reach the modern wire.
    if (error.code === ErrorCode.LegacyResourceNotFound) {
      return new McpError(
        ErrorCode.InvalidParams,
        error.message,
        withUri(error.data, params),
      ).toErrorObject();
    }
    if (error.code === ErrorCode.LegacyUrlElicitationRequired) {
      return {
        code: ErrorCode.InternalError,
        message: "URL elicitation must be returned as an input_required result on protocol 2026-07-28",
      };
    }
    if (error.code <= FIRST_UNDEFINED_RESERVED && error.code >= LAST_RESERVED) {
      // An undefined code of the spec's range must not be emitted (application codes belong
      // outside -32768 to -32000).
      logger.warn(`${where}: code ${error.code} is reserved; sent as -32603`);
      return new McpError(ErrorCode.InternalError, error.message, error.data).toErrorObject();
    }
    if (error.code === ErrorCode.InternalError && error.message === "Handler returned an invalid result") {
      logger.error(
        `${where}: handler returned an invalid result: ${String((error.data as { detail?: unknown })?.detail)}`,
      );
      return { code: error.code, message: error.message };
    }
    return error.toErrorObject();
  }
  logger.error(`${where}: handler failed: ${traceOf(error)}`);
  return { code: ErrorCode.InternalError, message: "Internal error" };
}

/**
 * A resource not found names its URI in `data.uri` on the modern wire: that, not the shared -32602,
 * is how a client tells it from bad params. The URI read is added to what the handler gave.
 */
function withUri(data: unknown, params: Record<string, unknown> | undefined): unknown {
  const uri = params?.uri;
  if (typeof uri !== "string") return data;
  if (data === undefined) return { uri };
  return isRecord(data) && data.uri === undefined ? { ...data, uri } : data;
}

/**
 * The error response to request `id`, carrying (out of the serialized wire) the HTTP status it
 * travels with: the code's own, or `httpStatus` when the error names one.
 *
 * @example
 * const response = errorResponse(7, { code: -32601, message: "Method not found: x" }); // HTTP 404
 */
export function errorResponse(
  id: RequestId | null,
  error: ErrorObject,
  httpStatus?: number,
): JSONRPCResponse {
  const response: JSONRPCResponse = { jsonrpc: "2.0", id, error };
  Object.defineProperty(response, HTTP_STATUS, {
    value: httpStatusForError(error.code, httpStatus),
    enumerable: false,
  });
  return response;
}
