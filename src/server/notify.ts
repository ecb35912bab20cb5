import { LOGGING_LEVEL_ORDER, NotificationMethod } from "../types/core.js";
import type { JSONRPCNotification, LoggingLevel, ProgressNotificationParams } from "../types/index.js";
import type { ServerRequestContext } from "./context.js";

/**
 * Reports progress on the current request. Sent only when the request carried a `progressToken`;
 * otherwise a no-op.
 *
 * @example
 * await sendProgress(ctx, 1, 3, "copying");
 */
export async function sendProgress(
  ctx: ServerRequestContext,
  progress: number,
  total?: number,
  message?: string,
): Promise<void> {
  if (ctx.progressToken === undefined) return;
  const params: ProgressNotificationParams = { progressToken: ctx.progressToken, progress };
  if (total !== undefined) params.total = total;
  if (message !== undefined) params.message = message;
  await ctx.notify({ jsonrpc: "2.0", method: NotificationMethod.Progress, params });
}

/**
 * True when a message at `level` passes the request's `logLevel` (no level: nothing passes).
 *
 * @example
 * logLevelAllows("warning", "error"); // true
 * logLevelAllows(undefined, "emergency"); // false
 */
export function logLevelAllows(requested: LoggingLevel | undefined, level: LoggingLevel): boolean {
  if (requested === undefined) return false;
  return LOGGING_LEVEL_ORDER.indexOf(level) >= LOGGING_LEVEL_ORDER.indexOf(requested);
}

/**
 * Whether a handler's message may go on its request's stream: a notification (a 2026 server never
 * sends the client a request), and a log message only as the request's `logLevel` allows, however
 * the handler built it.
 *
 * @example
 * streamAllows({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info" } }, undefined); // false
 */
export function streamAllows(message: JSONRPCNotification, logLevel: LoggingLevel | undefined): boolean {
  if ("id" in message) return false;
  if (message.method !== NotificationMethod.Message) return true;
  // A missing or unknown level ranks below every level, so it never passes.
  const level = (message.params as { level?: LoggingLevel } | undefined)?.level;
  return logLevelAllows(logLevel, level as LoggingLevel);
}

/**
 * Sends a log message on the current request's stream. The 2026 wire allows it only when the
 * request set `_meta["io.modelcontextprotocol/logLevel"]`, and only at or above that level.
 *
 * @example
 * await sendLog(ctx, "info", { step: "provisioning" }, "provisioner");
 */
export async function sendLog(
  ctx: ServerRequestContext,
  level: LoggingLevel,
  data: unknown,
  logger?: string,
): Promise<void> {
  if (!logLevelAllows(ctx.logLevel, level)) return;
  const params: Record<string, unknown> = { level, data };
  if (logger !== undefined) params.logger = logger;
  await ctx.notify({ jsonrpc: "2.0", method: NotificationMethod.Message, params });
}
