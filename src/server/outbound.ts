import {
  CACHEABLE_METHODS,
  describeFailure,
  describeInputRequestsProblem,
  ErrorCode,
  INPUT_REQUIRED_METHODS,
  isCoreMethod,
  McpError,
  METHOD_RULES,
  MetaKey,
} from "../types/core.js";
import type {
  CacheHints,
  ClientCapabilities,
  Implementation,
  InputRequests,
  ResultObject,
} from "../types/index.js";
import { isRecord } from "../types/record.js";
import { assertInputRequestsDeclared } from "./capability-gate.js";

/** The most conservative cache hints: stale at once, never shared across authorization contexts. */
export const CONSERVATIVE_CACHE_HINTS: CacheHints = Object.freeze({ ttlMs: 0, cacheScope: "private" });

const SCOPES: ReadonlySet<unknown> = new Set(["public", "private"]);

/**
 * A server's `cacheHints` option, checked once at construction: a wrong entry would otherwise go
 * out on every result of its method (or never be used, for a method results of which carry none).
 *
 * @example
 * checkCacheHints({ "tools/list": { ttlMs: 60_000, cacheScope: "public" } }); // a copy of it
 */
export function checkCacheHints(hints: Partial<Record<string, CacheHints>> = {}): Record<string, CacheHints> {
  for (const [method, hint] of Object.entries(hints)) {
    if (
      hint !== undefined &&
      !(
        CACHEABLE_METHODS.has(method) &&
        hint.ttlMs >= 0 &&
        Number.isSafeInteger(hint.ttlMs) &&
        SCOPES.has(hint.cacheScope)
      )
    ) {
      throw new TypeError(
        `cacheHints["${method}"] must be { ttlMs: integer >= 0, cacheScope: public | private } on a cacheable method`,
      );
    }
  }
  return { ...hints } as Record<string, CacheHints>;
}

export interface OutboundRules {
  readonly serverInfo: Implementation;
  /** Per-method cache hints used when a handler gives none. */
  readonly cacheHints: Readonly<Record<string, CacheHints>>;
  /** Checks a task handle (`resultType: "task"`); without it, a task is an unknown resultType. */
  readonly checkTask?: TaskResultCheck | undefined;
}

/**
 * Refuses (throwing, see `invalidResult`) a task handle that must not go out. The Tasks extension's
 * runner (`roundtrip-mcp/tasks`) installs one; a server without it answers no task.
 */
export type TaskResultCheck = (
  method: string,
  result: Record<string, unknown>,
  declared: ClientCapabilities,
) => void;

/**
 * The -32603 every invalid handler result answers with; `detail` goes to the log only.
 *
 * @example
 * throw invalidResult("a result must be a JSON object");
 */
export function invalidResult(detail: string): McpError {
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
  return stampResult(method, checkResult(method, result, declared, rules), rules);
}

/**
 * Checks a handler's result against the per-method rules of the 2026-07-28 wire, throwing
 * `invalidResult` (-32603) when it may not go out; returns it unchanged.
 */
export function checkResult(
  method: string,
  result: unknown,
  declared: ClientCapabilities,
  rules: OutboundRules,
): ResultObject {
  if (!isRecord(result)) throw invalidResult("a result must be a JSON object");
  const resultType = result.resultType ?? "complete";
  if (resultType === "input_required") {
    if (!INPUT_REQUIRED_METHODS.has(method)) {
      throw invalidResult(`${method} cannot answer input_required`);
    }
    const hasRequests = isRecord(result.inputRequests) && Object.keys(result.inputRequests).length > 0;
    const hasState = typeof result.requestState === "string";
    if (!hasRequests && !hasState) {
      throw invalidResult("An InputRequiredResult needs a non-empty inputRequests or a requestState");
    }
    if (result.requestState !== undefined && !hasState) throw invalidResult("requestState must be a string");
    const requests = result.inputRequests;
    if (requests !== undefined) {
      const problem = describeInputRequestsProblem(requests);
      if (problem) throw invalidResult(problem);
      assertInputRequestsDeclared(requests as InputRequests, declared);
    }
  } else if (resultType === "complete") {
    const valid = isCoreMethod(method) ? METHOD_RULES[method].validResult : undefined;
    if (valid && !valid(result)) {
      throw invalidResult(`not a valid ${method} result (${describeFailure(valid, result)})`);
    }
  } else if (resultType === "task" && rules.checkTask) {
    rules.checkTask(method, result, declared);
  } else {
    throw invalidResult(`unknown resultType ${JSON.stringify(resultType)}`);
  }
  return result;
}

/** The stamps of a checked result: `resultType`, cache hints where they belong, the serverInfo `_meta`. */
export function stampResult(method: string, result: ResultObject, rules: OutboundRules): ResultObject {
  const resultType = result.resultType ?? "complete";
  // Object.assign and then plain sets: on Node 20 a spread with extra keys costs ten times more.
  const meta: Record<string, unknown> = isRecord(result._meta) ? Object.assign({}, result._meta) : {};
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
