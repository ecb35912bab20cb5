/**
 * One request in flight on a `JsonRpcConnection`: its settlement, its timeout (restarted by
 * progress when asked) and its abort listener, and the options a request takes.
 */
import { MetaKey } from "../types/core.js";
import type { JSONRPCNotification, RequestId, ResultObject } from "../types/index.js";
import { RequestAbortedError, RequestTimeoutError } from "./errors.js";
import { timerDelay } from "./timers.js";

/** Per-request options of `JsonRpcConnection.request`. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Milliseconds before the request fails locally with `RequestTimeoutError`. */
  timeoutMs?: number;
  /** Restart `timeoutMs` on each progress notification of the request, up to `maxTimeoutMs`. */
  resetTimeoutOnProgress?: boolean | undefined;
  /** The cap of a request whose timeout restarts on progress (default ten times `timeoutMs`). */
  maxTimeoutMs?: number | undefined;
  /** Notifications that belong to this request (its stream, or its progress token). */
  onNotification?: (notification: JSONRPCNotification) => void;
  /**
   * A listen stream, which ends with its result or a cancel: the peer's `notifications/cancelled`
   * naming this request resolves it as the stream's graceful close would.
   */
  endsOnPeerCancel?: boolean;
}

export interface Pending {
  resolve(result: ResultObject): void;
  reject(error: Error): void;
  readonly onNotification?: ((notification: JSONRPCNotification) => void) | undefined;
  readonly progressToken?: unknown;
  readonly endsOnPeerCancel?: boolean;
  /** The request asked for log messages (`logLevel` in its `_meta`). */
  readonly asksForLogs?: boolean;
  /** The request reported progress. */
  progressed?(): void;
}

/** The connection's side of a pending call. */
export interface CallBook {
  /** The call settled: drop it from the table. */
  forget(id: RequestId): void;
  /** We gave up on the call (timeout, abort): tell the other side. */
  cancel(id: RequestId, reason: string): void;
}

function restartPlan(timeoutMs: number, maxMs: number) {
  return { timeoutMs, maxMs, deadline: Date.now() + maxMs };
}

/**
 * One request in flight: its settlement, its timer and its abort listener. A class rather than a
 * handful of closures per request, because an in-memory call is cheap enough for those to show.
 */
export class PendingCall implements Pending {
  readonly onNotification: ((notification: JSONRPCNotification) => void) | undefined;
  readonly progressToken: unknown;
  readonly endsOnPeerCancel: boolean;
  readonly asksForLogs: boolean;
  readonly #book: CallBook;
  readonly #id: RequestId;
  readonly #method: string;
  readonly #resolve: (result: ResultObject) => void;
  readonly #reject: (error: Error) => void;
  readonly #signal: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** With `resetTimeoutOnProgress`: the timeout, and when the request must be over regardless. */
  readonly #restart:
    | { readonly timeoutMs: number; readonly maxMs: number; readonly deadline: number }
    | undefined;
  #onAbort: (() => void) | undefined;

  constructor(
    book: CallBook,
    id: RequestId,
    method: string,
    resolve: (result: ResultObject) => void,
    reject: (error: Error) => void,
    options: RequestOptions,
    meta: Record<string, unknown> | undefined,
  ) {
    this.#book = book;
    this.#id = id;
    this.#method = method;
    this.#resolve = resolve;
    this.#reject = reject;
    this.onNotification = options.onNotification;
    this.progressToken = meta?.[MetaKey.ProgressToken];
    this.endsOnPeerCancel = options.endsOnPeerCancel === true;
    this.asksForLogs = meta?.[MetaKey.LogLevel] !== undefined;
    const { signal, timeoutMs } = options;
    this.#signal = signal;
    if (signal) {
      this.#onAbort = () =>
        this.#abandon(
          new RequestAbortedError(`Request ${method} was aborted`, { cause: signal.reason }),
          "aborted by the client",
        );
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
    // An infinite timeout (listen streams) means none: setTimeout would treat it as 1 ms.
    if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
      if (options.resetTimeoutOnProgress === true) {
        this.#restart = restartPlan(timeoutMs, options.maxTimeoutMs ?? timeoutMs * 10);
      }
      // The cap holds even for a request that never reports progress.
      this.#timer = PendingCall.#arm(this, Math.min(timeoutMs, this.#restart?.maxMs ?? timeoutMs));
    }
  }

  progressed(): void {
    const restart = this.#restart;
    if (restart === undefined || this.#timer === undefined) return;
    clearTimeout(this.#timer);
    const left = restart.deadline - Date.now();
    this.#timer =
      left > restart.timeoutMs
        ? PendingCall.#arm(this, restart.timeoutMs)
        : PendingCall.#arm(this, restart.maxMs, Math.max(left, 0));
  }

  /** Times `call` out after `delayMs`, reporting `timeoutMs` as the limit it ran into. */
  static #arm(call: PendingCall, timeoutMs: number, delayMs = timeoutMs): ReturnType<typeof setTimeout> {
    return setTimeout(PendingCall.#timedOut, timerDelay(delayMs), call, timeoutMs);
  }

  static #timedOut(call: PendingCall, timeoutMs: number): void {
    call.#abandon(
      new RequestTimeoutError(`Request ${call.#method} timed out after ${timeoutMs} ms`),
      "timeout",
    );
  }

  resolve(result: ResultObject): void {
    this.#cleanup();
    this.#resolve(result);
  }

  reject(error: Error): void {
    this.#cleanup();
    this.#reject(error);
  }

  /** The transport could not send the request. */
  readonly sendFailed = (error: unknown): void => {
    this.reject(error instanceof Error ? error : new Error(String(error)));
  };

  #abandon(error: Error, reason: string): void {
    this.#cleanup();
    this.#book.cancel(this.#id, reason);
    this.#reject(error);
  }

  #cleanup(): void {
    this.#book.forget(this.#id);
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#onAbort) this.#signal?.removeEventListener("abort", this.#onAbort);
  }
}
