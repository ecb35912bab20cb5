import { RequestAbortedError, RequestTimeoutError } from "../shared/errors.js";

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
  const onAbort = () => controller.abort(new RequestAbortedError(`${method} was aborted`));
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
          totalTimeoutMs,
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
