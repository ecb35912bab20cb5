import * as z from "zod";
import { IconSchema, JSONObjectSchema, MetaObjectSchema } from "./common.js";
import { ContentBlockSchema } from "./content.js";
import { InputResponseParamsSchema } from "./input.js";
import { RequestParamsSchema } from "./meta.js";
import { PaginatedResultSchema, ResultBaseSchema } from "./result.js";

export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

/** A JSON Schema (2020-12 by default) whose root is an object. */
export const ToolInputSchemaSchema = z.looseObject({
  type: z.literal("object"),
  $schema: z.string().optional(),
});

export const ToolSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: ToolInputSchemaSchema,
  outputSchema: JSONObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional(),
  icons: z.array(IconSchema).optional(),
  _meta: MetaObjectSchema.optional(),
});
export type Tool = z.infer<typeof ToolSchema>;

export const PaginatedRequestParamsSchema = RequestParamsSchema.extend({ cursor: z.string().optional() });
export type PaginatedRequestParams = z.infer<typeof PaginatedRequestParamsSchema>;

export const ListToolsResultSchema = PaginatedResultSchema.extend({ tools: z.array(ToolSchema) });
export type ListToolsResult = z.infer<typeof ListToolsResultSchema>;

export const CallToolRequestParamsSchema = InputResponseParamsSchema.extend({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
export type CallToolRequestParams = z.infer<typeof CallToolRequestParamsSchema>;

export const CallToolResultSchema = ResultBaseSchema.extend({
  content: z.array(ContentBlockSchema),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
