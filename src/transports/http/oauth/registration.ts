/**
 * Getting a client identity at an authorization server: a pre-registered client, a Client ID
 * Metadata Document URL, or Dynamic Client Registration (RFC 7591), in that order of preference.
 */
import { askEndpoint } from "./answer.js";
import { type AuthorizationServerMetadata, type OAuthFetch, secureEnough } from "./discovery.js";
import { OAuthError } from "./errors.js";
import type { OAuthClientInformation, TokenEndpointAuthMethod } from "./token.js";

/** What the client says about itself when it registers. */
export interface RegistrationProfile {
  readonly clientName: string;
  readonly redirectUri: string;
}

/** The token endpoint authentication methods of clients this module registers (and a store may hold). */
export const METHODS: readonly TokenEndpointAuthMethod[] = [
  "client_secret_basic",
  "client_secret_post",
  "none",
];

/**
 * The method to register with: the first of ours the server lists (RFC 8414's default when it
 * lists none is `client_secret_basic`).
 */
export function chooseAuthMethod(supported: readonly string[] | undefined): TokenEndpointAuthMethod {
  const offered = supported ?? ["client_secret_basic"];
  const method = METHODS.find((candidate) => offered.includes(candidate));
  if (method === undefined) {
    throw new OAuthError(
      "unsupported_auth_method",
      "the token endpoint supports no client authentication we have",
    );
  }
  return method;
}

/**
 * "native" for a redirect a desktop, CLI or mobile app receives — plain HTTP back to this machine,
 * or a private-use scheme (RFC 8252 §7.1) — and "web" otherwise (SEP-837, OIDC registration §2:
 * a web client may only register HTTPS redirects, so a native one sent as "web" is refused).
 */
export function applicationType(redirectUri: string): "native" | "web" {
  const url = URL.canParse(redirectUri) ? new URL(redirectUri) : undefined;
  if (url === undefined) return "web";
  if (url.protocol === "http:") return secureEnough(url) ? "native" : "web";
  return url.protocol === "https:" ? "web" : "native";
}

/** RFC 7591 registration; the answer's method wins over the one asked for. */
export async function registerClient(
  fetchImpl: OAuthFetch,
  server: AuthorizationServerMetadata,
  profile: RegistrationProfile,
): Promise<OAuthClientInformation> {
  if (server.registrationEndpoint === undefined) {
    throw new OAuthError(
      "registration_unavailable",
      "the authorization server offers no dynamic registration; configure a pre-registered client",
    );
  }
  const method = chooseAuthMethod(server.tokenEndpointAuthMethods);
  const request = {
    client_name: profile.clientName,
    redirect_uris: [profile.redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
    application_type: applicationType(profile.redirectUri),
  };
  const init = {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(request),
  };
  const failure = { code: "registration_failed", endpoint: "registration endpoint" };
  const {
    ok,
    status,
    answer: record,
  } = await askEndpoint(fetchImpl, server.registrationEndpoint, init, failure);
  if (!ok || typeof record.client_id !== "string" || record.client_id === "") {
    const code = typeof record.error === "string" ? record.error : "registration_failed";
    throw new OAuthError(code, `the registration endpoint refused (HTTP ${status})`);
  }
  const answered = METHODS.find((candidate) => candidate === record.token_endpoint_auth_method) ?? method;
  const secret = typeof record.client_secret === "string" ? record.client_secret : undefined;
  return {
    issuer: server.issuer,
    clientId: record.client_id,
    // A confidential method without a secret cannot authenticate: it is a public client then.
    authMethod: answered !== "none" && secret === undefined ? "none" : answered,
    ...(secret !== undefined && answered !== "none" ? { clientSecret: secret } : {}),
  };
}
