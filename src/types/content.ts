import * as z from "zod";
import { IconSchema, JSONObjectSchema, MetaObjectSchema, RoleSchema } from "./common.js";

/** The zod schema of {@link Annotations}. */
export const AnnotationsSchema = z.looseObject({
  audience: z.array(RoleSchema).optional(),
  priority: z.number().min(0).max(1).optional(),
  lastModified: z.string().optional(),
});
/**
 * Hints on a content block or resource: who it is for (`audience`), its `priority` (0 to 1) and when it last
 * changed.
 */
export type Annotations = z.infer<typeof AnnotationsSchema>;

const blockBase = { annotations: AnnotationsSchema.optional(), _meta: MetaObjectSchema.optional() };

/** The zod schema of {@link TextContent}. */
export const TextContentSchema = z.looseObject({ type: z.literal("text"), text: z.string(), ...blockBase });
/** A text content block: `{ type: "text", text }`. */
export type TextContent = z.infer<typeof TextContentSchema>;

/** The zod schema of {@link ImageContent}. */
export const ImageContentSchema = z.looseObject({
  type: z.literal("image"),
  data: z.base64(),
  mimeType: z.string(),
  ...blockBase,
});
/** An image content block: base64 `data` and its `mimeType`. */
export type ImageContent = z.infer<typeof ImageContentSchema>;

/** The zod schema of {@link AudioContent}. */
export const AudioContentSchema = z.looseObject({
  type: z.literal("audio"),
  data: z.base64(),
  mimeType: z.string(),
  ...blockBase,
});
/** An audio content block: base64 `data` and its `mimeType`. */
export type AudioContent = z.infer<typeof AudioContentSchema>;

const resourceContentsBase = {
  uri: z.string(),
  mimeType: z.string().optional(),
  _meta: MetaObjectSchema.optional(),
};
/** The zod schema of {@link TextResourceContents}. */
export const TextResourceContentsSchema = z.looseObject({ ...resourceContentsBase, text: z.string() });
/** The zod schema of {@link BlobResourceContents}. */
export const BlobResourceContentsSchema = z.looseObject({ ...resourceContentsBase, blob: z.base64() });
/** The zod schema of {@link ResourceContents}. */
export const ResourceContentsSchema = z.union([TextResourceContentsSchema, BlobResourceContentsSchema]);
/** The contents of a resource as `text`. */
export type TextResourceContents = z.infer<typeof TextResourceContentsSchema>;
/** The contents of a resource as base64 binary (`blob`). */
export type BlobResourceContents = z.infer<typeof BlobResourceContentsSchema>;
/** The contents of a resource, under its `uri`: text or a base64 blob. */
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;

/** The zod schema of {@link ResourceLink}. */
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
/** A content block that points to a resource by its `uri`, for the client to read if it wants to. */
export type ResourceLink = z.infer<typeof ResourceLinkSchema>;

/** The zod schema of {@link EmbeddedResource}. */
export const EmbeddedResourceSchema = z.looseObject({
  type: z.literal("resource"),
  resource: ResourceContentsSchema,
  ...blockBase,
});
/** A content block that carries a resource's contents inline. */
export type EmbeddedResource = z.infer<typeof EmbeddedResourceSchema>;

/** Content of tool results and prompt messages. */
export const ContentBlockSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ResourceLinkSchema,
  EmbeddedResourceSchema,
]);
/**
 * Content of tool results and prompt messages: text, image, audio, a resource link or an embedded resource.
 */
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** A model's request to call a tool, inside a sampling message. */
export const ToolUseContentSchema = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: JSONObjectSchema,
  _meta: MetaObjectSchema.optional(),
});
/** A model's request to call a tool, inside a sampling message. */
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
/** The answer to a `tool_use`, inside a sampling message. */
export type ToolResultContent = z.infer<typeof ToolResultContentSchema>;

/** Content allowed in sampling messages. */
export const SamplingContentSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ToolUseContentSchema,
  ToolResultContentSchema,
]);
/** Content allowed in sampling messages. */
export type SamplingContent = z.infer<typeof SamplingContentSchema>;
