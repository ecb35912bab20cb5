/**
 * An authorization-code flow between its two halves: the request that sent the user to the
 * authorization server, and the one that receives the redirect back. Kept in the provider and in
 * its store, so the second half can run in another request or process (a web app's callback route).
 */
import type { AuthorizationServerMetadata } from "./discovery.js";
import { OAuthError } from "./errors.js";
import { sameString } from "./pkce.js";

/** How long a started authorization may be completed (authorization codes live minutes at most). */
export const PENDING_AUTHORIZATION_TTL_MS = 10 * 60_000;

/**
 * A started authorization, as the store keeps it. It holds the PKCE verifier: a secret, like the
 * tokens next to it.
 */
export interface PendingAuthorization {
  /** The `state` sent with the user, which the redirect must carry back. */
  readonly state: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  /** The protected resource (RFC 8707) the tokens are for. */
  readonly resource: string;
  readonly scope?: string;
  /** Epoch milliseconds after which the redirect is no longer taken. */
  readonly expiresAt: number;
  /** The authorization server's metadata as discovered, URLs as strings. */
  readonly server: {
    readonly issuer: string;
    readonly authorizationEndpoint: string;
    readonly tokenEndpoint: string;
    readonly registrationEndpoint?: string;
    readonly scopesSupported?: readonly string[];
    readonly tokenEndpointAuthMethods?: readonly string[];
    readonly dpopAlgorithms?: readonly string[];
    readonly pkceS256: boolean;
    readonly issParameterSupported: boolean;
    readonly clientIdMetadataDocumentSupported: boolean;
  };
}

/** The record of an authorization started now with this server. */
export function pendingAuthorization(
  server: AuthorizationServerMetadata,
  grant: {
    state: string;
    codeVerifier: string;
    redirectUri: string;
    resource: string;
    scope: string | undefined;
  },
): PendingAuthorization {
  const { scope, ...rest } = grant;
  const stored: PendingAuthorization["server"] = {
    issuer: server.issuer,
    authorizationEndpoint: server.authorizationEndpoint.href,
    tokenEndpoint: server.tokenEndpoint.href,
    pkceS256: server.pkceS256,
    issParameterSupported: server.issParameterSupported,
    clientIdMetadataDocumentSupported: server.clientIdMetadataDocumentSupported,
    ...(server.registrationEndpoint ? { registrationEndpoint: server.registrationEndpoint.href } : {}),
    ...(server.scopesSupported ? { scopesSupported: [...server.scopesSupported] } : {}),
    ...(server.tokenEndpointAuthMethods
      ? { tokenEndpointAuthMethods: [...server.tokenEndpointAuthMethods] }
      : {}),
    ...(server.dpopAlgorithms ? { dpopAlgorithms: [...server.dpopAlgorithms] } : {}),
  };
  return {
    ...rest,
    ...(scope !== undefined ? { scope } : {}),
    expiresAt: Date.now() + PENDING_AUTHORIZATION_TTL_MS,
    server: stored,
  };
}

/** Where the user goes to consent: the authorization request of `pending`, with PKCE S256 and `resource`. */
export function authorizationUrl(pending: PendingAuthorization, clientId: string, challenge: string): URL {
  const url = new URL(pending.server.authorizationEndpoint);
  const query = url.searchParams;
  query.set("response_type", "code");
  query.set("client_id", clientId);
  query.set("redirect_uri", pending.redirectUri);
  query.set("code_challenge", challenge);
  query.set("code_challenge_method", "S256");
  query.set("state", pending.state);
  query.set("resource", pending.resource);
  if (pending.scope !== undefined) query.set("scope", pending.scope);
  return url;
}

/** The metadata a pending authorization was started with. */
export function serverOf(pending: PendingAuthorization): AuthorizationServerMetadata {
  const { server } = pending;
  return {
    issuer: server.issuer,
    authorizationEndpoint: new URL(server.authorizationEndpoint),
    tokenEndpoint: new URL(server.tokenEndpoint),
    registrationEndpoint:
      server.registrationEndpoint === undefined ? undefined : new URL(server.registrationEndpoint),
    scopesSupported: server.scopesSupported,
    tokenEndpointAuthMethods: server.tokenEndpointAuthMethods,
    dpopAlgorithms: server.dpopAlgorithms,
    pkceS256: server.pkceS256,
    issParameterSupported: server.issParameterSupported,
    clientIdMetadataDocumentSupported: server.clientIdMetadataDocumentSupported,
  };
}

const isString = (value: unknown): value is string => typeof value === "string";
const isStringList = (value: unknown) =>
  value === undefined || (Array.isArray(value) && value.every(isString));
const isUrl = (value: unknown) => isString(value) && URL.canParse(value);

/** A stored value that has the shape of a pending authorization; anything else reads as none. */
export function isPendingAuthorization(value: unknown): value is PendingAuthorization {
  if (typeof value !== "object" || value === null) return false;
  const pending = value as Record<string, unknown>;
  const server = pending.server as Record<string, unknown> | null | undefined;
  return (
    isString(pending.state) &&
    isString(pending.codeVerifier) &&
    isUrl(pending.redirectUri) &&
    isString(pending.resource) &&
    (pending.scope === undefined || isString(pending.scope)) &&
    typeof pending.expiresAt === "number" &&
    typeof server === "object" &&
    server !== null &&
    isString(server.issuer) &&
    isUrl(server.authorizationEndpoint) &&
    isUrl(server.tokenEndpoint) &&
    (server.registrationEndpoint === undefined || isUrl(server.registrationEndpoint)) &&
    isStringList(server.scopesSupported) &&
    isStringList(server.tokenEndpointAuthMethods) &&
    isStringList(server.dpopAlgorithms) &&
    typeof server.pkceS256 === "boolean" &&
    typeof server.issParameterSupported === "boolean" &&
    typeof server.clientIdMetadataDocumentSupported === "boolean"
  );
}

/**
 * The `code` of the redirect that ends `pending`, after the checks of RFC 6749 §4.1.2 and RFC 9207:
 * the same `state` (compared in constant time), the expected `iss`, no `error`.
 */
export function codeFromRedirect(pending: PendingAuthorization, returned: URL | string): string {
  const text = String(returned);
  if (!URL.canParse(text)) throw new OAuthError("invalid_callback", "the redirect is not a URL");
  const answer = new URL(text).searchParams;
  if (!sameString(answer.get("state") ?? "", pending.state)) {
    throw new OAuthError("state_mismatch", "the authorization response is not for this request (state)");
  }
  const iss = answer.get("iss");
  if (iss === null ? pending.server.issParameterSupported : iss !== pending.server.issuer) {
    throw new OAuthError(
      "issuer_mismatch",
      iss === null
        ? "the authorization response has no iss although the server promised one"
        : "the authorization response comes from another issuer",
    );
  }
  const error = answer.get("error");
  if (error !== null) {
    const detail = answer.get("error_description");
    throw new OAuthError(error, `the authorization server refused${detail ? `: ${detail}` : ""}`);
  }
  const code = answer.get("code");
  if (code === null || code === "")
    throw new OAuthError("invalid_callback", "the authorization response has no code");
  return code;
}
