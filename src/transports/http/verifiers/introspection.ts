/**
 * Opaque access tokens for MCP servers over HTTP: `IntrospectionVerifier` asks the authorization
 * server about each token (RFC 7662) and hands the endpoint who the bearer is.
 *
 * @example
 * import { IntrospectionVerifier } from "roundtrip-mcp/introspection";
 * const introspection = new IntrospectionVerifier({ issuer, audience, clientId, clientSecret });
 * await serveHttp(server, { verifyToken: introspection.verifyToken, requireAuth: true });
 */
export { TokenRejected } from "./common.js";
export { IntrospectionVerifier, type IntrospectionVerifierOptions } from "./introspection-verifier.js";
