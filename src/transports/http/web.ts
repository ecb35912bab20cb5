/**
 * The web-standard half of Streamable HTTP (no `node:` imports): the fetch handler, the client
 * transport and the header helpers. Import this from Workers, Deno or browsers; `index.ts` adds
 * the `node:http` adapter on top.
 *
 * @example
 * import { createHttpHandler } from "roundtrip-mcp/http/web";
 * export default { fetch: createHttpHandler(server, { allowedHosts: ["mcp.example.com"] }) };
 */

export type {
  AuthProviderOption,
  HttpAuthChallenge,
  HttpAuthProvider,
  HttpAuthRequest,
  HttpCredentials,
} from "./auth.js";
export { DEFAULT_MAX_BODY_BYTES } from "./body.js";
export { type StreamableHttpClientOptions, StreamableHttpClientTransport } from "./client.js";
export { HttpStatusError, HttpTransportError, ResponseTooLargeError } from "./errors.js";
export type { ResponseMode } from "./exchange.js";
export type { AuthOptions, OriginGuardOptions } from "./guards.js";
export {
  closeHttpSessions,
  createHttpHandler,
  type FetchHandler,
  type HttpHandlerOptions,
} from "./handler.js";
export { decodeHeaderValue, encodeHeaderValue, type HeaderDecodeResult, HttpHeader } from "./headers.js";
export { LegacyHttpClientTransport } from "./legacy-client.js";
export type { LegacyHttpOptions } from "./legacy-sessions.js";
export { type SseClientOptions, SseClientTransport } from "./legacy-sse-client.js";
export { type HttpPlusSse, httpPlusSse } from "./legacy-sse-server.js";
export { isLoopbackHostname } from "./loopback.js";
export {
  createResourceMetadataHandler,
  type ProtectedResourceOptions,
  resourceMetadataUrl,
  type ScopedCall,
} from "./protected-resource.js";
export type { ToolInputSchemaLookup } from "./validate.js";
export {
  filterToolsWithValidHeaders,
  type ParamHeader,
  paramHeadersFor,
  paramHeadersFromTools,
  validateXMcpHeaders,
  type XMcpHeaderValidation,
} from "./x-mcp-header.js";
