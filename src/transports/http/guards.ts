/**
 * What runs before a body is read: DNS-rebinding protection (Host / Origin) and bearer auth.
 */
import type { AuthInfo } from "../../shared/dispatch.js";
import { ErrorCode } from "../../types/core.js";
import { errorResponse, type PlainReply } from "./body.js";
import type { Incoming } from "./incoming.js";
import { isLoopbackHostname } from "./loopback.js";
import {
  missingScopes,
  type ProtectedResourceOptions,
  resourceMetadataUrl,
  type ScopedCall,
  scopedCallOf,
} from "./protected-resource.js";

/**
 * Host / Origin policy (DNS-rebinding protection).
 *
 * @example
 * createHttpHandler(server, { allowedHosts: ["mcp.example.com"], allowedOrigins: ["https://app.example.com"] });
 */
export interface OriginGuardOptions {
  /** Accepted `Host` values: `name` (any port) or `name:port`. Case-insensitive. */
  allowedHosts?: readonly string[];
  /**
   * Accepted `Origin` values (`scheme://host[:port]`), compared case-insensitively. Without a list, a
   * present `Origin` must be a loopback origin when `localhostOnly`, else this host's own origin
   * (the `Host` name and port): cross-origin browser calls need the calling page's origin listed.
   */
  allowedOrigins?: readonly string[];
  /**
   * Bound to a loopback address: without lists, `Host` must be a loopback name and a present
   * `Origin` a loopback origin. `serveHttp` sets it for 127.0.0.1 / localhost / ::1 binds.
   */
  localhostOnly?: boolean;
}

/** Splits `host[:port]` (IPv6 in brackets); `undefined` when malformed. */
function splitHost(host: string): { hostname: string; port: string | undefined } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(host.trim());
  if (!match?.[1]) return undefined;
  return { hostname: match[1].toLowerCase(), port: match[2] };
}

function hostAllowed(host: string | null, options: OriginGuardOptions): boolean {
  if (options.allowedHosts === undefined && !options.localhostOnly) return true;
  if (host === null) return false;
  const parts = splitHost(host);
  if (!parts) return false;
  if (options.allowedHosts === undefined) return isLoopbackHostname(parts.hostname);
  const full = parts.port === undefined ? parts.hostname : `${parts.hostname}:${parts.port}`;
  return options.allowedHosts.some((entry) => {
    const allowed = entry.toLowerCase();
    return allowed === parts.hostname || allowed === full;
  });
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" };

function originAllowed(origin: string, host: string | null, options: OriginGuardOptions): boolean {
  if (options.allowedOrigins !== undefined) {
    const wanted = origin.toLowerCase();
    return options.allowedOrigins.some((entry) => entry.toLowerCase().replace(/\/$/, "") === wanted);
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" and other opaque origins
  }
  const port = DEFAULT_PORTS[url.protocol];
  if (port === undefined) return false;
  if (options.localhostOnly) return isLoopbackHostname(url.hostname);
  // Neither a list nor loopback: only pages this host serves (same origin) may call it.
  const parts = host === null ? undefined : splitHost(host);
  return (
    parts !== undefined &&
    parts.hostname === url.hostname &&
    (parts.port ?? port) === (url.port === "" ? port : url.port)
  );
}

/**
 * DNS-rebinding protection. A foreign `Host` gets **421 Misdirected Request** (RFC 9110 §15.5.20:
 * this server is not authoritative for that name); a foreign `Origin` gets **403**, as the spec
 * requires. Returns `undefined` when the request may proceed.
 */
export function checkHostAndOrigin(request: Incoming, options: OriginGuardOptions): PlainReply | undefined {
  const origin = request.header("origin");
  if (origin === null && options.allowedHosts === undefined && !options.localhostOnly) return undefined;
  const host = request.header("host") ?? request.urlHost();
  if (!hostAllowed(host, options)) {
    return errorResponse(421, null, ErrorCode.InvalidRequest, "Misdirected Request: Host not allowed");
  }
  if (origin !== null && !originAllowed(origin, host, options)) {
    return errorResponse(403, null, ErrorCode.InvalidRequest, "Forbidden: Origin not allowed");
  }
  return undefined;
}

/**
 * Bearer-auth policy.
 *
 * @example
 * createHttpHandler(server, {
 *   requireAuth: true,
 *   resourceMetadataUrl: "https://mcp.example.com/.well-known/oauth-protected-resource",
 *   verifyToken: async (request) => myVerifier(request.headers.get("authorization")),
 * });
 */
export interface AuthOptions {
  /**
   * Verifies the request's credentials (typically `Authorization: Bearer …`) and says who the
   * bearer is; `undefined` for none or invalid. Its result reaches handlers as `ctx.authInfo`.
   * It gets the request's method, URL, headers and signal, not its body (read once, by the endpoint).
   */
  verifyToken?: (request: Request) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** Answer 401 when `verifyToken` gives nothing. */
  requireAuth?: boolean;
  /**
   * Protected-resource metadata URL (RFC 9728), advertised in `WWW-Authenticate`. Default with
   * `protectedResource`: its path-based well-known URL.
   */
  resourceMetadataUrl?: string | URL;
  /**
   * This endpoint as an OAuth protected resource: `serveHttp` serves its metadata document at the
   * well-known URL, and 401/403 challenges point there.
   */
  protectedResource?: ProtectedResourceOptions;
  /**
   * The scopes a call needs (`undefined` or empty: none). A request whose token lacks one gets
   * `403` with `error="insufficient_scope"` and the scopes, so an OAuth client can step up; a
   * request without a token gets 401. Requires `verifyToken`. Applies to both protocol eras.
   */
  requiredScopes?: (call: ScopedCall) => readonly string[] | undefined;
}

/** The outcome of the auth step: the verified identity, or the 401 to send. */
export type AuthOutcome = { ok: true; authInfo: AuthInfo | undefined } | { ok: false; response: PlainReply };

/** The outcome when no authentication is configured. */
export const ANONYMOUS: AuthOutcome = Object.freeze({ ok: true, authInfo: undefined });

/** Where challenges send clients for the metadata document, if anywhere. */
function metadataUrl(options: AuthOptions): URL | undefined {
  if (options.resourceMetadataUrl !== undefined) return new URL(String(options.resourceMetadataUrl));
  return options.protectedResource && resourceMetadataUrl(options.protectedResource.resource);
}

/** A `Bearer` challenge; values are scope tokens and URLs, which cannot hold a quote unescaped. */
function challenge(options: AuthOptions, params: string[]): Record<string, string> {
  const url = metadataUrl(options);
  // URL serialization percent-encodes quotes, so the value cannot break out of the parameter.
  if (url !== undefined) params.push(`resource_metadata="${url.href}"`);
  return { "WWW-Authenticate": params.length > 0 ? `Bearer ${params.join(", ")}` : "Bearer" };
}

/** Whether the request carries Bearer credentials: another scheme counts as none for our challenge. */
function bearerPresented(request: Incoming): boolean {
  return /^bearer(\s|$)/i.test(request.header("authorization") ?? "");
}

function unauthorized(options: AuthOptions, presented: boolean, scopes: readonly string[] = []): PlainReply {
  const params: string[] = [];
  // RFC 6750 §3.1: no error code when the request carried no Bearer credentials.
  if (presented) params.push('error="invalid_token"');
  if (scopes.length > 0) params.push(`scope="${scopes.join(" ")}"`);
  return errorResponse(
    401,
    null,
    ErrorCode.InvalidRequest,
    "Unauthorized: a valid bearer token is required",
    challenge(options, params),
  );
}

/** The scopes `message` needs by the endpoint's `requiredScopes` (undefined: none). */
export function neededScopes(message: unknown, options: AuthOptions): readonly string[] | undefined {
  const call = options.requiredScopes && scopedCallOf(message);
  const needed = call ? options.requiredScopes?.(call) : undefined;
  return needed === undefined || needed.length === 0 ? undefined : needed;
}

/**
 * The scope rung for a call needing `needed` (from `neededScopes`): `undefined` when the caller
 * holds them all, else the 401 (no token) or 403 `insufficient_scope` naming every one of them.
 */
export function checkScopes(
  request: Incoming,
  message: unknown,
  authInfo: AuthInfo | undefined,
  options: AuthOptions,
  needed: readonly string[],
): PlainReply | undefined {
  if (authInfo === undefined) return unauthorized(options, bearerPresented(request), needed);
  if (missingScopes(needed, authInfo).length === 0) return undefined;
  const params = ['error="insufficient_scope"', `scope="${needed.join(" ")}"`];
  const id = (message as { id?: unknown }).id;
  return errorResponse(
    403,
    typeof id === "string" || typeof id === "number" ? id : null,
    ErrorCode.InvalidRequest,
    "Forbidden: the token lacks a scope this call needs",
    challenge(options, params),
  );
}

/** An error's text with the presented credentials cut out, so logs never carry a token. */
function redact(error: unknown, authorization: string | null): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const secrets = [authorization, authorization?.replace(/^\S+\s+/, "")].filter(
    (s): s is string => typeof s === "string" && s.length >= 4,
  );
  return secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
}

/**
 * Whether `authenticate` has anything to do: without `verifyToken` or `requireAuth` every request is
 * anonymous, and the endpoint skips the call (and its promise) altogether.
 */
export function checksAuth(options: AuthOptions): boolean {
  return Boolean(options.verifyToken) || Boolean(options.requireAuth);
}

/**
 * Runs `verifyToken`. A verifier that throws denies the request (401) whether or not auth is
 * required: deny on error. The error is reported without the request's credentials.
 */
export async function authenticate(
  request: Incoming,
  options: AuthOptions,
  report: (message: string) => void,
): Promise<AuthOutcome> {
  if (!checksAuth(options)) return ANONYMOUS;
  const presented = bearerPresented(request);
  if (!options.verifyToken) return { ok: false, response: unauthorized(options, presented) };
  let authInfo: AuthInfo | undefined;
  try {
    authInfo = await options.verifyToken(request.bodiless());
  } catch (error) {
    report(`verifyToken failed: ${redact(error, request.header("authorization"))}`);
    return { ok: false, response: unauthorized(options, presented) };
  }
  if (authInfo !== undefined && !stillValid(authInfo, options)) {
    // What the verifier vouched for is not (or no longer) good here: as if it had refused it.
    report("refused a verified token that has expired or was issued for another resource");
    authInfo = undefined;
  }
  if (authInfo === undefined && options.requireAuth) {
    return { ok: false, response: unauthorized(options, presented) };
  }
  return { ok: true, authInfo };
}

/** Not expired (an unreadable expiry counts as expired), and for this resource when both are known. */
function stillValid(authInfo: AuthInfo, options: AuthOptions): boolean {
  const { expiresAt, resource } = authInfo;
  if (expiresAt !== undefined && !(Number.isFinite(expiresAt) && expiresAt * 1000 > Date.now())) return false;
  const ours = options.protectedResource?.resource;
  return resource === undefined || ours === undefined || sameResource(resource, ours);
}

function sameResource(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}
