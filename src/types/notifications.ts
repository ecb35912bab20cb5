import * as z from "zod";
import { LoggingLevelSchema, ProgressTokenSchema } from "./common.js";
import { RequestIdSchema } from "./jsonrpc.js";
import { MetaKey, RequestParamsSchema } from "./meta.js";

/** The zod schema of {@link ProgressNotificationParams}. */
export const ProgressNotificationParamsSchema = z.looseObject({
  progressToken: ProgressTokenSchema,
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional(),
});
/**
 * Params of `notifications/progress`: the request's `progressToken`, the `progress` so far,
 * and optional `total` and `message`.
 */
export type ProgressNotificationParams = z.infer<typeof ProgressNotificationParamsSchema>;

/** The zod schema of {@link LoggingMessageNotificationParams}. */
export const LoggingMessageNotificationParamsSchema = z.looseObject({
  level: LoggingLevelSchema,
  logger: z.string().optional(),
  data: z.unknown(),
});
/** Params of `notifications/message`: a log entry's `level`, optional `logger` name and `data`. */
export type LoggingMessageNotificationParams = z.infer<typeof LoggingMessageNotificationParamsSchema>;

/** The zod schema of {@link CancelledNotificationParams}. */
export const CancelledNotificationParamsSchema = z.looseObject({
  requestId: RequestIdSchema,
  reason: z.string().optional(),
});
/** Params of `notifications/cancelled`: the `requestId` to stop working on and an optional `reason`. */
export type CancelledNotificationParams = z.infer<typeof CancelledNotificationParamsSchema>;

/** What a `subscriptions/listen` asks to hear about. */
export const SubscriptionFilterSchema = z.looseObject({
  toolsListChanged: z.boolean().optional(),
  promptsListChanged: z.boolean().optional(),
  resourcesListChanged: z.boolean().optional(),
  resourceSubscriptions: z.array(z.string()).optional(),
});
/** What a `subscriptions/listen` asks to hear about. */
export type SubscriptionFilter = z.infer<typeof SubscriptionFilterSchema>;

/** The zod schema of the params of `subscriptions/listen`: the `notifications` to hear about. */
export const SubscriptionsListenRequestParamsSchema = RequestParamsSchema.extend({
  notifications: SubscriptionFilterSchema,
});

/**
 * The zod schema of the params of `notifications/subscriptions/acknowledged`: the part of the
 * filter the server honours.
 */
export const SubscriptionsAcknowledgedNotificationParamsSchema = z.looseObject({
  notifications: SubscriptionFilterSchema,
});

export { LOGGING_LEVEL_ORDER } from "./constants.js";

/** The graceful close of a listen stream: `_meta.subscriptionId` is required. */
export const SubscriptionsListenResultSchema = z.looseObject({
  resultType: z.string().optional(),
  _meta: z.looseObject({ [MetaKey.SubscriptionId]: RequestIdSchema }),
});
