import * as z from "zod";
import { IconSchema, JSONObjectSchema, MetaObjectSchema } from "./common.js";
import { ContentBlockSchema } from "./content.js";
import { InputResponseParamsSchema } from "./input.js";
import { RequestParamsSchema } from "./meta.js";
import { PaginatedResultSchema, ResultBaseSchema } from "./result.js";

/** The zod schema of {@link ToolAnnotations}. */
export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
/**
 * Hints about a tool (read-only, destructive, idempotent, open world) and its display title.
 * Hints only: a client trusts them no more than it trusts the server.
 */
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

/** A JSON Schema (2020-12 by default) whose root is an object. */
export const ToolInputSchemaSchema = z.looseObject({
  type: z.literal("object"),
  $schema: z.string().optional(),
});

/** The zod schema of {@link Tool}. */
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
/**
 * A tool a server lists: its `name`, `inputSchema` and optional title, description, `outputSchema`,
 * annotations and icons.
 */
export type Tool = z.infer<typeof ToolSchema>;

/** The zod schema of {@link PaginatedRequestParams}. */
export const PaginatedRequestParamsSchema = RequestParamsSchema.extend({ cursor: z.string().optional() });
/** Params of a list request: an optional `cursor`, the previous page's `nextCursor`. */
export type PaginatedRequestParams = z.infer<typeof PaginatedRequestParamsSchema>;

/** The zod schema of {@link ListToolsResult}. */
export const ListToolsResultSchema = PaginatedResultSchema.extend({ tools: z.array(ToolSchema) });
/** The result of `tools/list`: one page of tools. */
export type ListToolsResult = z.infer<typeof ListToolsResultSchema>;

/** The zod schema of {@link CallToolRequestParams}. */
export const CallToolRequestParamsSchema = InputResponseParamsSchema.extend({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
/** Params of `tools/call`: the tool's `name` and its `arguments`. */
export type CallToolRequestParams = z.infer<typeof CallToolRequestParamsSchema>;

/** The zod schema of {@link CallToolResult}. */
export const CallToolResultSchema = ResultBaseSchema.extend({
  content: z.array(ContentBlockSchema),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});
/**
 * The result of `tools/call`: content blocks, optional `structuredContent`, and `isError` when the tool
 * failed.
 */
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
