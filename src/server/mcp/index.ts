export { Context } from "./context.js";
export {
  acceptedContent,
  elicitationRequest,
  type FormSchema,
  type InputResponseView,
  inputRequired,
  inputResponse,
  renderRequestedSchema,
  rootsRequest,
  samplingRequest,
  urlElicitationRequest,
} from "./input.js";
export { type JsonSchemaInput, jsonSchema } from "./json-schema.js";
export {
  type InferArguments,
  MCPServer,
  type MCPServerOptions,
  type PromptHandler,
  type ResolvedToolHandler,
  type ResolvedToolReturn,
  type ResourceHandler,
  type ToolHandler,
} from "./mcp-server.js";
export type { ArgumentCompleter, PromptConfig, PromptReturn } from "./prompts.js";
export * from "./resolvers/index.js";
export type { ResourceConfig, ResourceReturn, ResourceTemplateConfig } from "./resources.js";
export { ToolError, type ToolReturn } from "./results.js";
export type { InferSchema, JsonSchemaObject, SchemaLike, StandardSchemaV1 } from "./schema.js";
export type { ToolConfig } from "./tools.js";
export { UnknownEntryError } from "./unknown-entry.js";
export { expandUriTemplate, UriTemplate } from "./uri-template.js";
export type { Visibility } from "./visibility.js";
