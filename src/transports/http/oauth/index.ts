/**
 * The OAuth 2.1 client of the MCP authorization spec, for the Streamable HTTP client transport.
 *
 * @example
 * import { OAuthClientProvider } from "roundtrip-mcp/oauth";
 * const authProvider = new OAuthClientProvider({ redirectUri, authorize: openBrowserAndWait });
 * const client = await Client.connect(new StreamableHttpClientTransport(url, { authProvider }));
 */
export type { HttpAuthChallenge, HttpAuthProvider, HttpAuthRequest, HttpCredentials } from "../auth.js";
export { MAX_OAUTH_DOCUMENT_BYTES } from "./answer.js";
export { type AssertionAlgorithm, importAssertionKey, signClientAssertion } from "./assertion.js";
export { type BearerChallenge, parseBearerChallenge } from "./challenge.js";
export {
  type ClientCredentialsOptions,
  ClientCredentialsProvider,
  type GrantTarget,
} from "./client-credentials.js";
export type { AuthorizationServerMetadata, OAuthFetch, ProtectedResourceMetadata } from "./discovery.js";
export { OAuthError } from "./errors.js";
export { type IdJagOptions, idJagFromIdentityProvider } from "./id-jag.js";
export type { PendingAuthorization } from "./pending.js";
export { OAuthClientProvider } from "./provider.js";
export type { OAuthClientOptions, OAuthState, OAuthStore } from "./provider-options.js";
export type { OAuthClientInformation, OAuthTokens, TokenEndpointAuthMethod } from "./token.js";
