import {
  CACHEABLE_METHODS,
  declaresTasks,
  describeFailure,
  describeTaskProblem,
  ErrorCode,
  INPUT_REQUIRED_METHODS,
  isCoreMethod,
  isTaskStatus,
  McpError,
  METHOD_RULES,
  MetaKey,
  validInputRequests,
} from "../types/core.js";
import type {
  CacheHints,
  ClientCapabilities,
  Implementation,
  InputRequests,
  ResultObject,
} from "../types/index.js";
import { assertInputRequestsDeclared } from "./capability-gate.js";

/** The most conservative cache hints: stale at once, never shared across authorization contexts. */
export const CONSERVATIVE_CACHE_HINTS: CacheHints = Object.freeze({ ttlMs: 0, cacheScope: "private" });

/**
 * A server's `cacheHints` option, checked once at construction: a wrong entry would otherwise go
 * out on every result of its method (or never be used, for a method results of which carry none).
 *
 * @example
 * checkCacheHints({ "tools/list": { ttlMs: 60_000, cacheScope: "public" } }); // the same object
 */
export function checkCacheHints(hints: Partial<Record<string, CacheHints>> = {}): Record<string, CacheHints> {
  const checked: Record<string, CacheHints> = {};
  for (const [method, hint] of Object.entries(hints)) {
    if (hint === undefined) continue;
    if (!CACHEABLE_METHODS.has(method)) {
      throw new TypeError(`cacheHints: ${method} results carry no cache hints`);
    }
    if (!(Number.isSafeInteger(hint.ttlMs) && hint.ttlMs >= 0)) {
      throw new RangeError(`cacheHints: ${method} ttlMs must be a non-negative integer, got ${hint.ttlMs}`);
    }
    if (hint.cacheScope !== "public" && hint.cacheScope !== "private") {
      throw new TypeError(`cacheHints: ${method} cacheScope must be "public" or "private"`);
    }
    checked[method] = { ttlMs: hint.ttlMs, cacheScope: hint.cacheScope };
  }
  return checked;
}

export interface OutboundRules {
  readonly serverInfo: Implementation;
  /** Per-method cache hints used when a handler gives none. */
  readonly cacheHints: Readonly<Record<string, CacheHints>>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalidResult(detail: string): McpError {
  return new McpError(ErrorCode.InternalError, "Handler returned an invalid result", { detail });
}

/**
 * The outbound half of dispatch: checks what a handler returned against the per-method rules of
 * the 2026-07-28 wire, then stamps `resultType`, the serverInfo `_meta` and cache hints. Returns a
 * new object; the handler's own result is never mutated.
 */
export function finishResult(
  method: string,
  result: unknown,
  declared: ClientCapabilities,
  rules: OutboundRules,
): ResultObject {
  if (!isObject(result)) throw invalidResult("a result must be a JSON object");
  const resultType = result.resultType ?? "complete";
  if (resultType === "input_required") {
    if (!INPUT_REQUIRED_METHODS.has(method)) {
      throw invalidResult(`${method} cannot answer input_required`);
    }
    const hasRequests = isObject(result.inputRequests) && Object.keys(result.inputRequests).length > 0;
    const hasState = typeof result.requestState === "string";
    if (!hasRequests && !hasState) {
      throw invalidResult("an input_required result needs inputRequests or requestState");
    }
    if (result.requestState !== undefined && !hasState) throw invalidResult("requestState must be a string");
    const requests = result.inputRequests;
    if (requests !== undefined) {
      if (!validInputRequests(requests)) {
        throw invalidResult(
          `inputRequests holds something that is not an embedded request (${describeFailure(validInputRequests, requests)})`,
        );
      }
      assertInputRequestsDeclared(requests as InputRequests, declared);
    }
  } else if (resultType === "complete") {
    const valid = isCoreMethod(method) ? METHOD_RULES[method].validResult : undefined;
    if (valid && !valid(result)) {
      throw invalidResult(`not a valid ${method} result (${describeFailure(valid, result)})`);
    }
  } else if (resultType === "task") {
    checkCreateTaskResult(method, result, declared);
  } else {
    throw invalidResult(`unknown resultType ${JSON.stringify(resultType)}`);
  }
  return stamp(method, result, resultType, rules);
}

/**
 * A task handle goes only to a `tools/call` whose request declared the Tasks extension (a MUST), and
 * carries the task metadata alone: its payload lives on `tasks/get`, and MRTR's `requestState` never
 * leaks into it.
 */
function checkCreateTaskResult(
  method: string,
  result: Record<string, unknown>,
  declared: ClientCapabilities,
): void {
  if (method !== "tools/call") throw invalidResult(`${method} cannot answer with a task`);
  if (!declaresTasks(declared)) {
    throw invalidResult("a task was returned to a request that did not declare the tasks extension");
  }
  if (!isTaskStatus(result.status)) throw invalidResult("a CreateTaskResult needs a task status");
  // The metadata only: whatever the seed status, its payload is read through tasks/get.
  const problem = describeTaskProblem({ ...result, status: "working" });
  if (problem) throw invalidResult(`not a valid CreateTaskResult (${problem})`);
  for (const field of ["requestState", "inputRequests", "result", "error"]) {
    if (field in result) throw invalidResult(`a CreateTaskResult cannot carry ${field}`);
  }
}

/** The stamps of a checked result: `resultType`, cache hints where they belong, the serverInfo `_meta`. */
function stamp(
  method: string,
  result: ResultObject,
  resultType: unknown,
  rules: OutboundRules,
): ResultObject {
  // Object.assign and then plain sets: on Node 20 a spread with extra keys costs ten times more.
  const meta: Record<string, unknown> = isObject(result._meta) ? Object.assign({}, result._meta) : {};
  meta[MetaKey.ServerInfo] = rules.serverInfo;
  const out: ResultObject = Object.assign({}, result);
  out.resultType = resultType;
  out._meta = meta;
  if (resultType === "input_required") {
    // Rare (a handler copying a cacheable result): `delete` is kept off the common path.
    if (out.ttlMs !== undefined || out.cacheScope !== undefined) {
      delete out.ttlMs;
      delete out.cacheScope;
    }
  } else if (CACHEABLE_METHODS.has(method)) {
    const hints = rules.cacheHints[method] ?? CONSERVATIVE_CACHE_HINTS;
    if (out.ttlMs === undefined) out.ttlMs = hints.ttlMs;
    if (out.cacheScope === undefined) out.cacheScope = hints.cacheScope;
  }
  return out;
}
