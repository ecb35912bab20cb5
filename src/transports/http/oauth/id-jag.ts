/**
 * Enterprise-managed authorization (SEP-990): the user signed in to the enterprise's identity
 * provider once; its ID token is exchanged there (RFC 8693 token exchange) for an Identity
 * Assertion JWT Authorization Grant — an ID-JAG — naming the MCP server's authorization server and
 * resource, which that server then accepts with the JWT-bearer grant. No browser per MCP server.
 */
import { askEndpoint, timedOAuthFetch } from "./answer.js";
import type { GrantTarget } from "./client-credentials.js";
import { type OAuthFetch, secureEnough } from "./discovery.js";
import { OAuthError } from "./errors.js";

const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

/**
 * Where and how to ask the enterprise identity provider for ID-JAGs.
 *
 * @example
 * const options: IdJagOptions = { tokenEndpoint: "https://idp.example.com/token", idToken, clientId: "mcp-host" };
 */
export interface IdJagOptions {
  /** The identity provider's token endpoint (HTTPS, or this machine). */
  readonly tokenEndpoint: string | URL;
  /** The user's ID token from that identity provider (a function to fetch a fresh one). */
  readonly idToken: string | (() => string | Promise<string>);
  /** This application's client id at the identity provider. */
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly fetch?: OAuthFetch;
  /** Bound on each request to the identity provider, in milliseconds (default 30,000). */
  readonly timeoutMs?: number;
}

/**
 * A `workloadToken` for `ClientCredentialsProvider` that asks the identity provider for an ID-JAG
 * for each authorization server and resource.
 *
 * @example
 * const authProvider = new ClientCredentialsProvider({
 *   clientId, clientSecret, // the client at the MCP server's authorization server
 *   workloadToken: idJagFromIdentityProvider({ tokenEndpoint, idToken, clientId: idpClientId }),
 * });
 */
export function idJagFromIdentityProvider(options: IdJagOptions): (target: GrantTarget) => Promise<string> {
  const endpoint = new URL(options.tokenEndpoint);
  if (!secureEnough(endpoint)) throw new TypeError("tokenEndpoint must be an HTTPS (or loopback) URL");
  const fetchImpl = timedOAuthFetch(options.fetch, options.timeoutMs);
  return async (target) => {
    const idToken = typeof options.idToken === "function" ? await options.idToken() : options.idToken;
    const body = new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: idToken,
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      requested_token_type: ID_JAG,
      audience: target.issuer,
      resource: target.resource,
      client_id: options.clientId,
    });
    if (target.scope !== undefined) body.set("scope", target.scope);
    if (options.clientSecret !== undefined) body.set("client_secret", options.clientSecret);
    const init = {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: body.toString(),
    };
    const failure = { code: "token_exchange_failed", endpoint: "identity provider" };
    const { ok, status, answer } = await askEndpoint(fetchImpl, endpoint, init, failure);
    if (!ok) {
      const code = typeof answer.error === "string" ? answer.error : "token_exchange_failed";
      throw new OAuthError(code, `the identity provider refused the token exchange (HTTP ${status})`);
    }
    if (answer.issued_token_type !== ID_JAG || typeof answer.access_token !== "string") {
      throw new OAuthError("token_exchange_failed", "the identity provider issued no ID-JAG");
    }
    return answer.access_token;
  };
}
