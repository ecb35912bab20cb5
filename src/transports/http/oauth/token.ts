/**
 * The token endpoint (RFC 6749 §3.2, OAuth 2.1): the authorization-code and refresh grants, with
 * the client authentication the registration settled on, and the answers checked.
 */
import { askEndpoint } from "./answer.js";
import type { AuthorizationServerMetadata, OAuthFetch } from "./discovery.js";
import type { DpopKey } from "./dpop.js";
import { OAuthError } from "./errors.js";

/** How the client authenticates at the token endpoint. */
export type TokenEndpointAuthMethod =
  | "client_secret_basic"
  | "client_secret_post"
  | "none"
  | "private_key_jwt";

/**
 * A client as one authorization server knows it: registered, pre-registered or a metadata URL.
 *
 * @example
 * const client: OAuthClientInformation = { issuer: "https://auth.example.com", clientId: "abc", authMethod: "none" };
 */
export interface OAuthClientInformation {
  /** The authorization server this client belongs to: credentials never travel to another one. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly authMethod: TokenEndpointAuthMethod;
}

/**
 * What a token endpoint issued, and for which authorization server.
 *
 * @example
 * const fresh = tokens.expiresAt === undefined || tokens.expiresAt > Date.now();
 */
export interface OAuthTokens {
  readonly issuer: string;
  readonly accessToken: string;
  /** The protected resource (RFC 8707) they were asked for: the access token is presented to no other. */
  readonly resource?: string;
  readonly refreshToken?: string;
  /** Epoch milliseconds when the access token expires; undefined when the server gave no lifetime. */
  readonly expiresAt?: number;
  /** Epoch milliseconds when it was issued (set with `expiresAt`), so that a short lifetime is not cut to nothing. */
  readonly issuedAt?: number;
  /** The scopes asked for when these tokens were obtained (space-separated), kept for step-up unions. */
  readonly requestedScope?: string;
  /** "DPoP" for a token bound to this client's DPoP key (sent with a proof); absent for Bearer. */
  readonly tokenType?: "DPoP";
}

/**
 * A token this close to its expiry is renewed (or dropped) rather than sent; a token that lives
 * less than twice this long is renewed after half its lifetime instead.
 */
const EXPIRY_SKEW_MS = 30_000;

/** The access token when it is not about to expire (or has no known expiry). */
export function freshAccessToken(tokens: OAuthTokens): string | undefined {
  const { expiresAt, issuedAt } = tokens;
  if (expiresAt === undefined) return tokens.accessToken;
  const skew = issuedAt === undefined ? EXPIRY_SKEW_MS : Math.min(EXPIRY_SKEW_MS, (expiresAt - issuedAt) / 2);
  return expiresAt - skew > Date.now() ? tokens.accessToken : undefined;
}

/**
 * The longest lifetime believed, in seconds (a year): access tokens live minutes or hours, and a
 * bigger `expires_in` is broken or hostile (1e308 s is Infinity in milliseconds, `null` in a JSON
 * store). Renewing sooner than the server said costs at most one refresh or sign-in.
 */
const MAX_LIFETIME_S = 365 * 24 * 3600;

function formEncode(value: string): string {
  // application/x-www-form-urlencoded, as RFC 6749 §2.3.1 asks for client_id and client_secret.
  return encodeURIComponent(value).replace(/%20/g, "+");
}

/**
 * Whether an access token fits an Authorization header as one credential (RFC 6750 §2.1): visible
 * ASCII (RFC 6749 A.12's VSCHAR) without the space that would split it. Anything else would fail
 * there instead, in fetch's error that quotes the header, token included.
 */
export function carriableToken(value: string): boolean {
  return /^[\x21-\x7E]+$/.test(value);
}

const SECRET_PARAMS = ["code", "code_verifier", "refresh_token", "client_assertion", "assertion"];
const JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/**
 * The server's description with anything secret we sent cut out, should it echo one, then cut
 * short: cut first, a secret across the cut would keep its first characters.
 */
function withoutSecrets(
  text: string,
  params: Record<string, string>,
  client: OAuthClientInformation,
): string {
  const secrets = [...SECRET_PARAMS.map((name) => params[name]), client.clientSecret];
  let out = text;
  for (const secret of secrets)
    if (secret !== undefined && secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out.slice(0, 200);
}

/** One token request; with `dpop`, a proof is sent, and sent again once with the nonce a server asks for. */
async function tokenRequest(
  fetchImpl: OAuthFetch,
  server: AuthorizationServerMetadata,
  client: OAuthClientInformation,
  params: Record<string, string>,
  dpop: DpopKey | undefined,
): Promise<Record<string, unknown>> {
  const { authMethod } = client;
  // Without its assertion or secret the request would carry no client authentication at all.
  const missing =
    authMethod === "private_key_jwt"
      ? params.client_assertion === undefined && "no client assertion was made"
      : authMethod !== "none" && typeof client.clientSecret !== "string" && "it has no client secret";
  if (missing) {
    throw new OAuthError(
      "unsupported_auth_method",
      `the client authenticates with ${authMethod} but ${missing}: nothing was sent`,
    );
  }
  const body = new URLSearchParams(params);
  const headers: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    Accept: "application/json",
  };
  if (client.authMethod === "client_secret_basic" && client.clientSecret !== undefined) {
    headers.Authorization = `Basic ${btoa(`${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`)}`;
  } else if (client.authMethod !== "private_key_jwt") {
    body.set("client_id", client.clientId);
    if (client.authMethod === "client_secret_post" && client.clientSecret !== undefined) {
      body.set("client_secret", client.clientSecret);
    }
  }
  const failure = { code: "token_request_failed", endpoint: "token endpoint" };
  for (let attempt = 1; ; attempt++) {
    if (dpop !== undefined) headers.DPoP = await dpop.proof({ method: "POST", url: server.tokenEndpoint });
    const init = { method: "POST", headers, body: body.toString() };
    const asked = await askEndpoint(fetchImpl, server.tokenEndpoint, init, failure);
    dpop?.rememberNonce(server.tokenEndpoint, asked.dpopNonce);
    const { ok, status, answer: record } = asked;
    if (ok) return record;
    // RFC 9449 §8: the server wants its nonce in the proof; one more try carries it.
    if (dpop !== undefined && attempt === 1 && record.error === "use_dpop_nonce" && asked.dpopNonce) continue;
    const code = typeof record.error === "string" ? record.error : "token_request_failed";
    const detail =
      typeof record.error_description === "string"
        ? `: ${withoutSecrets(record.error_description, params, client)}`
        : "";
    throw new OAuthError(code, `the token endpoint refused (HTTP ${status})${detail}`, status);
  }
}

function tokensFrom(
  record: Record<string, unknown>,
  issuer: string,
  resource: string,
  requestedScope: string | undefined,
  dpop: DpopKey | undefined,
  previousRefresh?: string,
): OAuthTokens {
  if (typeof record.access_token !== "string" || record.access_token === "") {
    throw new OAuthError("invalid_token_response", "the token endpoint answered without an access_token");
  }
  if (!carriableToken(record.access_token)) {
    throw new OAuthError(
      "invalid_token_response",
      "the token endpoint issued an access_token that an Authorization header cannot carry",
    );
  }
  const type = typeof record.token_type === "string" ? record.token_type.toLowerCase() : "";
  if (type !== "bearer" && !(type === "dpop" && dpop !== undefined)) {
    throw new OAuthError(
      "invalid_token_response",
      "the token endpoint issued a token that is neither Bearer nor a DPoP token this client asked for",
    );
  }
  const tokens: { -readonly [K in keyof OAuthTokens]: OAuthTokens[K] } = {
    issuer,
    accessToken: record.access_token,
    resource,
  };
  const refresh = typeof record.refresh_token === "string" ? record.refresh_token : previousRefresh;
  if (refresh !== undefined) tokens.refreshToken = refresh;
  // Anything but a positive lifetime is no lifetime: the token is used until the server refuses it.
  if (typeof record.expires_in === "number" && Number.isFinite(record.expires_in) && record.expires_in > 0) {
    tokens.issuedAt = Date.now();
    tokens.expiresAt = tokens.issuedAt + Math.min(record.expires_in, MAX_LIFETIME_S) * 1000;
  }
  if (requestedScope !== undefined) tokens.requestedScope = requestedScope;
  if (type === "dpop") tokens.tokenType = "DPoP";
  return tokens;
}

/** Trades an authorization code (and its PKCE verifier) for tokens. */
export async function exchangeCode(
  fetchImpl: OAuthFetch,
  server: AuthorizationServerMetadata,
  client: OAuthClientInformation,
  grant: { code: string; verifier: string; redirectUri: string; resource: string; scope: string | undefined },
  dpop?: DpopKey,
): Promise<OAuthTokens> {
  const params = {
    grant_type: "authorization_code",
    code: grant.code,
    code_verifier: grant.verifier,
    redirect_uri: grant.redirectUri,
    resource: grant.resource,
  };
  const record = await tokenRequest(fetchImpl, server, client, params, dpop);
  return tokensFrom(record, server.issuer, grant.resource, grant.scope, dpop);
}

/** A grant a service asks for itself: the optional scope and client assertion added, then asked. */
async function serviceGrant(
  fetchImpl: OAuthFetch,
  server: AuthorizationServerMetadata,
  client: OAuthClientInformation,
  params: Record<string, string> & { resource: string },
  extra: { scope: string | undefined; clientAssertion: string | undefined; dpop?: DpopKey },
): Promise<OAuthTokens> {
  if (extra.scope !== undefined) params.scope = extra.scope;
  if (extra.clientAssertion !== undefined) {
    params.client_assertion_type = JWT_BEARER_ASSERTION;
    params.client_assertion = extra.clientAssertion;
  }
  const record = await tokenRequest(fetchImpl, server, client, params, extra.dpop);
  return tokensFrom(record, server.issuer, params.resource, extra.scope, extra.dpop);
}

/**
 * The client credentials grant (OAuth 2.1 §4.2, SEP-1046): a token for the client itself, with a
 * signed `assertion` when the client authenticates with `private_key_jwt`.
 */
export function clientCredentialsTokens(
  fetchImpl: OAuthFetch,
  server: AuthorizationServerMetadata,
  client: OAuthClientInformation,
  grant: { resource: string; scope: string | undefined; assertion: string | undefined },
  dpop?: DpopKey,
): Promise<OAuthTokens> {
  const params = { grant_type: "client_credentials", resource: grant.resource };
  return serviceGrant(fetchImpl, server, client, params, {
    scope: grant.scope,
    clientAssertion: grant.assertion,
    dpop,
  });
}

/**
 * The JWT-bearer grant (RFC 7523 §2.1): a token for a JWT someone else issued — a workload's
 * platform (workload identity federation, SEP-1933) or an enterprise identity provider (an ID-JAG,
 * SEP-990) — with the client's own assertion when it authenticates with `private_key_jwt`.
 */
export function jwtBearerTokens(
  fetchImpl: OAuthFetch,
  server: AuthorizationServerMetadata,
  client: OAuthClientInformation,
  grant: {
    resource: string;
    scope: string | undefined;
    assertion: string;
    clientAssertion: string | undefined;
  },
): Promise<OAuthTokens> {
  const params = {
    grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
    assertion: grant.assertion,
    resource: grant.resource,
  };
  return serviceGrant(fetchImpl, server, client, params, grant);
}

/**
 * Whether a failed grant is the authorization server's final word on it (RFC 6749 §5.2: a 400 or
 * 401 with an error code), rather than a failure that may pass: unreachable, timed out, a 5xx, an
 * answer that is no OAuth error, or a DPoP nonce still asked for.
 */
export function refusedForGood(error: unknown): boolean {
  return (
    error instanceof OAuthError &&
    (error.status === 400 || error.status === 401) &&
    error.code !== "token_request_failed" &&
    error.code !== "use_dpop_nonce"
  );
}

/** Uses a refresh token; a server that rotates it gives a new one, otherwise the old one stays. */
export async function refreshTokens(
  fetchImpl: OAuthFetch,
  server: AuthorizationServerMetadata,
  client: OAuthClientInformation,
  tokens: OAuthTokens & { refreshToken: string },
  resource: string,
  dpop?: DpopKey,
): Promise<OAuthTokens> {
  const params = { grant_type: "refresh_token", refresh_token: tokens.refreshToken, resource };
  const record = await tokenRequest(fetchImpl, server, client, params, dpop);
  return tokensFrom(record, server.issuer, resource, tokens.requestedScope, dpop, tokens.refreshToken);
}
