/** The server side of roundtrip: the low-level `Server`, its context and middleware. */

export {
  type DispatchContext,
  type Dispatcher,
  HTTP_STATUS,
  type HttpRequestView,
  httpStatusOf,
} from "../shared/dispatch.js";
export {
  type AuthInfo,
  deriveContext,
  type Logger,
  type Middleware,
  type MiddlewareFunction,
  type NextHandler,
  type RefusedRequest,
  type ServerRequestContext,
  type ServerTelemetry,
} from "./context.js";
export type { ServerEventBus, SharedServerEvent, SharedTaskChange } from "./events.js";
export type { PaginatedParams, RequestHandler, ServerHandlers } from "./handlers.js";
export * from "./legacy/index.js";
export { consoleLogger, silentLogger } from "./logger.js";
export * from "./mcp/index.js";
export { logLevelAllows, sendLog, sendProgress } from "./notify.js";
export { CONSERVATIVE_CACHE_HINTS } from "./outbound.js";
export { limitRePrompts, type RePromptLimitOptions } from "./re-prompt-limit.js";
export { Server, type ServerIdentity, type ServerOptions } from "./server.js";
export * from "./state/index.js";
export type { TaskHandle } from "./tasks/handle.js";
export type { TaskRunner, TaskSupport } from "./tasks/runner.js";
export type { TaskOptions } from "./tasks/store.js";
