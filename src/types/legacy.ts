/**
 * The handshake-era wire (2025-11-25 and older) that a dual-era SDK still speaks: `initialize`,
 * `ping`, `logging/setLevel` and the notifications that went away in 2026-07-28. Only what the
 * legacy layers of the server and the client need.
 */
import * as z from "zod";
import { ClientCapabilitiesSchema, ServerCapabilitiesSchema } from "./capabilities.js";
import { ImplementationSchema, LoggingLevelSchema, MetaObjectSchema } from "./common.js";

export { LegacyMethod } from "./constants.js";

/** Params of `initialize`: what a 2025 client says about itself, once per session. */
export const InitializeRequestParamsSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: ClientCapabilitiesSchema,
  clientInfo: ImplementationSchema,
  _meta: MetaObjectSchema.optional(),
});
export type InitializeRequestParams = z.infer<typeof InitializeRequestParamsSchema>;

/** The answer to `initialize`: the negotiated version and what the server offers. */
export const InitializeResultSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: ServerCapabilitiesSchema,
  serverInfo: ImplementationSchema,
  instructions: z.string().optional(),
  _meta: MetaObjectSchema.optional(),
});
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

/** Params of `logging/setLevel`. */
export const SetLevelRequestParamsSchema = z.looseObject({ level: LoggingLevelSchema });
