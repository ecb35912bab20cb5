/**
 * A middleware that rate-limits re-prompts, as the spec asks servers to (SHOULD): a client whose
 * answers keep leading to new questions is told to slow down instead of being asked again.
 */
import { ErrorCode, McpError } from "../types/errors.js";
import { isInputRequiredResult } from "../types/guards.js";
import type { MiddlewareFunction, ServerRequestContext } from "./context.js";
import { authenticatedPrincipal } from "./state/principal.js";

/**
 * Options of {@link limitRePrompts}.
 *
 * @example
 * const options: RePromptLimitOptions = { max: 20, windowMs: 60_000 };
 */
export interface RePromptLimitOptions {
  /** Re-prompts one client may get within `windowMs`. */
  readonly max: number;
  readonly windowMs: number;
  /**
   * Who a request counts for. Default: the verified token's identity (see
   * `authenticatedPrincipal`), and one shared bucket for unauthenticated requests; behind a proxy,
   * key those by the client's address. `undefined` leaves a request unlimited.
   */
  readonly key?: (ctx: ServerRequestContext) => string | undefined;
  /** Clients tracked at once (default 10 000); the least recently seen is forgotten first. */
  readonly maxClients?: number;
  /** Clock, for tests (default `Date.now`). */
  readonly now?: () => number;
}

const ANONYMOUS = "anonymous";

/**
 * Counts a re-prompt each time a request that carried `inputResponses` is answered with another
 * `InputRequiredResult` (the client answered and is asked again, by a resolver or a handler). Past
 * `max` in the sliding `windowMs`, such an answer is replaced by -32600 (HTTP 400) saying when to
 * retry, with `data.retryAfterMs`; the request's side effects, if any, have happened. First
 * questions, state-only rounds and completed retries are never limited.
 *
 * @example
 * mcp.server.middleware.unshift(limitRePrompts({ max: 20, windowMs: 60_000 }));
 */
export function limitRePrompts(options: RePromptLimitOptions): MiddlewareFunction {
  const { max, windowMs } = options;
  if (!(Number.isInteger(max) && max >= 0))
    throw new RangeError(`max must be a non-negative integer, got ${max}`);
  if (!(Number.isFinite(windowMs) && windowMs > 0)) {
    throw new RangeError(`windowMs must be a positive number of milliseconds, got ${windowMs}`);
  }
  const maxClients = options.maxClients ?? 10_000;
  if (!(Number.isInteger(maxClients) && maxClients > 0)) {
    throw new RangeError(`maxClients must be a positive integer, got ${maxClients}`);
  }
  const keyOf = options.key ?? ((ctx) => authenticatedPrincipal(ctx) ?? ANONYMOUS);
  const now = options.now ?? Date.now;
  // Per client, the times of its recent re-prompts, oldest first; Map order is recency of use.
  const recent = new Map<string, number[]>();

  return async (ctx, next) => {
    const result = await next(ctx);
    if (ctx.params.inputResponses === undefined || !isInputRequiredResult(result)) return result;
    const key = keyOf(ctx);
    if (key === undefined) return result;
    const at = now();
    const times = recent.get(key) ?? [];
    recent.delete(key);
    while (times.length > 0 && (times[0] as number) <= at - windowMs) times.shift();
    const refused = times.length >= max;
    if (!refused) times.push(at);
    recent.set(key, times);
    // Refused clients count too: with max 0 every client is refused, and still at most maxClients kept.
    if (recent.size > maxClients) recent.delete(recent.keys().next().value as string);
    if (refused) {
      const retryAfterMs = Math.max(1, Math.ceil((times[0] ?? at) + windowMs - at));
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Too many re-prompts: retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        { retryAfterMs },
      );
    }
    return result;
  };
}
