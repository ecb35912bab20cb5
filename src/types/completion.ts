import * as z from "zod";
import { RequestParamsSchema } from "./meta.js";
import { ResultBaseSchema } from "./result.js";

/** The zod schema of a completion `ref` to a prompt: `{ type: "ref/prompt", name }`. */
export const PromptReferenceSchema = z.looseObject({ type: z.literal("ref/prompt"), name: z.string() });
/** The zod schema of a completion `ref` to a resource template: `{ type: "ref/resource", uri }`. */
export const ResourceTemplateReferenceSchema = z.looseObject({
  type: z.literal("ref/resource"),
  uri: z.string(),
});

/** The zod schema of {@link CompleteRequestParams}. */
export const CompleteRequestParamsSchema = RequestParamsSchema.extend({
  ref: z.discriminatedUnion("type", [PromptReferenceSchema, ResourceTemplateReferenceSchema]),
  argument: z.looseObject({ name: z.string(), value: z.string() }),
  context: z.looseObject({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
});
/**
 * Params of `completion/complete`: what to complete (`ref`), the `argument` typed so far, and the
 * other arguments already given (`context`).
 */
export type CompleteRequestParams = z.infer<typeof CompleteRequestParamsSchema>;

/** The zod schema of {@link CompleteResult}. */
export const CompleteResultSchema = ResultBaseSchema.extend({
  completion: z.looseObject({
    values: z.array(z.string()).max(100),
    total: z.int().optional(),
    hasMore: z.boolean().optional(),
  }),
});
/**
 * The result of `completion/complete`: at most 100 suggested `values`, with an optional `total` and
 * `hasMore`.
 */
export type CompleteResult = z.infer<typeof CompleteResultSchema>;
