import * as z from "zod";
import { IconSchema, MetaObjectSchema, RoleSchema } from "./common.js";
import { ContentBlockSchema } from "./content.js";
import { InputResponseParamsSchema } from "./input.js";
import { PaginatedResultSchema, ResultBaseSchema } from "./result.js";

export const PromptArgumentSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
});
export type PromptArgument = z.infer<typeof PromptArgumentSchema>;

export const PromptSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(PromptArgumentSchema).optional(),
  icons: z.array(IconSchema).optional(),
  _meta: MetaObjectSchema.optional(),
});
export type Prompt = z.infer<typeof PromptSchema>;

export const PromptMessageSchema = z.looseObject({ role: RoleSchema, content: ContentBlockSchema });
export type PromptMessage = z.infer<typeof PromptMessageSchema>;

export const ListPromptsResultSchema = PaginatedResultSchema.extend({ prompts: z.array(PromptSchema) });
export type ListPromptsResult = z.infer<typeof ListPromptsResultSchema>;

export const GetPromptRequestParamsSchema = InputResponseParamsSchema.extend({
  name: z.string(),
  arguments: z.record(z.string(), z.string()).optional(),
});
export type GetPromptRequestParams = z.infer<typeof GetPromptRequestParamsSchema>;

export const GetPromptResultSchema = ResultBaseSchema.extend({
  description: z.string().optional(),
  messages: z.array(PromptMessageSchema),
});
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;
