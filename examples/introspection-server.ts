// A protected MCP server whose authorization server issues opaque access tokens: each token is
// checked with the authorization server's introspection endpoint (RFC 7662), as this server's own
// client, and an active answer is reused for 30 seconds.
import { serveHttp } from "roundtrip-mcp/http";
import { IntrospectionVerifier } from "roundtrip-mcp/introspection";
import { MCPServer } from "roundtrip-mcp/server";

export const reports = new MCPServer("reports", { version: "1.0.0" });
reports.tool("whoami", { description: "Says who the caller is." }, (_args, ctx) => {
  const auth = ctx.authInfo;
  return `${auth?.clientId} [${auth?.scopes.join(" ")}]`;
});

/** Serves `reports` at `publicUrl`; `issuer`'s metadata names its introspection endpoint. */
export function serveReports(publicUrl: URL, issuer: string, clientSecret: string) {
  const introspection = new IntrospectionVerifier({
    issuer,
    audience: publicUrl.href,
    clientId: "mcp-resource",
    clientSecret,
  });
  return serveHttp(reports, {
    port: Number(publicUrl.port),
    path: publicUrl.pathname,
    requireAuth: true,
    protectedResource: { resource: publicUrl.href, authorizationServers: [issuer] },
    verifyToken: introspection.verifyToken,
    requiredScopes: () => ["reports:read"],
  });
}
