import * as z from "zod";
import { LOGGING_LEVEL_ORDER } from "./constants.js";

/** Any JSON object. */
export const JSONObjectSchema = z.record(z.string(), z.unknown());
/** Any JSON object. */
export type JSONObject = z.infer<typeof JSONObjectSchema>;

/** `_meta` on anything other than requests and results. */
export const MetaObjectSchema = JSONObjectSchema;

/** The zod schema of {@link Role}. */
export const RoleSchema = z.enum(["user", "assistant"]);
/** Who a message is from: `"user"` or `"assistant"`. */
export type Role = z.infer<typeof RoleSchema>;

/** The zod schema of {@link Icon}. */
export const IconSchema = z.looseObject({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(["light", "dark"]).optional(),
});
/**
 * An icon to show for a server, tool, prompt or resource: an image `src` with optional MIME type, sizes and
 * theme.
 */
export type Icon = z.infer<typeof IconSchema>;

/** Name and version of a client or server implementation. */
export const ImplementationSchema = z.looseObject({
  name: z.string(),
  version: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  websiteUrl: z.string().optional(),
  icons: z.array(IconSchema).optional(),
});
/** Name and version of a client or server implementation. */
export type Implementation = z.infer<typeof ImplementationSchema>;

/** The zod schema of {@link ProgressToken}. */
export const ProgressTokenSchema = z.union([z.string(), z.int()]);
/**
 * The `progressToken` a request's `_meta` carries and its progress notifications echo: a string or an
 * integer.
 */
export type ProgressToken = z.infer<typeof ProgressTokenSchema>;

/** An opaque pagination cursor: a list result's `nextCursor`, sent back as the next request's `cursor`. */
export const CursorSchema = z.string();

/** The zod schema of {@link LoggingLevel}. */
export const LoggingLevelSchema = z.enum(LOGGING_LEVEL_ORDER);
/** A log message's severity, from `"debug"` to `"emergency"` (in `LOGGING_LEVEL_ORDER`). */
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;
