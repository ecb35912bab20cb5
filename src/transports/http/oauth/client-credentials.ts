/**
 * The client credentials grant for MCP (SEP-1046, extension `io.modelcontextprotocol/oauth-client-credentials`):
 * a service with no user signs in as itself, with a client secret or a private key (`private_key_jwt`).
 */
import type { HttpAuthChallenge, HttpAuthProvider } from "../auth.js";
import { timedOAuthFetch } from "./answer.js";
import { type AssertionAlgorithm, importAssertionKey, signClientAssertion } from "./assertion.js";
import type { AuthorizationServerMetadata, OAuthFetch } from "./discovery.js";
import { OAuthError } from "./errors.js";
import { bearerOf, chooseScope, judgeRefusal, locateAuthorizationServer } from "./recovery.js";
import { chooseAuthMethod } from "./registration.js";
import { SingleFlight } from "./single-flight.js";
import {
  clientCredentialsTokens,
  freshAccessToken,
  jwtBearerTokens,
  type OAuthClientInformation,
  type OAuthTokens,
  refusedForGood,
} from "./token.js";

/**
 * What a `workloadToken` is asked for: the authorization server and resource the JWT-bearer grant
 * goes to, and the scope it asks for.
 *
 * @example
 * const target: GrantTarget = { issuer: "https://auth.example.com", resource: "https://mcp.example.com/mcp", scope: undefined };
 */
export interface GrantTarget {
  readonly issuer: string;
  readonly resource: string;
  readonly scope: string | undefined;
}

/**
 * Options of {@link ClientCredentialsProvider}: a client id, and a secret or a private key (the
 * client's authentication), a `workloadToken` (an assertion the client presents), or both.
 *
 * @example
 * const options: ClientCredentialsOptions = { clientId: "reporting-bot", clientSecret: process.env.BOT_SECRET! };
 */
export interface ClientCredentialsOptions {
  readonly clientId: string;
  /** Authenticates with `client_secret_basic` (or `client_secret_post` where basic is not offered). */
  readonly clientSecret?: string;
  /** Authenticates with `private_key_jwt`: a PKCS #8 PEM, or a WebCrypto signing key. */
  readonly privateKey?: string | CryptoKey;
  /** The key's algorithm (default ES256). */
  readonly signingAlgorithm?: AssertionAlgorithm;
  /** The `kid` the authorization server knows the key by, when it holds several. */
  readonly keyId?: string;
  /**
   * A JWT to trade with the JWT-bearer grant (RFC 7523) instead of a client credentials grant, asked
   * for afresh for each token request with the authorization server and resource it is for: the
   * JWT a platform issued this workload (workload identity federation, SEP-1933), or an ID-JAG from
   * the enterprise's identity provider (`idJagFromIdentityProvider`, SEP-990). With a secret or a
   * key the client also authenticates; alone it authenticates with nothing more.
   */
  readonly workloadToken?: (target: GrantTarget) => string | Promise<string>;
  /**
   * The issuer of the authorization server these credentials belong to: they are never sent to
   * another one. Without it, the first authorization server the resource names is trusted, and
   * any other one refused afterwards.
   */
  readonly issuer?: string;
  readonly fetch?: OAuthFetch;
  /** Bound on each discovery, registration and token request, in milliseconds (default 30,000). */
  readonly timeoutMs?: number;
}

/**
 * An `HttpAuthProvider` for services: on a 401 it finds the authorization server (Protected
 * Resource Metadata, then RFC 8414, both validated as for users), asks the token endpoint for a
 * client credentials token bound to the resource, and the transport sends the message again; a
 * 403 `insufficient_scope` asks again with the union of the scopes. Tokens are renewed before they
 * expire; a renewal that fails fails the call.
 *
 * @example
 * const authProvider = new ClientCredentialsProvider({ clientId: "reporting-bot", privateKey: pem });
 * const client = await Client.connect(new StreamableHttpClientTransport(url, { authProvider }));
 */
export class ClientCredentialsProvider implements HttpAuthProvider {
  readonly #options: ClientCredentialsOptions;
  readonly #fetch: OAuthFetch;
  #key: Promise<CryptoKey> | undefined;
  #tokens: OAuthTokens | undefined;
  /** Where the last token came from: what renewing it needs. */
  #last: { server: AuthorizationServerMetadata; resource: string } | undefined;
  readonly #flight = new SingleFlight<boolean>();
  /** Concurrent calls share one renewal, and its failure. */
  readonly #renewing = new SingleFlight<boolean>();
  /** `options.issuer`, or the first authorization server met. */
  #trustedIssuer: string | undefined;

  constructor(options: ClientCredentialsOptions) {
    if (typeof options?.clientId !== "string" || options.clientId === "") {
      throw new TypeError("clientId must be a non-empty string");
    }
    const { clientSecret, privateKey, workloadToken } = options;
    if (clientSecret !== undefined && privateKey !== undefined) {
      throw new TypeError("give clientSecret or privateKey, not both");
    }
    if (clientSecret === undefined && privateKey === undefined && workloadToken === undefined) {
      throw new TypeError("give a clientSecret, a privateKey or a workloadToken");
    }
    this.#options = options;
    this.#fetch = timedOAuthFetch(options.fetch, options.timeoutMs);
    this.#trustedIssuer = options.issuer;
  }

  /** The tokens in use, if any (secrets: do not log them). */
  get tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  async token(): Promise<string | undefined> {
    await this.#flight.running?.catch(() => false);
    const tokens = this.#tokens;
    if (tokens === undefined) return undefined;
    const fresh = freshAccessToken(tokens);
    if (fresh !== undefined) return fresh;
    const last = this.#last;
    if (last === undefined) return undefined;
    try {
      await this.#renewing.run(() => this.#request(last.server, last.resource, tokens.requestedScope));
    } catch (error) {
      // The call fails rather than go out without a token; a refusal also ends these tokens (not
      // newer ones a recovery got meanwhile), so that the next call's 401 starts over.
      if (refusedForGood(error) && this.#tokens === tokens) this.#tokens = undefined;
      throw error;
    }
    return this.#tokens?.accessToken;
  }

  unauthorized(challenge: HttpAuthChallenge): Promise<boolean> {
    return this.#flight.run(() => this.#recover(challenge));
  }

  async #recover(challenge: HttpAuthChallenge): Promise<boolean> {
    const bearer = bearerOf(challenge);
    const verdict = judgeRefusal(challenge, bearer, this.#tokens?.accessToken);
    if (verdict !== "authorize") return verdict === "retry";
    const located = await locateAuthorizationServer(this.#fetch, challenge.url, bearer);
    const { resource, server } = located;
    const previous = this.#tokens;
    const scope = chooseScope({
      ...located,
      status: challenge.status,
      bearer,
      previous,
      offlineAccess: false,
    });
    return this.#request(server, resource.resource, scope);
  }

  async #request(
    server: AuthorizationServerMetadata,
    resource: string,
    scope: string | undefined,
  ): Promise<boolean> {
    const client = this.#client(server);
    const clientAssertion =
      client.authMethod === "private_key_jwt"
        ? await signClientAssertion({
            clientId: client.clientId,
            audience: server.issuer,
            key: await this.#signingKey(),
            algorithm: this.#options.signingAlgorithm ?? "ES256",
            ...(this.#options.keyId !== undefined ? { keyId: this.#options.keyId } : {}),
          })
        : undefined;
    const workload = this.#options.workloadToken;
    if (workload === undefined) {
      const grant = { resource, scope, assertion: clientAssertion };
      this.#tokens = await clientCredentialsTokens(this.#fetch, server, client, grant);
    } else {
      const assertion = await workload({ issuer: server.issuer, resource, scope });
      const grant = { resource, scope, assertion, clientAssertion };
      this.#tokens = await jwtBearerTokens(this.#fetch, server, client, grant);
    }
    this.#last = { server, resource };
    return true;
  }

  /** The client as this server takes it: the method follows what it lists (RFC 8414's default when none). */
  #client(server: AuthorizationServerMetadata): OAuthClientInformation {
    this.#trustedIssuer ??= server.issuer;
    if (server.issuer !== this.#trustedIssuer) {
      // SEP-2352: client credentials belong to one authorization server.
      throw new OAuthError(
        "issuer_mismatch",
        "the resource names an authorization server these credentials do not belong to",
      );
    }
    const { clientId, clientSecret, privateKey } = this.#options;
    // A workload JWT alone is the credential: the client itself authenticates with nothing more.
    if (clientSecret === undefined && privateKey === undefined) {
      return { issuer: server.issuer, clientId, authMethod: "none" };
    }
    if (clientSecret === undefined) {
      if (!(server.tokenEndpointAuthMethods ?? ["client_secret_basic"]).includes("private_key_jwt")) {
        throw new OAuthError("unsupported_auth_method", "the token endpoint does not accept private_key_jwt");
      }
      return { issuer: server.issuer, clientId, authMethod: "private_key_jwt" };
    }
    // The registration rule: the first secret method the server lists (basic, then post).
    const method = chooseAuthMethod(server.tokenEndpointAuthMethods?.filter((m) => m !== "none"));
    return { issuer: server.issuer, clientId, clientSecret, authMethod: method };
  }

  #signingKey(): Promise<CryptoKey> {
    const key = this.#options.privateKey;
    this.#key ??=
      typeof key === "string"
        ? importAssertionKey(key, this.#options.signingAlgorithm ?? "ES256")
        : Promise.resolve(key as CryptoKey);
    return this.#key;
  }
}
