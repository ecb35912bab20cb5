import * as z from "zod";
import { RequestParamsSchema } from "./meta.js";
import { ResultBaseSchema } from "./result.js";

export const PromptReferenceSchema = z.looseObject({ type: z.literal("ref/prompt"), name: z.string() });
export const ResourceTemplateReferenceSchema = z.looseObject({
  type: z.literal("ref/resource"),
  uri: z.string(),
});

export const CompleteRequestParamsSchema = RequestParamsSchema.extend({
  ref: z.discriminatedUnion("type", [PromptReferenceSchema, ResourceTemplateReferenceSchema]),
  argument: z.looseObject({ name: z.string(), value: z.string() }),
  context: z.looseObject({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
});
export type CompleteRequestParams = z.infer<typeof CompleteRequestParamsSchema>;

export const CompleteResultSchema = ResultBaseSchema.extend({
  completion: z.looseObject({
    values: z.array(z.string()).max(100),
    total: z.int().optional(),
    hasMore: z.boolean().optional(),
  }),
});
export type CompleteResult = z.infer<typeof CompleteResultSchema>;
