import * as z from "zod";
import { IconSchema, JSONObjectSchema, MetaObjectSchema, RoleSchema } from "./common.js";

export const AnnotationsSchema = z.looseObject({
  audience: z.array(RoleSchema).optional(),
  priority: z.number().min(0).max(1).optional(),
  lastModified: z.string().optional(),
});
export type Annotations = z.infer<typeof AnnotationsSchema>;

const blockBase = { annotations: AnnotationsSchema.optional(), _meta: MetaObjectSchema.optional() };

export const TextContentSchema = z.looseObject({ type: z.literal("text"), text: z.string(), ...blockBase });
export type TextContent = z.infer<typeof TextContentSchema>;

export const ImageContentSchema = z.looseObject({
  type: z.literal("image"),
  data: z.base64(),
  mimeType: z.string(),
  ...blockBase,
});
export type ImageContent = z.infer<typeof ImageContentSchema>;

export const AudioContentSchema = z.looseObject({
  type: z.literal("audio"),
  data: z.base64(),
  mimeType: z.string(),
  ...blockBase,
});
export type AudioContent = z.infer<typeof AudioContentSchema>;

const resourceContentsBase = {
  uri: z.string(),
  mimeType: z.string().optional(),
  _meta: MetaObjectSchema.optional(),
};
export const TextResourceContentsSchema = z.looseObject({ ...resourceContentsBase, text: z.string() });
export const BlobResourceContentsSchema = z.looseObject({ ...resourceContentsBase, blob: z.base64() });
export const ResourceContentsSchema = z.union([TextResourceContentsSchema, BlobResourceContentsSchema]);
export type TextResourceContents = z.infer<typeof TextResourceContentsSchema>;
export type BlobResourceContents = z.infer<typeof BlobResourceContentsSchema>;
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;

export const ResourceLinkSchema = z.looseObject({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
  icons: z.array(IconSchema).optional(),
  ...blockBase,
});
export type ResourceLink = z.infer<typeof ResourceLinkSchema>;

export const EmbeddedResourceSchema = z.looseObject({
  type: z.literal("resource"),
  resource: ResourceContentsSchema,
  ...blockBase,
});
export type EmbeddedResource = z.infer<typeof EmbeddedResourceSchema>;

/** Content of tool results and prompt messages. */
export const ContentBlockSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ResourceLinkSchema,
  EmbeddedResourceSchema,
]);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** A model's request to call a tool, inside a sampling message. */
export const ToolUseContentSchema = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: JSONObjectSchema,
  _meta: MetaObjectSchema.optional(),
});
export type ToolUseContent = z.infer<typeof ToolUseContentSchema>;

/** The answer to a `tool_use`, inside a sampling message. */
export const ToolResultContentSchema = z.looseObject({
  type: z.literal("tool_result"),
  toolUseId: z.string(),
  content: z.array(ContentBlockSchema),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
  _meta: MetaObjectSchema.optional(),
});
export type ToolResultContent = z.infer<typeof ToolResultContentSchema>;

/** Content allowed in sampling messages. */
export const SamplingContentSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ToolUseContentSchema,
  ToolResultContentSchema,
]);
export type SamplingContent = z.infer<typeof SamplingContentSchema>;
