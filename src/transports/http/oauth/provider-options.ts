/**
 * What an `OAuthClientProvider` is given: its options, and the state its store keeps between runs,
 * read back defensively.
 */
import { isRecord } from "../../../types/record.js";
import type { OAuthFetch } from "./discovery.js";
import type { DpopPrivateJwk } from "./dpop.js";
import type { PendingAuthorization } from "./pending.js";
import { METHODS } from "./registration.js";
import {
  carriableToken,
  type OAuthClientInformation,
  type OAuthTokens,
  type TokenEndpointAuthMethod,
} from "./token.js";

const filled = (value: unknown): value is string => typeof value === "string" && value !== "";
const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * Stored tokens as they can be used: none without an issuer and an access token a header can carry, and any other
 * field of the wrong type dropped (an older version's `expiresAt: null` is no known expiry).
 */
export function storedTokens(value: unknown): OAuthTokens | undefined {
  if (!isRecord(value)) return undefined;
  const { issuer, accessToken, resource, refreshToken, expiresAt, issuedAt, requestedScope, tokenType } =
    value;
  if (!filled(issuer) || !filled(accessToken) || !carriableToken(accessToken)) return undefined;
  return {
    issuer,
    accessToken,
    ...(filled(resource) ? { resource } : {}),
    ...(filled(refreshToken) ? { refreshToken } : {}),
    ...(isTime(expiresAt) ? { expiresAt, ...(isTime(issuedAt) ? { issuedAt } : {}) } : {}),
    ...(filled(requestedScope) ? { requestedScope } : {}),
    ...(tokenType === "DPoP" ? { tokenType } : {}),
  };
}

/** A stored client as it can be used: none without an issuer, an id and a method, a secret kept only as a string. */
export function storedClient(value: unknown): OAuthClientInformation | undefined {
  if (!isRecord(value)) return undefined;
  const { issuer, clientId, clientSecret, authMethod } = value;
  const method = METHODS.find((known) => known === authMethod);
  if (!filled(issuer) || !filled(clientId) || method === undefined) return undefined;
  return {
    issuer,
    clientId,
    authMethod: method,
    ...(typeof clientSecret === "string" ? { clientSecret } : {}),
  };
}

/**
 * What the provider remembers, for an {@link OAuthStore} to keep between runs. It holds secrets
 * (client secrets, tokens): store it as you would a password.
 *
 * @example
 * const state: OAuthState = { clients: [], tokens: undefined };
 */
export interface OAuthState {
  /** One client per authorization server (by `issuer`). */
  readonly clients: readonly OAuthClientInformation[];
  readonly tokens: OAuthTokens | undefined;
  /**
   * The private DPoP key DPoP-bound tokens need (a secret, like the tokens), when the provider has
   * a store and the authorization server binds tokens with DPoP.
   */
  readonly dpopKey?: DpopPrivateJwk;
  /**
   * An authorization whose user has not come back yet (its PKCE verifier is a secret), for
   * `completeAuthorization` in whichever request or process receives the redirect.
   */
  readonly pendingAuthorization?: PendingAuthorization;
}

/**
 * Where the provider keeps its state between runs (default: memory only).
 *
 * @example
 * const store: OAuthStore = {
 *   load: async () => JSON.parse(await readFile(path, "utf8")),
 *   save: (state) => writeFile(path, JSON.stringify(state), { mode: 0o600 }),
 * };
 */
export interface OAuthStore {
  load(): OAuthState | undefined | Promise<OAuthState | undefined>;
  save(state: OAuthState): void | Promise<void>;
}

/**
 * Options of {@link OAuthClientProvider}.
 *
 * @example
 * const options: OAuthClientOptions = { redirectUri: "http://127.0.0.1:8765/callback", authorize: openBrowserAndWait };
 */
export interface OAuthClientOptions {
  /** Where the authorization server sends the user back; registered with the server. */
  readonly redirectUri: string;
  /**
   * Sends the user to `authorizationUrl` (a browser, a printed link, …) and resolves with the URL
   * the authorization server redirected back to, query included (`code`, `state`, `iss`). A web app
   * whose redirect lands on another request throws instead (its own error reaches the caller) and
   * hands that URL to `completeAuthorization` later.
   */
  readonly authorize: (authorizationUrl: URL) => Promise<URL | string>;
  /** The name shown on consent screens and sent at registration (default "roundtrip-mcp client"). */
  readonly clientName?: string;
  /** An HTTPS URL serving this client's metadata document: used as the client id where the server supports it. */
  readonly clientMetadataUrl?: string;
  /**
   * A client registered beforehand. With `issuer`, only for that authorization server; without,
   * for the first one met (credentials never travel to another server).
   */
  readonly client?: {
    readonly clientId: string;
    readonly clientSecret?: string;
    readonly issuer?: string;
    /** Not `private_key_jwt`: this provider holds no key to sign with (`ClientCredentialsProvider` does). */
    readonly authMethod?: Exclude<TokenEndpointAuthMethod, "private_key_jwt">;
  };
  /** Ask for `offline_access` (a refresh token) when the server lists it (default true). */
  readonly offlineAccess?: boolean;
  /**
   * Bind tokens to a key of this client with DPoP (RFC 9449) when the authorization server offers
   * ES256 proofs (default true). With a `store`, the private key is saved with the tokens, so the
   * next process can use them; without one, it is made non-extractable and lives in memory only.
   */
  readonly dpop?: boolean;
  /** The fetch for discovery, registration and token requests (default: the global one). */
  readonly fetch?: OAuthFetch;
  /** Bound on each discovery, registration and token request, in milliseconds (default 30,000). */
  readonly timeoutMs?: number;
  readonly store?: OAuthStore;
}
