/**
 * OpenTelemetry for MCP: `serverTelemetry()` records each request a server answers, and
 * `clientTelemetry()` each request a client sends, as a span and a duration, after the MCP
 * semantic conventions; the client sends its span's context in `_meta`, so the server's span
 * continues the same trace. Needs `@opentelemetry/api` (a peer dependency) and an OpenTelemetry
 * SDK set up by the application.
 *
 * @example
 * import { clientTelemetry, serverTelemetry } from "roundtrip-mcp/otel";
 * const mcp = new MCPServer("billing", { telemetry: serverTelemetry() });
 * const client = await Client.connect(url, { instrument: clientTelemetry() });
 */
export { type ClientTelemetryOptions, clientTelemetry } from "./client-telemetry.js";
export { type ServerTelemetryOptions, serverTelemetry } from "./server-telemetry.js";
