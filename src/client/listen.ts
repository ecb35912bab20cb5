import { RequestAbortedError } from "../shared/errors.js";
import { McpError, NotificationMethod, validSubscriptionFilter } from "../types/core.js";
import type { JSONRPCNotification, SubscriptionFilter } from "../types/index.js";
import type { ClientSession } from "./session.js";

/** An open `subscriptions/listen` stream. */
export interface Subscription {
  /** The filter the server agreed to honour (compare it with what you asked for). */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /** Settles when the stream ends: the server's graceful close, or `close()`. Rejects on failure. */
  readonly closed: Promise<void>;
  /** Ends the subscription (HTTP: closes the stream; stdio: `notifications/cancelled`). */
  close(): void;
}

/**
 * Opens a listen stream on a session: the acknowledgement first, then each notification the
 * filter asked for (already demultiplexed by subscription id).
 */
export function openSubscription(
  session: ClientSession,
  filter: SubscriptionFilter,
  onNotification: (notification: JSONRPCNotification) => void,
): Subscription {
  const controller = new AbortController();
  let acknowledge!: (filter: SubscriptionFilter) => void;
  let refuse!: (error: Error) => void;
  const acknowledged = new Promise<SubscriptionFilter>((resolve, reject) => {
    acknowledge = resolve;
    refuse = reject;
  });
  let isAcknowledged = false;
  const closed = session
    .request(
      "subscriptions/listen",
      { notifications: filter },
      {
        signal: controller.signal,
        timeoutMs: Number.POSITIVE_INFINITY,
        onNotification: (notification) => {
          if (notification.method === NotificationMethod.SubscriptionsAcknowledged) {
            const honoured = notification.params?.notifications;
            isAcknowledged = true;
            acknowledge(validSubscriptionFilter(honoured) ? (honoured as SubscriptionFilter) : {});
            return;
          }
          onNotification(notification);
        },
      },
    )
    .then(
      () => {
        if (!isAcknowledged) acknowledge({});
      },
      (error: unknown) => {
        if (error instanceof RequestAbortedError && controller.signal.aborted) {
          if (!isAcknowledged) refuse(error);
          return;
        }
        const failure = error instanceof Error ? error : new McpError(-32603, String(error));
        if (!isAcknowledged) refuse(failure);
        throw failure;
      },
    );
  // Callers may never await these; a failure must not become an unhandled rejection.
  acknowledged.catch(() => {});
  closed.catch(() => {});
  return { acknowledged, closed, close: () => controller.abort() };
}
