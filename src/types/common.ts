import * as z from "zod";
import { LOGGING_LEVEL_ORDER } from "./constants.js";

/** Any JSON object. */
export const JSONObjectSchema = z.record(z.string(), z.unknown());
export type JSONObject = z.infer<typeof JSONObjectSchema>;

/** `_meta` on anything other than requests and results. */
export const MetaObjectSchema = JSONObjectSchema;

export const RoleSchema = z.enum(["user", "assistant"]);
export type Role = z.infer<typeof RoleSchema>;

export const IconSchema = z.looseObject({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(["light", "dark"]).optional(),
});
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
export type Implementation = z.infer<typeof ImplementationSchema>;

export const ProgressTokenSchema = z.union([z.string(), z.int()]);
export type ProgressToken = z.infer<typeof ProgressTokenSchema>;

export const CursorSchema = z.string();

export const LoggingLevelSchema = z.enum(LOGGING_LEVEL_ORDER);
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;
