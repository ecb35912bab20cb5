import * as z from "zod";
import { LoggingLevelSchema, ProgressTokenSchema } from "./common.js";
import { RequestIdSchema } from "./jsonrpc.js";
import { MetaKey, RequestParamsSchema } from "./meta.js";

export const ProgressNotificationParamsSchema = z.looseObject({
  progressToken: ProgressTokenSchema,
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional(),
});
export type ProgressNotificationParams = z.infer<typeof ProgressNotificationParamsSchema>;

export const LoggingMessageNotificationParamsSchema = z.looseObject({
  level: LoggingLevelSchema,
  logger: z.string().optional(),
  data: z.unknown(),
});
export type LoggingMessageNotificationParams = z.infer<typeof LoggingMessageNotificationParamsSchema>;

export const CancelledNotificationParamsSchema = z.looseObject({
  requestId: RequestIdSchema,
  reason: z.string().optional(),
});
export type CancelledNotificationParams = z.infer<typeof CancelledNotificationParamsSchema>;

/** What a `subscriptions/listen` asks to hear about. */
export const SubscriptionFilterSchema = z.looseObject({
  toolsListChanged: z.boolean().optional(),
  promptsListChanged: z.boolean().optional(),
  resourcesListChanged: z.boolean().optional(),
  resourceSubscriptions: z.array(z.string()).optional(),
});
export type SubscriptionFilter = z.infer<typeof SubscriptionFilterSchema>;

export const SubscriptionsListenRequestParamsSchema = RequestParamsSchema.extend({
  notifications: SubscriptionFilterSchema,
});

export const SubscriptionsAcknowledgedNotificationParamsSchema = z.looseObject({
  notifications: SubscriptionFilterSchema,
});

export { LOGGING_LEVEL_ORDER } from "./constants.js";

/** The graceful close of a listen stream: `_meta.subscriptionId` is required. */
export const SubscriptionsListenResultSchema = z.looseObject({
  resultType: z.string().optional(),
  _meta: z.looseObject({ [MetaKey.SubscriptionId]: RequestIdSchema }),
});
