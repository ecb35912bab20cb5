import type {
  CallToolRequestParams,
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  GetPromptRequestParams,
  GetPromptResult,
  InputRequiredResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  PaginatedRequestParams,
  ReadResourceRequestParams,
  ReadResourceResult,
} from "../types/index.js";
import type { ServerRequestContext } from "./context.js";

/** Params of the list methods. */
export type PaginatedParams = PaginatedRequestParams;

/** A request handler: the context, then the validated params. May be sync or async. */
export type RequestHandler<P, R> = (ctx: ServerRequestContext, params: P) => R | Promise<R>;

/**
 * The handlers a low-level `Server` serves. Each one is optional; capabilities in
 * `server/discover` follow what is registered. `resultType`, the serverInfo stamp and cache
 * hints may be omitted: the server fills them in.
 */
export interface ServerHandlers {
  onListTools?: RequestHandler<PaginatedParams, ListToolsResult>;
  onCallTool?: RequestHandler<CallToolRequestParams, CallToolResult | InputRequiredResult>;
  onListPrompts?: RequestHandler<PaginatedParams, ListPromptsResult>;
  onGetPrompt?: RequestHandler<GetPromptRequestParams, GetPromptResult | InputRequiredResult>;
  onListResources?: RequestHandler<PaginatedParams, ListResourcesResult>;
  onListResourceTemplates?: RequestHandler<PaginatedParams, ListResourceTemplatesResult>;
  onReadResource?: RequestHandler<ReadResourceRequestParams, ReadResourceResult | InputRequiredResult>;
  onComplete?: RequestHandler<CompleteRequestParams, CompleteResult>;
}

/** Which option serves which method. */
export const HANDLER_METHODS = {
  onListTools: "tools/list",
  onCallTool: "tools/call",
  onListPrompts: "prompts/list",
  onGetPrompt: "prompts/get",
  onListResources: "resources/list",
  onListResourceTemplates: "resources/templates/list",
  onReadResource: "resources/read",
  onComplete: "completion/complete",
} as const satisfies Record<keyof ServerHandlers, string>;
