/**
 * JWT access tokens for MCP servers over HTTP: `JwtVerifier` checks them against the issuer's keys
 * and hands the endpoint who the bearer is.
 *
 * @example
 * import { JwtVerifier } from "roundtrip-mcp/jwt";
 * const jwt = new JwtVerifier({ issuer, audience: "https://mcp.example.com/mcp" });
 * await serveHttp(server, { verifyToken: jwt.verifyToken, requireAuth: true });
 */
export { TokenRejected } from "./common.js";
export { JwtVerifier, type JwtVerifierOptions } from "./jwt-verifier.js";
