import * as z from "zod";
import { ClientCapabilitiesSchema } from "./capabilities.js";
import { ImplementationSchema, LoggingLevelSchema, ProgressTokenSchema } from "./common.js";
import { MetaKey } from "./constants.js";
import { RequestIdSchema } from "./jsonrpc.js";

export { MetaKey };

/** The `_meta` every modern request carries. */
export const RequestMetaSchema = z.looseObject({
  [MetaKey.ProtocolVersion]: z.string(),
  [MetaKey.ClientCapabilities]: ClientCapabilitiesSchema,
  [MetaKey.ClientInfo]: ImplementationSchema.optional(),
  [MetaKey.LogLevel]: LoggingLevelSchema.optional(),
  [MetaKey.ProgressToken]: ProgressTokenSchema.optional(),
  [MetaKey.TraceParent]: z.string().optional(),
  [MetaKey.TraceState]: z.string().optional(),
  [MetaKey.Baggage]: z.string().optional(),
});
/** The `_meta` every modern request carries. */
export type RequestMeta = z.infer<typeof RequestMetaSchema>;

/** The `_meta` a result may carry. */
export const ResultMetaSchema = z.looseObject({
  // Display-only: a malformed stamp reads as absent instead of failing the whole result.
  [MetaKey.ServerInfo]: ImplementationSchema.optional().catch(undefined),
  [MetaKey.SubscriptionId]: RequestIdSchema.optional(),
});
/** The `_meta` a result may carry. */
export type ResultMeta = z.infer<typeof ResultMetaSchema>;

/** The `_meta` a notification may carry. */
export const NotificationMetaSchema = z.looseObject({
  [MetaKey.SubscriptionId]: RequestIdSchema.optional(),
});

/** Params of every modern request: `_meta` is required. */
export const RequestParamsSchema = z.looseObject({ _meta: RequestMetaSchema });
