/**
 * The outbound rules of a 2025-era session: results carry no `resultType` and no cache hints, an
 * `input_required` result has nowhere to go (-32603), and errors keep their 2025 codes.
 */

import { traceOf } from "../../shared/errors.js";
import {
  CACHEABLE_METHODS,
  ErrorCode,
  isCoreMethod,
  McpError,
  METHOD_RULES,
  validInputRequiredResult,
} from "../../types/core.js";
import type { ErrorObject, ResultObject } from "../../types/index.js";
import { isRecord } from "../../types/record.js";
import type { Logger } from "../context.js";

/** The one message a handler's unusable result answers with, on both eras. */
export const INVALID_RESULT_MESSAGE = "Handler returned an invalid result";

/** An invalid handler result: -32603 on the wire, the detail in the server log only. */
export function invalidResult(detail: string): McpError {
  return new McpError(ErrorCode.InternalError, INVALID_RESULT_MESSAGE, { detail });
}

/** True for a result that asks for input (`resultType: "input_required"`). */
export function asksForInput(result: unknown): result is ResultObject {
  return isRecord(result) && result.resultType === "input_required";
}

/**
 * Checks a handler's result against the method's shape, as it leaves the handler (inside the
 * middleware chain, so telemetry sees an invalid result fail). An `input_required` result passes
 * only when the shim will take it (`shimmed`), and only well formed: otherwise a pre-2026 session
 * has no vocabulary for it.
 *
 * @example
 * checkLegacyResult("tools/call", { content: [] }, "2025-11-25", false); // the same object
 */
export function checkLegacyResult(
  method: string,
  result: unknown,
  protocolVersion: string,
  shimmed: boolean,
): ResultObject {
  if (!isRecord(result)) throw invalidResult("a result must be a JSON object");
  const resultType = result.resultType ?? "complete";
  if (resultType === "input_required") {
    if (!shimmed) {
      throw invalidResult(
        `${method} answered input_required on protocol revision ${protocolVersion}, which has no ` +
          "input_required vocabulary (enable legacyShim, or use resolvers)",
      );
    }
    if (!validInputRequiredResult(result)) throw invalidResult("a malformed input_required result");
    return result;
  }
  if (resultType !== "complete") throw invalidResult(`unknown resultType ${JSON.stringify(resultType)}`);
  if (isCoreMethod(method) && !METHOD_RULES[method].validResult(result)) {
    throw invalidResult(`not a valid ${method} result`);
  }
  return result;
}

/**
 * A checked complete result as the 2025 wire has it: without `resultType` and cache hints.
 *
 * @example
 * withoutModernFields("tools/list", { tools: [], resultType: "complete", ttlMs: 5 }); // { tools: [] }
 */
export function withoutModernFields(method: string, result: ResultObject): ResultObject {
  const { resultType: _dropped, ...out } = result;
  if (CACHEABLE_METHODS.has(method)) {
    delete out.ttlMs;
    delete out.cacheScope;
  }
  if (method === "tools/list" && Array.isArray(out.tools)) out.tools = out.tools.map(withLegacyOutputSchema);
  if (method === "tools/call") return withLegacyStructuredContent(out);
  return out;
}

/**
 * The 2025 wire types `Tool.outputSchema` as an object schema (`type: "object"` at the root): a
 * 2026 tool whose output is an array, a scalar or a union (SEP-2106) is listed to a 2025 client
 * without it. Sent as is, the one schema made the whole tools/list invalid for such a client.
 */
function withLegacyOutputSchema(tool: unknown): unknown {
  if (!isRecord(tool) || !isRecord(tool.outputSchema) || tool.outputSchema.type === "object") return tool;
  const { outputSchema: _dropped, ...rest } = tool;
  return rest;
}

/**
 * The 2025 wire types `structuredContent` as an object: any other value stays only as the JSON
 * text of the result (added when the handler gave no text block), as 2026-07-28 asks tools to
 * send it for backward compatibility.
 */
function withLegacyStructuredContent(result: ResultObject): ResultObject {
  const { structuredContent, ...rest } = result;
  if (structuredContent === undefined || isRecord(structuredContent)) return result;
  const content = Array.isArray(rest.content) ? rest.content : [];
  const hasText = content.some((block) => isRecord(block) && block.type === "text");
  rest.content = hasText ? content : [...content, { type: "text", text: JSON.stringify(structuredContent) }];
  return rest;
}

/**
 * Checks a complete result (`checkLegacyResult`) and strips what the 2025 wire does not have.
 *
 * @example
 * finishLegacyResult("tools/call", { content: [], resultType: "complete" }, "2025-11-25"); // { content: [] }
 */
export function finishLegacyResult(method: string, result: unknown, protocolVersion: string): ResultObject {
  return withoutModernFields(method, checkLegacyResult(method, result, protocolVersion, false));
}

/**
 * The JSON-RPC error a 2025 client receives. Codes the modern wire retired stay as they are
 * (-32002, -32042), and a modern resource-not-found (-32602 with `data.uri`) becomes -32002.
 * Anything that is not an `McpError` is logged and answered with a bare -32603.
 */
export function toLegacyWireError(method: string, error: unknown, logger: Logger): ErrorObject {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.InternalError && error.message === INVALID_RESULT_MESSAGE) {
      const detail = (error.data as { detail?: unknown } | undefined)?.detail;
      logger.error(`${method}: handler returned an invalid result: ${String(detail)}`);
      return { code: error.code, message: error.message };
    }
    const uri = (error.data as { uri?: unknown } | undefined)?.uri;
    if (method === "resources/read" && error.code === ErrorCode.InvalidParams && typeof uri === "string") {
      return { code: ErrorCode.LegacyResourceNotFound, message: error.message, data: error.data };
    }
    return error.toErrorObject();
  }
  logger.error(`${method}: handler failed: ${traceOf(error)}`);
  return { code: ErrorCode.InternalError, message: "Internal error" };
}
