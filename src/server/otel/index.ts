/**
 * OpenTelemetry for MCP servers: `tracing()` wraps each handled request in a span that follows the
 * MCP semantic conventions and continues the client's trace. Needs `@opentelemetry/api` (a peer
 * dependency) and, to export anything, an OpenTelemetry SDK set up by the application.
 *
 * @example
 * import { tracing } from "roundtrip-mcp/otel";
 * mcp.server.middleware.unshift(tracing());
 */
export { type TracingOptions, tracing } from "./tracing.js";
