/** stdio transports: `serveStdio` (a server on its own stdin/stdout) and `StdioClientTransport` (spawn one). */
export {
  DEFAULT_CLIENT_MAX_LINE_BYTES,
  DEFAULT_CLOSE_TIMEOUT_MS,
  StdioClientTransport,
  StdioServerExitError,
  type StdioServerParameters,
} from "./client.js";
export { DEFAULT_INHERITED_ENV_VARS, defaultStdioEnv } from "./env.js";
export { DEFAULT_MAX_LINE_BYTES } from "./lines.js";
export {
  DEFAULT_DRAIN_TIMEOUT_MS,
  type ServeStdioOptions,
  type StdioLogger,
  type StdioServerHandle,
  serveStdio,
} from "./server.js";
