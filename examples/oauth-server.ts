// A server whose tools need OAuth scopes: it publishes which authorization server issues its tokens
// (RFC 9728) and answers a call whose token lacks a scope with 403 insufficient_scope, so clients
// such as OAuthClientProvider sign in and step up by themselves.
import { serveHttp } from "roundtrip-mcp/http";
import { type AuthInfo, MCPServer } from "roundtrip-mcp/server";

export const notes = new MCPServer("notes", { version: "1.0.0" });
const saved: string[] = [];
notes.tool("list_notes", { description: "Lists the notes." }, () => saved.join("\n") || "(none)");
notes.tool("add_note", { description: "Adds a note." }, (_args, ctx) => {
  saved.push(`a note from ${ctx.authInfo?.clientId}`);
  return "added";
});

/** Serves `notes` at `publicUrl`; `verify` turns a bearer token into who and which scopes, or undefined. */
export function serveNotes(publicUrl: URL, issuer: string, verify: (token: string) => AuthInfo | undefined) {
  return serveHttp(notes, {
    port: Number(publicUrl.port),
    path: publicUrl.pathname,
    protectedResource: {
      resource: publicUrl.href,
      authorizationServers: [issuer],
      scopesSupported: ["notes:read", "notes:write"],
    },
    verifyToken: (request) => verify(request.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""),
    requiredScopes: ({ method, name }) => {
      if (method !== "tools/call") return ["notes:read"];
      return name === "add_note" ? ["notes:read", "notes:write"] : ["notes:read"];
    },
  });
}
