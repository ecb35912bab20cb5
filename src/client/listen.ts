import { RequestAbortedError } from "../shared/errors.js";
import { filterCovers, taskIdsOf } from "../shared/subscription-filter.js";
import { pause } from "../shared/timers.js";
import { HttpStatusError, HttpTransportError } from "../transports/http/errors.js";
import { McpError, NotificationMethod, validSubscriptionFilter } from "../types/core.js";
import type { JSONRPCNotification, SubscriptionFilter } from "../types/index.js";
import type { ClientSession } from "./session.js";

/** An open `subscriptions/listen` stream. */
export interface Subscription {
  /**
   * The filter the server agreed to honour (compare it with what you asked for); only
   * notifications both filters cover are delivered.
   */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /**
   * Settles when the stream ends: the server's graceful close or `notifications/cancelled`, or `close()`. Rejects on failure,
   * including when a dropped stream could not be re-opened.
   */
  readonly closed: Promise<void>;
  /** Ends the subscription (HTTP: closes the stream; stdio: `notifications/cancelled`). */
  close(): void;
}

/**
 * What to do when an acknowledged stream drops without the server's response (spec §3.3: the
 * client MAY listen again).
 *
 * @example
 * client.listen({ toolsListChanged: true }, onChange, { onReconnect: () => void refreshTools() });
 */
export interface ListenOptions {
  /**
   * Re-open the stream after a drop: `false` never; by default up to 5 attempts in a row, waiting
   * 1 s, doubling to 30 s (a key left `undefined` keeps its default; a count or wait that is not a
   * non-negative number is a RangeError). A stream that is acknowledged again resets the count.
   */
  reconnect?: false | { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  /**
   * Called with the new acknowledgement once a dropped stream is open again. Notifications sent
   * while it was down are lost: re-read what you rely on.
   */
  onReconnect?: (acknowledged: SubscriptionFilter) => void;
}

const DEFAULT_RECONNECT = { maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 30_000 };

type ReconnectPolicy = typeof DEFAULT_RECONNECT;

/**
 * The reconnect options over their defaults. A key given as `undefined` takes its default (a
 * spread would copy the `undefined`: no attempt count ever reached, a NaN wait that timers turn
 * into 1 ms), and a value no count or wait can be is refused: either way the client would listen
 * again as fast as the server drops it, for ever.
 */
function reconnectPolicy(reconnect: ListenOptions["reconnect"]): ReconnectPolicy | undefined {
  if (reconnect === false) return undefined;
  const policy = {
    maxAttempts: reconnect?.maxAttempts ?? DEFAULT_RECONNECT.maxAttempts,
    initialDelayMs: reconnect?.initialDelayMs ?? DEFAULT_RECONNECT.initialDelayMs,
    maxDelayMs: reconnect?.maxDelayMs ?? DEFAULT_RECONNECT.maxDelayMs,
  };
  const attempts = policy.maxAttempts;
  // Infinity is a count too: a host that listens for as long as it runs, never faster than maxDelayMs.
  if (!((Number.isInteger(attempts) || attempts === Number.POSITIVE_INFINITY) && attempts >= 0)) {
    throw new RangeError(`reconnect.maxAttempts must be a non-negative integer, got ${attempts}`);
  }
  for (const key of ["initialDelayMs", "maxDelayMs"] as const) {
    const ms = policy[key];
    if (!(Number.isFinite(ms) && ms >= 0)) {
      throw new RangeError(`reconnect.${key} must be a non-negative number, got ${ms}`);
    }
  }
  return policy;
}

/** Statuses a gateway or a restarting server answers for a while: worth another try. */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * A failure the client may recover from by listening again: the HTTP stream or the POST broke
 * off, or a gateway said the server is briefly away. A JSON-RPC error or any other HTTP status is
 * the server's answer, and a closed connection (stdio) has nothing left to listen on.
 */
function dropped(error: unknown): boolean {
  if (error instanceof HttpStatusError) return TRANSIENT_STATUSES.has(error.status);
  return error instanceof HttpTransportError;
}

/**
 * Opens a listen stream on a session: the acknowledgement first, then each notification the
 * filter asked for and the server agreed to (already demultiplexed by subscription id; anything
 * else a server sends on the stream is dropped). An acknowledged stream that drops
 * is re-opened as `options.reconnect` says.
 */
export function openSubscription(
  session: ClientSession,
  filter: SubscriptionFilter,
  onNotification: (notification: JSONRPCNotification) => void,
  options: ListenOptions = {},
): Subscription {
  const policy = reconnectPolicy(options.reconnect);
  const controller = new AbortController();
  let acknowledge!: (filter: SubscriptionFilter) => void;
  let refuse!: (error: Error) => void;
  const acknowledged = new Promise<SubscriptionFilter>((resolve, reject) => {
    acknowledge = resolve;
    refuse = reject;
  });
  let isAcknowledged = false;
  /** What the server last agreed to; until then, what was asked. */
  let agreed: SubscriptionFilter = filter;
  /** `agreed` as the notifications are checked against it: no task id the caller did not ask for. */
  let covering: SubscriptionFilter = filter;
  let failures = 0;

  /** One listen request; resolves on the server's graceful close or its cancel. */
  const listenOnce = () => {
    let streamAcknowledged = false;
    return session.request(
      "subscriptions/listen",
      { notifications: filter },
      {
        signal: controller.signal,
        timeoutMs: Number.POSITIVE_INFINITY,
        // What a listener returns is handed back: the request's router reports a promise it
        // rejects as it does a throw, where dropped here it would be an unhandled rejection.
        onNotification: (notification) => {
          if (notification.method !== NotificationMethod.SubscriptionsAcknowledged) {
            // Only what was both asked for and agreed to reaches the caller (spec §3.3).
            const { method, params } = notification;
            if (filterCovers(filter, method, params) && filterCovers(covering, method, params)) {
              return onNotification(notification);
            }
            return;
          }
          // Only a stream's first acknowledgement counts: a repeat neither reconnects nor re-filters.
          if (streamAcknowledged) return;
          streamAcknowledged = true;
          const honoured = notification.params?.notifications;
          agreed = validSubscriptionFilter(honoured) ? (honoured as SubscriptionFilter) : {};
          covering = askedTaskIdsOnly(agreed, filter);
          failures = 0;
          if (isAcknowledged) return options.onReconnect?.(agreed);
          isAcknowledged = true;
          acknowledge(agreed);
        },
      },
    );
  };

  const run = async (): Promise<void> => {
    for (;;) {
      try {
        await listenOnce();
        if (!isAcknowledged) acknowledge({});
        return;
      } catch (error) {
        if (error instanceof RequestAbortedError && controller.signal.aborted) {
          if (!isAcknowledged) refuse(error);
          return;
        }
        const failure = error instanceof Error ? error : new McpError(-32603, String(error));
        // Only a stream that was open once is re-opened: a first refusal is the caller's to see.
        if (!isAcknowledged || policy === undefined || !dropped(error) || failures >= policy.maxAttempts) {
          if (!isAcknowledged) refuse(failure);
          throw failure;
        }
        const wait = Math.min(policy.initialDelayMs * 2 ** failures, policy.maxDelayMs);
        failures++;
        await pause(wait, controller.signal);
        if (controller.signal.aborted) return;
      }
    }
  };

  const closed = run();
  // Callers may never await these; a failure must not become an unhandled rejection.
  acknowledged.catch(() => {});
  closed.catch(() => {});
  return { acknowledged, closed, close: () => controller.abort() };
}

/**
 * `agreed` with only the task ids `asked` names: no other can pass both filters, and a server's
 * acknowledgement listing a million would otherwise be scanned again for each task notification.
 */
function askedTaskIdsOnly(agreed: SubscriptionFilter, asked: SubscriptionFilter): SubscriptionFilter {
  if (!Array.isArray(agreed.taskIds)) return agreed;
  const wanted = new Set(taskIdsOf(asked));
  return { ...agreed, taskIds: agreed.taskIds.filter((id) => wanted.has(id)) };
}
