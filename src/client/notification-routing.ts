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
 * without listeners allocates no closure.
 */
export function notificationRouter(
  onProgress: CallOptions["onProgress"],
  onLog: CallOptions["onLog"],
  onNotification: CallOptions["onNotification"],
): ((notification: JSONRPCNotification) => void) | undefined {
  if (onProgress === undefined && onLog === undefined && onNotification === undefined) return undefined;
  return (notification) => {
    if (notification.method === NotificationMethod.Progress) {
      onProgress?.(notification.params as ProgressNotificationParams);
    } else if (notification.method === NotificationMethod.Message) {
      onLog?.(notification.params as LoggingMessageNotificationParams);
    } else {
      onNotification?.(notification);
    }
  };
}
