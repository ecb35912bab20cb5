/**
 * The resource-server side of MCP authorization: the Protected Resource Metadata document (RFC
 * 9728) that tells clients where to get tokens, and the per-request scope check that answers
 * `403 insufficient_scope` (RFC 6750 §3.1) so a client can step up.
 */
import type { AuthInfo } from "../../shared/dispatch.js";
import { withoutTrailing } from "../../shared/text.js";
import { ErrorCode } from "../../types/core.js";
import { errorResponse, jsonResponse, type PlainReply, toResponse } from "./body.js";

/**
 * What the endpoint publishes about itself as an OAuth protected resource.
 *
 * @example
 * const protectedResource: ProtectedResourceOptions = {
 *   resource: "https://mcp.example.com/mcp",
 *   authorizationServers: ["https://auth.example.com"],
 *   scopesSupported: ["files:read", "files:write"],
 * };
 */
export interface ProtectedResourceOptions {
  /** This endpoint's resource identifier: its public URL, which clients send as `resource`. */
  readonly resource: string;
  /** Issuer URLs of the authorization servers whose tokens it accepts. */
  readonly authorizationServers: readonly string[];
  readonly scopesSupported?: readonly string[];
  /** A human-readable name for consent screens. */
  readonly resourceName?: string;
  readonly resourceDocumentation?: string;
}

/**
 * The call a scope requirement is asked about: the JSON-RPC method and, for `tools/call`,
 * `prompts/get` and `resources/read`, the tool or prompt name or the resource URI.
 */
export interface ScopedCall {
  readonly method: string;
  readonly name: string | undefined;
}

/**
 * Where clients look for the document of `resource`: the path-based well-known URL of RFC 9728
 * §3.1 (`/.well-known/oauth-protected-resource` + the resource's path and query).
 *
 * @example
 * resourceMetadataUrl("https://mcp.example.com/mcp").href; // "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
 */
export function resourceMetadataUrl(resource: string): URL {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : withoutTrailing(url.pathname, "/");
  return new URL(`/.well-known/oauth-protected-resource${path}${url.search}`, url.origin);
}

/** Refuses unusable options at setup rather than on the first client. */
export function checkProtectedResource(options: ProtectedResourceOptions): void {
  const { resource, authorizationServers } = options;
  if (typeof resource !== "string" || !URL.canParse(resource) || resource.includes("#")) {
    throw new TypeError("protectedResource.resource must be an absolute URL without a fragment");
  }
  if (
    !Array.isArray(authorizationServers) ||
    authorizationServers.length === 0 ||
    !authorizationServers.every((issuer) => typeof issuer === "string" && URL.canParse(issuer))
  ) {
    throw new TypeError("protectedResource.authorizationServers must list at least one issuer URL");
  }
}

/** The RFC 9728 document. */
export function resourceMetadataDocument(options: ProtectedResourceOptions): Record<string, unknown> {
  const document: Record<string, unknown> = {
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    bearer_methods_supported: ["header"],
  };
  if (options.scopesSupported !== undefined) document.scopes_supported = [...options.scopesSupported];
  if (options.resourceName !== undefined) document.resource_name = options.resourceName;
  if (options.resourceDocumentation !== undefined) {
    document.resource_documentation = options.resourceDocumentation;
  }
  return document;
}

/**
 * The answer to a request for the document: 200 JSON to GET (readable from any origin, as public
 * metadata must be for browser clients), 204 to a CORS preflight, 405 otherwise.
 */
export function resourceMetadataReply(method: string, options: ProtectedResourceOptions): PlainReply {
  const cors = { "access-control-allow-origin": "*" };
  if (method === "GET" || method === "HEAD") {
    return jsonResponse(resourceMetadataDocument(options), 200, { ...cors, "cache-control": "max-age=3600" });
  }
  if (method === "OPTIONS") {
    return {
      plain: true,
      status: 204,
      headers: { ...cors, "access-control-allow-methods": "GET" },
      body: null,
    };
  }
  return errorResponse(405, null, ErrorCode.InvalidRequest, "Method Not Allowed: use GET", { allow: "GET" });
}

/**
 * The metadata document as a web-standard handler, for runtimes where the app routes requests
 * itself (`serveHttp` serves it on its own): mount it at `resourceMetadataUrl(resource)`'s path.
 *
 * @example
 * app.get("/.well-known/oauth-protected-resource/mcp", (c) => metadata(c.req.raw)); // Hono
 */
export function createResourceMetadataHandler(
  options: ProtectedResourceOptions,
): (request: Request) => Promise<Response> {
  checkProtectedResource(options);
  return async (request) => toResponse(resourceMetadataReply(request.method, options));
}

/** The name part of a scoped call, as `Mcp-Name` carries it. */
export function scopedCallOf(message: unknown): ScopedCall | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (typeof method !== "string") return undefined;
  const record = typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {};
  const name = method === "resources/read" ? record.uri : record.name;
  return { method, name: typeof name === "string" ? name : undefined };
}

/** The scopes `authInfo` lacks for this call (empty when it has them all). */
export function missingScopes(needed: readonly string[], authInfo: AuthInfo): string[] {
  return needed.filter((scope) => !authInfo.scopes.includes(scope));
}
