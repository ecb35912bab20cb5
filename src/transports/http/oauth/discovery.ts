/**
 * Finding the authorization server of an MCP endpoint: its Protected Resource Metadata (RFC 9728)
 * and the server's own metadata (RFC 8414, or OpenID Connect Discovery), in the orders the MCP
 * authorization spec gives, each document checked before anything in it is used.
 */

import { withoutTrailing } from "../../../shared/text.js";
import { isLoopbackHostname, onThisMachine } from "../loopback.js";
import { readJsonBody } from "./answer.js";
import { OAuthError } from "./errors.js";

/** The fetch the OAuth client uses for every request it makes. */
export type OAuthFetch = (input: URL, init: RequestInit) => Promise<Response>;

/** The fields of RFC 9728 metadata the client acts on. */
export interface ProtectedResourceMetadata {
  /** The resource identifier, sent verbatim as the `resource` parameter (RFC 8707). */
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopesSupported: readonly string[] | undefined;
}

/** The fields of RFC 8414 metadata the client acts on. */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly authorizationEndpoint: URL;
  readonly tokenEndpoint: URL;
  readonly registrationEndpoint: URL | undefined;
  readonly scopesSupported: readonly string[] | undefined;
  readonly tokenEndpointAuthMethods: readonly string[] | undefined;
  /** DPoP proof algorithms the server accepts (RFC 9449 §5.1). */
  readonly dpopAlgorithms: readonly string[] | undefined;
  /** PKCE with S256 is offered: the authorization-code flow refuses to run without it. */
  readonly pkceS256: boolean;
  /** RFC 9207: the server promises an `iss` parameter in every authorization response. */
  readonly issParameterSupported: boolean;
  readonly clientIdMetadataDocumentSupported: boolean;
}

/** HTTPS, or plain HTTP to this machine only (what the MCP spec allows for development). */
export function secureEnough(url: URL): boolean {
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopbackHostname(url.hostname);
}

/**
 * Whether the OAuth client may contact `url` on behalf of an MCP server that is (`local`) or is
 * not on this machine: HTTPS elsewhere, and this machine (plain HTTP allowed) only for a local MCP
 * server — a remote server's metadata must not steer the client to services on its own host.
 */
export function reachable(url: URL, local: boolean): boolean {
  if (onThisMachine(url.hostname)) return local && (url.protocol === "http:" || url.protocol === "https:");
  return url.protocol === "https:";
}

/** An absolute URL from a metadata field that `reachable` allows, or an OAuthError naming the field. */
export function endpointUrl(value: unknown, field: string, local: boolean): URL {
  const url = typeof value === "string" && URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || !reachable(url, local)) {
    throw new OAuthError(
      "invalid_metadata",
      `${field} is not an HTTPS URL (or, for a local server, a local one)`,
    );
  }
  return url;
}

async function getJson(fetchImpl: OAuthFetch, url: URL): Promise<Record<string, unknown> | undefined> {
  let response: Response;
  try {
    // A redirect is not followed: it could lead past `reachable` (to this machine, or plain HTTP).
    response = await fetchImpl(url, {
      method: "GET",
      headers: { Accept: "application/json" },
      redirect: "manual",
    });
  } catch {
    throw new OAuthError("discovery_failed", `could not reach ${url.origin}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const body = await readJsonBody(response, "discovery_failed", url.origin);
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined;
}

function stringList(value: unknown): readonly string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
}

/** The URL path without a trailing slash ("" for the root). */
function trimmedPath(url: URL): string {
  return withoutTrailing(url.pathname, "/");
}

/**
 * True when `resource` may stand for `server`: same origin, the server's path is the resource's
 * path or below it, and a query in the resource is the server's query exactly (RFC 9728 §3.3
 * identifies the resource; a PRM document for another origin, a sibling path or another query —
 * another tenant — must not be used). A resource without a query covers any, as a path covers
 * the paths below it.
 *
 * @example
 * resourceCovers(new URL("https://api.example.com/mcp"), "https://api.example.com"); // true
 * resourceCovers(new URL("https://api.example.com/mcp?t=a"), "https://api.example.com/mcp?t=b"); // false
 */
export function resourceCovers(server: URL, resource: string): boolean {
  // RFC 8707 §2: no fragment, not even an empty one (which URL parsing would hide).
  if (!URL.canParse(resource) || resource.includes("#")) return false;
  const claimed = new URL(resource);
  if (claimed.origin !== server.origin || (claimed.search !== "" && claimed.search !== server.search))
    return false;
  const base = trimmedPath(claimed);
  const path = trimmedPath(server);
  return path === base || path.startsWith(`${base}/`);
}

/**
 * The Protected Resource Metadata of `server`: the `resource_metadata` URL of the challenge when
 * there is one, then the well-known URL with the server's path and query, then the root one. The document must name a
 * resource that covers `server` and at least one authorization server.
 */
export async function discoverResource(
  fetchImpl: OAuthFetch,
  server: URL,
  resourceMetadata: string | undefined,
): Promise<ProtectedResourceMetadata> {
  const candidates: URL[] = [];
  if (resourceMetadata !== undefined && URL.canParse(resourceMetadata)) {
    const hinted = new URL(resourceMetadata);
    if (reachable(hinted, onThisMachine(server.hostname))) candidates.push(hinted);
  }
  // RFC 9728 §3.1: the well-known suffix goes between the host and the path and query.
  const rest = trimmedPath(server) + server.search;
  if (rest !== "") candidates.push(new URL(`/.well-known/oauth-protected-resource${rest}`, server.origin));
  candidates.push(new URL("/.well-known/oauth-protected-resource", server.origin));
  for (const candidate of candidates) {
    const document = await getJson(fetchImpl, candidate);
    if (document === undefined) continue;
    const resource = document.resource;
    if (typeof resource !== "string" || !resourceCovers(server, resource)) {
      throw new OAuthError(
        "resource_mismatch",
        `the protected resource metadata names a resource other than ${server.origin}${server.pathname}`,
      );
    }
    const servers = stringList(document.authorization_servers) ?? [];
    if (servers.length === 0) {
      throw new OAuthError(
        "discovery_failed",
        "the protected resource metadata names no authorization server",
      );
    }
    return {
      resource,
      authorizationServers: servers,
      scopesSupported: stringList(document.scopes_supported),
    };
  }
  throw new OAuthError("discovery_failed", `no protected resource metadata found for ${server.origin}`);
}

/** The well-known URLs of an issuer, in the order the MCP spec tries them. */
export function authorizationServerMetadataUrls(issuer: URL): URL[] {
  const path = trimmedPath(issuer);
  const at = (suffix: string) => new URL(suffix, issuer.origin);
  if (path === "") {
    return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")];
  }
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/**
 * The metadata of the authorization server `issuer`. Its `issuer` must be `issuer` exactly (RFC
 * 8414 §3.3: no normalisation), and it and every endpoint must be `reachable` for an MCP server
 * that is (`local`) or is not on this machine.
 */
export async function discoverAuthorizationServer(
  fetchImpl: OAuthFetch,
  issuer: string,
  local: boolean,
): Promise<AuthorizationServerMetadata> {
  const base = URL.canParse(issuer) ? new URL(issuer) : undefined;
  if (base === undefined || !reachable(base, local)) {
    throw new OAuthError(
      "invalid_metadata",
      "the authorization server is not an HTTPS URL (or, for a local server, a local one)",
    );
  }
  for (const candidate of authorizationServerMetadataUrls(base)) {
    const document = await getJson(fetchImpl, candidate);
    if (document === undefined) continue;
    if (document.issuer !== issuer) {
      throw new OAuthError("issuer_mismatch", "the authorization server metadata names another issuer");
    }
    return {
      issuer,
      authorizationEndpoint: endpointUrl(document.authorization_endpoint, "authorization_endpoint", local),
      tokenEndpoint: endpointUrl(document.token_endpoint, "token_endpoint", local),
      registrationEndpoint:
        document.registration_endpoint === undefined
          ? undefined
          : endpointUrl(document.registration_endpoint, "registration_endpoint", local),
      scopesSupported: stringList(document.scopes_supported),
      tokenEndpointAuthMethods: stringList(document.token_endpoint_auth_methods_supported),
      pkceS256: stringList(document.code_challenge_methods_supported)?.includes("S256") === true,
      dpopAlgorithms: stringList(document.dpop_signing_alg_values_supported),
      issParameterSupported: document.authorization_response_iss_parameter_supported === true,
      clientIdMetadataDocumentSupported: document.client_id_metadata_document_supported === true,
    };
  }
  throw new OAuthError("discovery_failed", "no authorization server metadata found");
}
