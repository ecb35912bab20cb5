import * as z from "zod";
import { IconSchema, MetaObjectSchema } from "./common.js";
import { AnnotationsSchema, ResourceContentsSchema } from "./content.js";
import { InputResponseParamsSchema } from "./input.js";
import { CacheableResultSchema, PaginatedResultSchema } from "./result.js";

const describedBase = {
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  annotations: AnnotationsSchema.optional(),
  icons: z.array(IconSchema).optional(),
  _meta: MetaObjectSchema.optional(),
};

/** The zod schema of {@link Resource}. */
export const ResourceSchema = z.looseObject({
  uri: z.string(),
  size: z.number().optional(),
  ...describedBase,
});
/**
 * A resource a server lists: its `uri`, `name` and optional title, description, MIME type, size and icons.
 */
export type Resource = z.infer<typeof ResourceSchema>;

/** The zod schema of {@link ResourceTemplate}. */
export const ResourceTemplateSchema = z.looseObject({ uriTemplate: z.string(), ...describedBase });
/** A family of resources a server lists: a URI template (RFC 6570), its `name` and optional description. */
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;

/** The zod schema of {@link ListResourcesResult}. */
export const ListResourcesResultSchema = PaginatedResultSchema.extend({ resources: z.array(ResourceSchema) });
/** The result of `resources/list`: one page of resources. */
export type ListResourcesResult = z.infer<typeof ListResourcesResultSchema>;

/** The zod schema of {@link ListResourceTemplatesResult}. */
export const ListResourceTemplatesResultSchema = PaginatedResultSchema.extend({
  resourceTemplates: z.array(ResourceTemplateSchema),
});
/** The result of `resources/templates/list`: one page of resource templates. */
export type ListResourceTemplatesResult = z.infer<typeof ListResourceTemplatesResultSchema>;

/** The zod schema of {@link ReadResourceRequestParams}. */
export const ReadResourceRequestParamsSchema = InputResponseParamsSchema.extend({ uri: z.string() });
/** Params of `resources/read`: the `uri` to read. */
export type ReadResourceRequestParams = z.infer<typeof ReadResourceRequestParamsSchema>;

/** The zod schema of {@link ReadResourceResult}. */
export const ReadResourceResultSchema = CacheableResultSchema.extend({
  contents: z.array(ResourceContentsSchema),
});
/** The result of `resources/read`: the resource's contents. */
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;

/** The zod schema of the params of `notifications/resources/updated`: the `uri` that changed. */
export const ResourceUpdatedNotificationParamsSchema = z.looseObject({
  uri: z.string(),
  _meta: MetaObjectSchema.optional(),
});
