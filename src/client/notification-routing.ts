/** Where the notifications sent on one request's stream go: progress, log messages, the rest. */

import { NotificationMethod } from "../types/core.js";
import type {
  JSONRPCNotification,
  LoggingMessageNotificationParams,
  ProgressNotificationParams,
} from "../types/index.js";
import type { CallOptions } from "./session-options.js";

/**
 * The router of one request's notifications; `undefined` when nobody listens, so that a request
 * without listeners allocates no closure (the connection then hands everything to `unclaimed`
 * itself). A listener that throws (or rejects) is reported to `warn` and the request goes on.
 * Without an `onNotification`, any other notification goes to `unclaimed`, the session's own
 * handler: a 2025 server may send a list change or a resource update on the stream of the request
 * that caused it, and the session's subscriptions and cache must hear it whatever the request
 * listens to.
 */
export function notificationRouter(
  onProgress: CallOptions["onProgress"],
  onLog: CallOptions["onLog"],
  onNotification: CallOptions["onNotification"],
  warn: (message: string) => void,
  unclaimed: (notification: JSONRPCNotification) => void,
): ((notification: JSONRPCNotification) => void) | undefined {
  if (onProgress === undefined && onLog === undefined && onNotification === undefined) return undefined;
  return (notification) => {
    if (notification.method === NotificationMethod.Progress) {
      guarded(notification, warn, onProgress, notification.params as ProgressNotificationParams);
    } else if (notification.method === NotificationMethod.Message) {
      guarded(notification, warn, onLog, notification.params as LoggingMessageNotificationParams);
    } else if (onNotification === undefined) {
      unclaimed(notification);
    } else {
      guarded(notification, warn, onNotification, notification);
    }
  };
}

/**
 * The `onWarning` a session or group calls (stderr by default). A sink that throws is ignored:
 * it is called from inside a request, a stream being read or a join, and its failure would
 * become theirs.
 *
 * @example
 * const warn = warningSink(options.onWarning);
 */
export function warningSink(onWarning: ((message: string) => void) | undefined): (message: string) => void {
  const sink = onWarning ?? ((message: string) => process.stderr.write(`[roundtrip] warn: ${message}\n`));
  return (message) => {
    try {
      sink(message);
    } catch {
      // The warning sink's failure is its own: there is nowhere further to report it.
    }
  };
}

/**
 * Each session's `onWarning` (or its stderr default), for the listeners that run outside a
 * request: a 2025 session's subscriptions ride the connection's own notification hook.
 */
export const sessionWarnings = new WeakMap<object, (message: string) => void>();

/**
 * Hands what the transport reports through `onerror` (an SSE event that is not JSON, session state
 * a renewed 2025 session refused, a stdio server that exited) to `warn`. Only the message goes: a
 * cause or stack could carry a request's URL and its token. A `warn` that throws is ignored, as the
 * report comes from inside a stream being read, which would break.
 *
 * @example
 * session.connection.onError = (error) => reportTransportError(warn, error);
 */
export function reportTransportError(warn: (message: string) => void, error: Error): void {
  try {
    warn(`The transport reported: ${error.message}`);
  } catch {
    // The warning sink's failure is its own: there is nowhere further to report it.
  }
}

/**
 * Calls a caller's listener. Its failure is its own: thrown on, it would break the request's
 * stream (over HTTP a read is then sent again) or escape as an uncaught exception.
 */
export function guarded<T>(
  notification: JSONRPCNotification,
  warn: (message: string) => void,
  listener: ((value: T) => unknown) | undefined,
  value: T,
): void {
  const report = (error: unknown) =>
    warn(
      `A listener of ${notification.method} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  try {
    const outcome = listener?.(value);
    if (outcome instanceof Promise) outcome.catch(report);
  } catch (error) {
    report(error);
  }
}
