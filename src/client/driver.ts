import { ProtocolError, RequestAbortedError, RequestTimeoutError } from "../shared/errors.js";
import { NEVER_ABORTED } from "../shared/lazy-signal.js";
import { timerDelay } from "../shared/timers.js";
import { isInputRequiredResult } from "../types/core.js";
import type {
  InputRequest,
  InputRequiredResult,
  InputResponse,
  InputResponses,
  ResultObject,
} from "../types/index.js";
import { InputRequiredRoundsExceededError } from "./errors.js";

/**
 * How many retries the automatic loop makes before giving up (at most 11 legs in all).
 *
 * @example
 * await Client.connect(server, { inputRequiredMaxRounds: DEFAULT_INPUT_REQUIRED_MAX_ROUNDS * 2 });
 */
export const DEFAULT_INPUT_REQUIRED_MAX_ROUNDS = 10;
/**
 * First pause before retrying a round that carried only `requestState`.
 *
 * @example
 * STATE_ONLY_BACKOFF_INITIAL_MS; // 50
 */
export const STATE_ONLY_BACKOFF_INITIAL_MS = 50;
/**
 * The pause doubles per consecutive state-only round, up to this cap.
 *
 * @example
 * STATE_ONLY_BACKOFF_CAP_MS; // 250
 */
export const STATE_ONLY_BACKOFF_CAP_MS = 250;

/**
 * What the loop reports before acting on each round.
 *
 * @example
 * onRound: ({ round, maxRounds, stateOnly }) => console.log(`round ${round}/${maxRounds}`, stateOnly)
 */
export interface InputRequiredRound {
  /** 1 for the first retry. */
  readonly round: number;
  readonly maxRounds: number;
  /** The result being answered. */
  readonly result: InputRequiredResult;
  /** True when the round carries only `requestState` (the loop pauses, then retries). */
  readonly stateOnly: boolean;
}

/**
 * Answers one embedded request. `signal` aborts when a sibling fails or the flow is cancelled.
 *
 * @example
 * const dispatch: DispatchInputRequest = (key, request, signal) =>
 *   dispatchInputRequest(callbacks, { requestId: key, signal }, request);
 */
export type DispatchInputRequest = (
  key: string,
  request: InputRequest,
  signal: AbortSignal,
) => Promise<InputResponse>;

/**
 * Re-issues the original request with this round's answers and the latest state (both may be absent).
 *
 * @example
 * const retry: RetryInputRequired<CallToolResult> = (inputResponses, requestState, signal) =>
 *   session.callTool(name, args, { inputResponses, requestState, signal, allowInputRequired: true });
 */
export type RetryInputRequired<R> = (
  inputResponses: InputResponses | undefined,
  requestState: string | undefined,
  signal: AbortSignal | undefined,
) => Promise<R | InputRequiredResult>;

/**
 * Options of `runInputRequiredLoop`.
 *
 * @example
 * const options: InputRequiredLoopOptions<CallToolResult> = { dispatch, retry, maxRounds: 10, signal };
 */
export interface InputRequiredLoopOptions<R> {
  dispatch: DispatchInputRequest;
  retry: RetryInputRequired<R>;
  /** Retries allowed; one more `input_required` answer raises `InputRequiredRoundsExceededError`. */
  maxRounds: number;
  /** Injectable pause (tests use a virtual clock). Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Cancels the whole flow: pending callbacks, the pause and the legs. */
  signal?: AbortSignal;
  /** Absolute time (per `now`) after which no further leg starts and pauses are cut short. */
  deadline?: number;
  /** Clock for `deadline`; defaults to `Date.now`. */
  now?: () => number;
  /** Progress hook, called once per round before anything is dispatched. */
  onRound?: (round: InputRequiredRound) => void;
  /**
   * Pacing of state-only rounds (default 50 ms doubling to 250 ms). Raise it for servers that
   * answer "not yet" while a person finishes something out of band (a URL sign-in).
   */
  stateOnlyBackoff?: StateOnlyBackoff;
}

/**
 * First pause before a state-only retry, and its cap, in milliseconds. The cap is never below
 * the first pause: `{ initialMs: 2000 }` alone waits 2 s every time.
 *
 * @example
 * const backoff: StateOnlyBackoff = { initialMs: 1000, capMs: 5000 }; // 1 s, 2 s, 4 s, 5 s, ...
 */
export interface StateOnlyBackoff {
  readonly initialMs?: number;
  readonly capMs?: number;
}

/**
 * The pure input-required driver: answers each round's `inputRequests` concurrently and retries
 * until the server answers anything but `input_required`. The retry always carries the latest
 * `requestState` exactly as received (never parsed). Rounds that carry only state are paced
 * 50 → 100 → 200 → 250 ms (reset by any round with questions) so a "not yet" server is not
 * hammered.
 *
 * @example
 * const result = await runInputRequiredLoop(first, {
 *   maxRounds: DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
 *   dispatch: async (key, request) => answer(request),
 *   retry: (inputResponses, requestState) =>
 *     session.callTool("provision", args, { inputResponses, requestState, allowInputRequired: true }),
 * });
 */
export async function runInputRequiredLoop<R extends ResultObject>(
  first: R | InputRequiredResult,
  options: InputRequiredLoopOptions<R>,
): Promise<R> {
  const { dispatch, retry, maxRounds, signal, deadline, onRound } = options;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const checkBudget = () => {
    throwIfAborted(signal);
    if (deadline !== undefined && now() >= deadline) {
      throw new RequestTimeoutError("The input-required flow ran past its deadline");
    }
  };
  let current = first;
  let rounds = 0;
  const initialBackoff = options.stateOnlyBackoff?.initialMs ?? STATE_ONLY_BACKOFF_INITIAL_MS;
  // A raised first pause is never cut back by the default cap: later pauses would shrink.
  const backoffCap = Math.max(options.stateOnlyBackoff?.capMs ?? STATE_ONLY_BACKOFF_CAP_MS, initialBackoff);
  let backoff = initialBackoff;
  while (isInputRequiredResult(current)) {
    rounds++;
    // The cap is checked before anything is dispatched, so the caller can resume from lastResult.
    if (rounds > maxRounds) throw new InputRequiredRoundsExceededError(maxRounds, current);
    checkBudget();
    const requests = Object.entries(current.inputRequests ?? {});
    onRound?.({ round: rounds, maxRounds, result: current, stateOnly: requests.length === 0 });
    let responses: InputResponses | undefined;
    if (requests.length > 0) {
      responses = await dispatchAll(requests, dispatch, signal);
      backoff = initialBackoff;
    } else {
      const pause = deadline === undefined ? backoff : Math.min(backoff, Math.max(0, deadline - now()));
      await sleep(pause, signal);
      backoff = Math.min(backoff * 2, backoffCap);
    }
    checkBudget();
    current = await retry(responses, current.requestState, signal);
  }
  return current;
}

/**
 * Runs every entry of a round at once. The first failure aborts the siblings (through their
 * signal) and is raised; later settlements are ignored. An aborted flow rejects at once, even if
 * a callback ignores its signal. The task driver answers `input_required` tasks with it too.
 */
export function dispatchAll(
  requests: readonly [string, InputRequest][],
  dispatch: DispatchInputRequest,
  outer: AbortSignal | undefined,
): Promise<InputResponses> {
  throwIfAborted(outer);
  // Each one is a dialog or a model call, all started at once: a server is not let ask for thousands.
  if (requests.length > MAX_ROUND_REQUESTS) {
    throw new ProtocolError(
      `The server asked for ${requests.length} inputs in one round; at most ${MAX_ROUND_REQUESTS} are answered`,
    );
  }
  // A lone request has no sibling to stop: it runs under the flow's own signal.
  const siblings = requests.length === 1 ? undefined : new AbortController();
  return new Promise<InputResponses>((resolve, reject) => {
    const responses: InputResponses = {};
    let remaining = requests.length;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      outer?.removeEventListener("abort", onOuterAbort);
      siblings?.abort(error);
      reject(error);
    };
    const onOuterAbort = () => fail(abortReason(outer));
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    for (const [key, request] of requests) {
      // Each callback starts in its own microtask so a synchronous throw is a failure like any other.
      Promise.resolve()
        .then(() => dispatch(key, request, siblings?.signal ?? outer ?? NEVER_ABORTED))
        .then(
          (response) => {
            if (settled) return;
            responses[key] = response;
            if (--remaining === 0) {
              settled = true;
              outer?.removeEventListener("abort", onOuterAbort);
              resolve(responses);
            }
          },
          (error: unknown) => fail(error),
        );
    }
  });
}

/** Most inputRequests one round may hold (as many server requests as a 2025 session may keep waiting). */
const MAX_ROUND_REQUESTS = 100;

/** The caller's own abort reason when it gave one; the platform's default AbortError reads as ours. */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name !== "AbortError") return reason;
  return new RequestAbortedError("The input-required flow was aborted");
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** `setTimeout` as a promise that rejects as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, timerDelay(ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
