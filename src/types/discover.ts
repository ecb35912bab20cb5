import * as z from "zod";
import { ServerCapabilitiesSchema } from "./capabilities.js";
import { CacheableResultSchema } from "./result.js";

/** The zod schema of {@link DiscoverResult}. */
export const DiscoverResultSchema = CacheableResultSchema.extend({
  supportedVersions: z.array(z.string()),
  capabilities: ServerCapabilitiesSchema,
  instructions: z.string().optional(),
});
/**
 * The result of `server/discover`: the protocol versions the server supports, its capabilities and
 * optional instructions.
 */
export type DiscoverResult = z.infer<typeof DiscoverResultSchema>;
