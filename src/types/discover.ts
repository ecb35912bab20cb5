import * as z from "zod";
import { ServerCapabilitiesSchema } from "./capabilities.js";
import { CacheableResultSchema } from "./result.js";

export const DiscoverResultSchema = CacheableResultSchema.extend({
  supportedVersions: z.array(z.string()),
  capabilities: ServerCapabilitiesSchema,
  instructions: z.string().optional(),
});
export type DiscoverResult = z.infer<typeof DiscoverResultSchema>;
