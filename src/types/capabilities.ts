import * as z from "zod";
import { JSONObjectSchema } from "./common.js";

/** Capabilities a client declares on every modern request. `{}` declares none. */
export const ClientCapabilitiesSchema = z.looseObject({
  experimental: z.record(z.string(), JSONObjectSchema).optional(),
  roots: JSONObjectSchema.optional(),
  sampling: z
    .looseObject({ context: JSONObjectSchema.optional(), tools: JSONObjectSchema.optional() })
    .optional(),
  elicitation: z
    .looseObject({ form: JSONObjectSchema.optional(), url: JSONObjectSchema.optional() })
    .optional(),
  extensions: z.record(z.string(), JSONObjectSchema).optional(),
});
/** Capabilities a client declares on every modern request. `{}` declares none. */
export type ClientCapabilities = z.infer<typeof ClientCapabilitiesSchema>;

/** Capabilities a server advertises through `server/discover`. */
export const ServerCapabilitiesSchema = z.looseObject({
  experimental: z.record(z.string(), JSONObjectSchema).optional(),
  logging: JSONObjectSchema.optional(),
  completions: JSONObjectSchema.optional(),
  prompts: z.looseObject({ listChanged: z.boolean().optional() }).optional(),
  resources: z
    .looseObject({ subscribe: z.boolean().optional(), listChanged: z.boolean().optional() })
    .optional(),
  tools: z.looseObject({ listChanged: z.boolean().optional() }).optional(),
  extensions: z.record(z.string(), JSONObjectSchema).optional(),
});
/** Capabilities a server advertises through `server/discover`. */
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;
