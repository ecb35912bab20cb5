import * as z from "zod";
import { IconSchema, MetaObjectSchema, RoleSchema } from "./common.js";
import { ContentBlockSchema } from "./content.js";
import { InputResponseParamsSchema } from "./input.js";
import { PaginatedResultSchema, ResultBaseSchema } from "./result.js";

/** The zod schema of {@link PromptArgument}. */
export const PromptArgumentSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
});
/** An argument a prompt takes: its `name`, optional title and description, and whether it is `required`. */
export type PromptArgument = z.infer<typeof PromptArgumentSchema>;

/** The zod schema of {@link Prompt}. */
export const PromptSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(PromptArgumentSchema).optional(),
  icons: z.array(IconSchema).optional(),
  _meta: MetaObjectSchema.optional(),
});
/**
 * A prompt a server lists: its `name`, the `arguments` it takes and optional title, description and icons.
 */
export type Prompt = z.infer<typeof PromptSchema>;

/** The zod schema of {@link PromptMessage}. */
export const PromptMessageSchema = z.looseObject({ role: RoleSchema, content: ContentBlockSchema });
/** One message of a prompt: a role and a content block. */
export type PromptMessage = z.infer<typeof PromptMessageSchema>;

/** The zod schema of {@link ListPromptsResult}. */
export const ListPromptsResultSchema = PaginatedResultSchema.extend({ prompts: z.array(PromptSchema) });
/** The result of `prompts/list`: one page of prompts. */
export type ListPromptsResult = z.infer<typeof ListPromptsResultSchema>;

/** The zod schema of {@link GetPromptRequestParams}. */
export const GetPromptRequestParamsSchema = InputResponseParamsSchema.extend({
  name: z.string(),
  arguments: z.record(z.string(), z.string()).optional(),
});
/** Params of `prompts/get`: the prompt's `name` and its string `arguments`. */
export type GetPromptRequestParams = z.infer<typeof GetPromptRequestParamsSchema>;

/** The zod schema of {@link GetPromptResult}. */
export const GetPromptResultSchema = ResultBaseSchema.extend({
  description: z.string().optional(),
  messages: z.array(PromptMessageSchema),
});
/** The result of `prompts/get`: the prompt's messages and an optional description. */
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;
