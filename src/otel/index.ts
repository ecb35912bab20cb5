/**
 * OpenTelemetry for MCP: `tracing()` reports each request a server handles as a span, and
 * `clientTracing()` each request a client sends, after the MCP semantic conventions; the client
 * sends its span's context in `_meta`, so the server's span continues the same trace. Needs
 * `@opentelemetry/api` (a peer dependency) and an OpenTelemetry SDK set up by the application.
 *
 * @example
 * import { clientTracing, tracing } from "roundtrip-mcp/otel";
 * mcp.server.middleware.unshift(tracing());
 * const client = await Client.connect(url, { instrument: clientTracing() });
 */
export { type ClientTracingOptions, clientTracing } from "./client-spans.js";
export { type TracingOptions, tracing } from "./server-spans.js";
