import { RequestAbortedError, RequestTimeoutError } from "../shared/errors.js";
import { timerDelay } from "../shared/timers.js";
import type { InputResponses } from "../types/index.js";

/**
 * One signal bounding a whole multi-leg flow (every leg, every callback, every pause): aborted by
 * the caller's signal or by the flow's total time budget, with a reason that says which.
 */
export interface FlowScope {
  readonly signal: AbortSignal | undefined;
  /** The error to raise: the abort reason when the scope ended the flow, else `error` unchanged. */
  failure(error: unknown): unknown;
  dispose(): void;
}

/** The scope of a flow with neither a signal nor a time budget: nothing to allocate per flow. */
const UNBOUNDED: FlowScope = Object.freeze({
  signal: undefined,
  failure: (error: unknown) => error,
  dispose: () => {},
});

export function flowScope(method: string, signal?: AbortSignal, totalTimeoutMs?: number): FlowScope {
  if (signal === undefined && totalTimeoutMs === undefined) return UNBOUNDED;
  const controller = new AbortController();
  const onAbort = () =>
    controller.abort(new RequestAbortedError(`${method} was aborted`, { cause: signal?.reason }));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  const timer =
    totalTimeoutMs === undefined
      ? undefined
      : setTimeout(
          () =>
            controller.abort(
              new RequestTimeoutError(
                `${method} did not complete within maxTotalTimeoutMs (${totalTimeoutMs} ms)`,
              ),
            ),
          timerDelay(totalTimeoutMs),
        );
  return {
    signal: controller.signal,
    // A leg aborted by the scope fails with a generic "request aborted"; the scope's reason is the truth.
    failure: (error) =>
      controller.signal.aborted && controller.signal.reason instanceof Error
        ? controller.signal.reason
        : error,
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Runs `body` under a fresh scope, and disposes of it after: a failure the scope caused (the
 * caller's abort, the total budget) is raised as the scope's reason.
 */
export async function scoped<T>(
  method: string,
  signal: AbortSignal | undefined,
  totalTimeoutMs: number | undefined,
  body: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  const scope = flowScope(method, signal, totalTimeoutMs);
  try {
    return await body(scope.signal);
  } catch (error) {
    throw scope.failure(error);
  } finally {
    scope.dispose();
  }
}

/** One leg's options: the flow's, plus this leg's signal and input (no spread: it is per leg). */
export function legOptions<B extends object>(
  base: B,
  signal: AbortSignal | undefined,
  inputResponses: InputResponses | undefined,
  requestState: string | undefined,
): B & {
  signal: AbortSignal | undefined;
  inputResponses: InputResponses | undefined;
  requestState: string | undefined;
} {
  const options = Object.assign({}, base) as B & {
    signal: AbortSignal | undefined;
    inputResponses: InputResponses | undefined;
    requestState: string | undefined;
  };
  options.signal = signal;
  options.inputResponses = inputResponses;
  options.requestState = requestState;
  return options;
}
