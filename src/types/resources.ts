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

export const ResourceSchema = z.looseObject({
  uri: z.string(),
  size: z.number().optional(),
  ...describedBase,
});
export type Resource = z.infer<typeof ResourceSchema>;

export const ResourceTemplateSchema = z.looseObject({ uriTemplate: z.string(), ...describedBase });
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;

export const ListResourcesResultSchema = PaginatedResultSchema.extend({ resources: z.array(ResourceSchema) });
export type ListResourcesResult = z.infer<typeof ListResourcesResultSchema>;

export const ListResourceTemplatesResultSchema = PaginatedResultSchema.extend({
  resourceTemplates: z.array(ResourceTemplateSchema),
});
export type ListResourceTemplatesResult = z.infer<typeof ListResourceTemplatesResultSchema>;

export const ReadResourceRequestParamsSchema = InputResponseParamsSchema.extend({ uri: z.string() });
export type ReadResourceRequestParams = z.infer<typeof ReadResourceRequestParamsSchema>;

export const ReadResourceResultSchema = CacheableResultSchema.extend({
  contents: z.array(ResourceContentsSchema),
});
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;

export const ResourceUpdatedNotificationParamsSchema = z.looseObject({
  uri: z.string(),
  _meta: MetaObjectSchema.optional(),
});
