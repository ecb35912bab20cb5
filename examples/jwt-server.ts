// A protected MCP server whose authorization server issues JWT access tokens: JwtVerifier checks
// each token's signature against the issuer's published keys, its issuer, that it was issued for
// this server (audience) and that it has not expired. No call to the authorization server per request.
import { serveHttp } from "roundtrip-mcp/http";
import { JwtVerifier } from "roundtrip-mcp/jwt";
import { MCPServer } from "roundtrip-mcp/server";

export const reports = new MCPServer("reports", { version: "1.0.0" });
reports.tool("whoami", { description: "Says who the caller is." }, (_args, ctx) => {
  const auth = ctx.authInfo;
  return `${auth?.subject} via ${auth?.clientId} [${auth?.scopes.join(" ")}]`;
});

/** Serves `reports` at `publicUrl`, trusting the JWTs `issuer` signs (its metadata names its keys). */
export function serveReports(publicUrl: URL, issuer: string) {
  const jwt = new JwtVerifier({ issuer, audience: publicUrl.href, typ: "at+jwt" });
  return serveHttp(reports, {
    port: Number(publicUrl.port),
    path: publicUrl.pathname,
    requireAuth: true,
    protectedResource: { resource: publicUrl.href, authorizationServers: [issuer] },
    verifyToken: jwt.verifyToken,
    requiredScopes: () => ["reports:read"],
  });
}
