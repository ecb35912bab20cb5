/**
 * The modern (2026-07-28) dispatch behind the HTTP endpoint: one request answered as JSON or SSE,
 * and the listen streams it serves, which the endpoint can end with their closing result.
 */
import { Cancellation } from "../../shared/cancellation.js";
import { type AuthInfo, type Dispatcher, type HttpRequestView, httpStatusOf } from "../../shared/dispatch.js";
import { LazyDispatchContext, withLazySignal } from "../../shared/lazy-signal.js";
import { timerDelay } from "../../shared/timers.js";
import { requestIdOf } from "../../types/record.js";
import type { Reply } from "./body.js";
import { answerExchange, type ResponseMode } from "./exchange.js";
import type { HttpHandlerOptions } from "./handler-options.js";
import type { Incoming } from "./incoming.js";

/**
 * Dispatches one modern request and answers it as JSON or SSE (see `answerExchange`). A listen
 * stream registers in `listens` how the handler ends it: its signal aborts but, unlike the client
 * going away, its closing result is still sent.
 */
export function respond(
  dispatcher: Dispatcher,
  message: unknown,
  request: Incoming,
  http: HttpRequestView,
  authInfo: AuthInfo | undefined,
  framing: {
    keepAliveMs: number;
    mode: ResponseMode;
    logger: HttpHandlerOptions["logger"];
    listens: Set<() => void> | undefined;
  },
): Promise<Reply> {
  const { keepAliveMs, mode, logger, listens } = framing;
  return answerExchange({
    request,
    keepAliveMs,
    mode,
    id: requestIdOf(message),
    run: (send, cancellation) => {
      if (!listens)
        return dispatcher.dispatch(message, new LazyDispatchContext(cancellation, send, authInfo, http));
      // Its own signal: the handler ending the stream aborts it, yet the request is not
      // `cancelled` (only the client going away is), so its closing result is still sent.
      const ending = new Cancellation();
      cancellation.onCancel(ending.cancel);
      listens.add(ending.cancel);
      const expiry = dropAtExpiry(authInfo, cancellation.cancel);
      const context = withLazySignal(
        { notify: send, cancelled: cancellation.cancelled, authInfo, http },
        ending,
      );
      return dispatcher.dispatch(message, context).finally(() => {
        clearTimeout(expiry);
        listens.delete(ending.cancel);
      });
    },
    statusOf: httpStatusOf,
    failureStatus: 500,
    onFailure: (error) =>
      logger?.error(`[http] dispatch failed: ${error instanceof Error ? error.message : String(error)}`),
  });
}

/**
 * Drops a listen stream when the token it was opened with expires, as if the connection broke: auth
 * is checked once per request and the stream is one request, so it would otherwise carry news
 * (task results included) to its bearer long after the endpoint refuses the token. A dropped
 * stream, unlike a closed one, is what a client re-opens by itself, with its fresh token.
 *
 * @example
 * const expiry = dropAtExpiry(authInfo, () => stream.end());
 */
export function dropAtExpiry(
  authInfo: AuthInfo | undefined,
  drop: () => void,
): ReturnType<typeof setTimeout> | undefined {
  const expiresAt = authInfo?.expiresAt;
  if (expiresAt === undefined || !Number.isFinite(expiresAt)) return undefined;
  const timer = setTimeout(drop, timerDelay(Math.max(0, expiresAt * 1000 - Date.now())));
  // A stream's timer must never keep a process alive on its own.
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
