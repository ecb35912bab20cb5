import * as z from "zod";
import { ResultMetaSchema } from "./meta.js";

export { type CoreResultType, ResultType } from "./constants.js";

/**
 * Fields every result may carry. `resultType` is required on the 2026 wire; a missing one reads as
 * complete.
 */
export const ResultBaseSchema = z.looseObject({
  resultType: z.string().optional(),
  _meta: ResultMetaSchema.optional(),
});

/** The zod schema of {@link CacheScope}. */
export const CacheScopeSchema = z.enum(["public", "private"]);
/**
 * Who may reuse a cached result: `"public"` results may cross authorization contexts, `"private"` ones not.
 */
export type CacheScope = z.infer<typeof CacheScopeSchema>;

/**
 * Cache hints of the six cacheable results. Required from 2026 servers; absent from legacy ones (read
 * as 0).
 */
export const CacheHintsSchema = z.object({
  ttlMs: z.int().min(0),
  cacheScope: CacheScopeSchema,
});
/**
 * Cache hints of the six cacheable results: how long (`ttlMs`) and by whom (`cacheScope`) a result may be
 * reused.
 */
export type CacheHints = z.infer<typeof CacheHintsSchema>;

/**
 * `ttlMs` as the spec types it: any integer >= 0. Not `z.int()`, whose safe-integer bound would
 * refuse a "forever" like 2^63 - 1 (a 64-bit maximum, which parses to 2^63) and with it the result.
 */
const TtlMsSchema = z
  .number()
  .min(0)
  .refine((ttl) => Number.isInteger(ttl), { message: "an integer" });

/** Cache hints as received: optional, so that legacy results parse. */
export const CacheableResultSchema = ResultBaseSchema.extend({
  ttlMs: TtlMsSchema.optional(),
  cacheScope: CacheScopeSchema.optional(),
});

/** Pagination for list requests. */
export const PaginatedResultSchema = CacheableResultSchema.extend({ nextCursor: z.string().optional() });

/** An empty result, e.g. the graceful close of `subscriptions/listen`. */
export const EmptyResultSchema = ResultBaseSchema;
