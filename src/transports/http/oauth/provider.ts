/**
 * The OAuth 2.1 client of the MCP authorization spec, as an `HttpAuthProvider`: on a 401 it
 * discovers the authorization server, gets a client identity there, runs the authorization-code
 * flow with PKCE and resource indicators, and the transport re-sends the refused message with the
 * new token; on a 403 `insufficient_scope` it re-authorizes with the union of the scopes.
 */
import { isRecord } from "../../../types/record.js";
import type { HttpAuthChallenge, HttpAuthProvider, HttpAuthRequest, HttpCredentials } from "../auth.js";
import { timedOAuthFetch } from "./answer.js";
import { type AuthorizationServerMetadata, type OAuthFetch, resourceCovers } from "./discovery.js";
import { DpopKey, isDpopPrivateJwk } from "./dpop.js";
import { OAuthError } from "./errors.js";
import {
  authorizationUrl,
  codeFromRedirect,
  isPendingAuthorization,
  type PendingAuthorization,
  pendingAuthorization,
  serverOf,
} from "./pending.js";
import { pkcePair, randomToken } from "./pkce.js";
import { type OAuthClientOptions, storedClient, storedTokens } from "./provider-options.js";
import {
  bearerOf,
  chooseScope,
  judgeRefusal,
  locateAuthorizationServer,
  wantsDpopNonce,
} from "./recovery.js";
import { chooseAuthMethod, METHODS, registerClient } from "./registration.js";
import { SingleFlight } from "./single-flight.js";
import {
  exchangeCode,
  freshAccessToken,
  type OAuthClientInformation,
  type OAuthTokens,
  refreshTokens,
  refusedForGood,
  type TokenEndpointAuthMethod,
} from "./token.js";

/**
 * An OAuth 2.1 client for one MCP server, to pass as a transport's `authProvider`. It follows the
 * MCP authorization spec: Protected Resource Metadata discovery (the challenge's
 * `resource_metadata`, then the well-known URLs), authorization server metadata (RFC 8414 / OpenID
 * Connect, with the issuer checked exactly), a pre-registered client, a Client ID Metadata
 * Document or dynamic registration, PKCE S256, `resource` on every grant, RFC 9207 `iss` checks,
 * refresh tokens, step-up on `insufficient_scope`, and fresh credentials when the resource moves to
 * another authorization server.
 *
 * @example
 * const oauth = new OAuthClientProvider({
 *   redirectUri: "http://127.0.0.1:8765/callback",
 *   authorize: async (url) => { await open(url.href); return waitForRedirect(8765); },
 * });
 * const client = await Client.connect(new StreamableHttpClientTransport(url, { authProvider: oauth }));
 */
export class OAuthClientProvider implements HttpAuthProvider {
  readonly #options: OAuthClientOptions;
  readonly #fetch: OAuthFetch;
  readonly #clients = new Map<string, OAuthClientInformation>();
  #tokens: OAuthTokens | undefined;
  /** The issuer an issuer-less pre-registered client was first used with. */
  #preRegisteredIssuer: string | undefined;
  /** What the last authorization used: needed to refresh before a request. */
  #server: AuthorizationServerMetadata | undefined;
  #resource: string | undefined;
  #loaded: Promise<void> | undefined;
  readonly #authorizing = new SingleFlight<boolean>();
  /** This client's DPoP key, made on first use. */
  #dpopKey: DpopKey | undefined;
  #pending: PendingAuthorization | undefined;
  readonly #refreshing = new SingleFlight<OAuthTokens | undefined>();
  #grants = 0;

  constructor(options: OAuthClientOptions) {
    if (typeof options?.authorize !== "function") throw new TypeError("authorize must be a function");
    if (typeof options.redirectUri !== "string" || !URL.canParse(options.redirectUri)) {
      throw new TypeError("redirectUri must be an absolute URL");
    }
    const method = options.client?.authMethod as string | undefined;
    // The type leaves it out; this is for callers it does not reach (JavaScript, a parsed config).
    if (method === "private_key_jwt") {
      throw new TypeError(
        'OAuthClientProvider cannot sign client assertions, so client.authMethod "private_key_jwt" is refused: ClientCredentialsProvider signs them with its privateKey',
      );
    }
    // Any other method (or a secret method without its secret) would be sent as a public client.
    if (method !== undefined && !METHODS.includes(method as TokenEndpointAuthMethod)) {
      throw new TypeError(`client.authMethod must be one of ${METHODS.join(", ")}`);
    }
    if (method?.startsWith("client_secret") && typeof options.client?.clientSecret !== "string") {
      throw new TypeError(`client.authMethod "${method}" needs a client.clientSecret`);
    }
    this.#options = options;
    this.#fetch = timedOAuthFetch(options.fetch, options.timeoutMs);
  }

  /** The tokens in use, if any (secrets: do not log them). */
  get tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  /**
   * How many authorizations (sign-ins) this provider has completed; a refresh does not count. A
   * `Client` drops its cached `private` results when it changes, since a new sign-in may be
   * another user's.
   */
  get authGrant(): number {
    return this.#grants;
  }

  /** The access token for the next request: refreshed first when it is about to expire. */
  async token(): Promise<string | undefined> {
    await this.#load();
    // A request made while an authorization runs waits for its token rather than sending a doomed one.
    await this.#authorizing.running?.catch(() => false);
    const tokens = this.#tokens;
    if (tokens === undefined) return undefined;
    const fresh = freshAccessToken(tokens);
    if (fresh !== undefined) return fresh;
    return (await this.#refreshing.run(() => this.#refresh(tokens)))?.accessToken;
  }

  /**
   * The credentials of one request: `Authorization: DPoP` and a fresh proof for a DPoP-bound token,
   * `Authorization: Bearer` otherwise.
   */
  async headers(request: HttpAuthRequest): Promise<HttpCredentials> {
    const token = await this.token();
    const resource = this.#tokens?.resource;
    // RFC 8707: a store shared by two servers must not hand one's token to the other; a token of
    // an unknown resource (an older version's store) waits for the 401, which refreshes or replaces it.
    if (token === undefined || resource === undefined || !resourceCovers(request.url, resource)) {
      return { token: undefined, headers: [] };
    }
    if (this.#tokens?.tokenType !== "DPoP" || this.#dpopKey === undefined) {
      return { token, headers: [["Authorization", `Bearer ${token}`]] };
    }
    const proof = await this.#dpopKey.proof({ method: request.method, url: request.url, accessToken: token });
    return {
      token,
      headers: [
        ["Authorization", `DPoP ${token}`],
        ["DPoP", proof],
      ],
    };
  }

  /** Acts on a refusal (see the class notes); concurrent refusals share one authorization. */
  unauthorized(challenge: HttpAuthChallenge): Promise<boolean> {
    return this.#authorizing.run(() => this.#recover(challenge));
  }

  async #recover(challenge: HttpAuthChallenge): Promise<boolean> {
    await this.#load();
    if (this.#dpopKey !== undefined && wantsDpopNonce(challenge)) {
      this.#dpopKey.rememberNonce(challenge.url, challenge.dpopNonce);
      return true;
    }
    const bearer = bearerOf(challenge);
    const verdict = judgeRefusal(challenge, bearer, this.#tokens?.accessToken);
    if (verdict !== "authorize") return verdict === "retry";
    const located = await locateAuthorizationServer(this.#fetch, challenge.url, bearer);
    const { resource, server } = located;
    this.#server = server;
    this.#resource = resource.resource;
    const previous = this.#tokens;
    if (challenge.status === 401 && challenge.attempt === 1 && previous?.issuer === server.issuer) {
      // Joins a refresh `token()` already runs: a rotating refresh token is good for one use only.
      const refreshed = await this.#refreshing.run(() => this.#refresh(previous));
      if (refreshed !== undefined) return true;
    }
    const client = await this.#clientFor(server);
    const offlineAccess = this.#options.offlineAccess !== false;
    const scope = chooseScope({ ...located, status: challenge.status, bearer, previous, offlineAccess });
    this.#tokens = await this.#authorize(server, client, resource.resource, scope);
    this.#grants++;
    await this.#save();
    return true;
  }

  /**
   * New tokens from the refresh token, or undefined when there are none. Tokens that cannot be
   * refreshed (no refresh token, another issuer, a refused refresh) are dropped; tokens loaded from
   * the store before the server is known are kept for the recovery of the coming 401 to refresh. A
   * refresh that fails for now (unreachable, timed out, 5xx) rejects and keeps the tokens.
   */
  async #refresh(tokens: OAuthTokens): Promise<OAuthTokens | undefined> {
    const server = this.#server;
    const resource = this.#resource;
    if (server === undefined || resource === undefined) return undefined;
    const client = this.#clients.get(server.issuer);
    const refreshToken = tokens.refreshToken;
    if (refreshToken === undefined || client === undefined || server.issuer !== tokens.issuer) {
      this.#tokens = undefined;
      return undefined;
    }
    try {
      const dpop = this.#dpopFor(server);
      this.#tokens = await refreshTokens(
        this.#fetch,
        server,
        client,
        { ...tokens, refreshToken },
        resource,
        dpop,
      );
    } catch (error) {
      // Only a refusal (expired, revoked) ends the tokens, and the next 401 runs a full authorization;
      // a failure that may pass keeps them for the next try and fails this call.
      if (!refusedForGood(error)) throw error;
      this.#tokens = undefined;
    }
    await this.#save();
    return this.#tokens;
  }

  /** This server's client: remembered, pre-registered, a metadata document URL, or registered now. */
  async #clientFor(server: AuthorizationServerMetadata): Promise<OAuthClientInformation> {
    const known = this.#clients.get(server.issuer);
    if (known !== undefined) return known;
    let client: OAuthClientInformation;
    const configured = this.#options.client;
    if (configured !== undefined && configured.issuer === undefined)
      this.#preRegisteredIssuer ??= server.issuer;
    if (configured !== undefined && (configured.issuer ?? this.#preRegisteredIssuer) === server.issuer) {
      const secret = configured.clientSecret;
      const authMethod =
        configured.authMethod ??
        (secret === undefined
          ? "none"
          : chooseAuthMethod(server.tokenEndpointAuthMethods?.filter((m) => m !== "none")));
      client = {
        issuer: server.issuer,
        clientId: configured.clientId,
        authMethod,
        ...(secret !== undefined ? { clientSecret: secret } : {}),
      };
    } else if (server.clientIdMetadataDocumentSupported && this.#options.clientMetadataUrl !== undefined) {
      client = { issuer: server.issuer, clientId: this.#options.clientMetadataUrl, authMethod: "none" };
    } else {
      client = await registerClient(this.#fetch, server, {
        clientName: this.#options.clientName ?? "roundtrip-mcp client",
        redirectUri: this.#options.redirectUri,
      });
    }
    this.#clients.set(server.issuer, client);
    await this.#save();
    return client;
  }

  /** One authorization-code flow: the user's consent through `authorize`, then the code exchange. */
  async #authorize(
    server: AuthorizationServerMetadata,
    client: OAuthClientInformation,
    resource: string,
    scope: string | undefined,
  ): Promise<OAuthTokens> {
    if (!server.pkceS256) {
      throw new OAuthError("invalid_metadata", "the authorization server does not support PKCE with S256");
    }
    const { verifier, challenge } = await pkcePair();
    const pending = pendingAuthorization(server, {
      state: randomToken(16),
      codeVerifier: verifier,
      redirectUri: this.#options.redirectUri,
      resource,
      scope,
    });
    const url = authorizationUrl(pending, client.clientId, challenge);
    // Kept before the user leaves, so that another request or process can finish it.
    this.#pending = pending;
    await this.#save();
    const returned = String(await this.#options.authorize(url));
    if (!URL.canParse(returned)) throw new OAuthError("invalid_callback", "authorize returned no URL");
    try {
      return await this.#finish(pending, client, returned);
    } catch (error) {
      await this.#save();
      throw error;
    }
  }

  /**
   * Finishes an authorization whose `authorize` threw after handing the user over (a web app that
   * ends the request with a redirect): give it the URL the authorization server sent the user back
   * to, in this process or another one sharing the `store`. It checks that URL as the one-process
   * flow does and exchanges the code; the client's next request carries the new token. The pending
   * authorization expires after 10 minutes and is used up by its first redirect, except a redirect
   * carrying another `state`, which is refused and leaves it in place.
   *
   * @example
   * // The web app's callback route, with a provider over the same store as the one that started it.
   * await provider.completeAuthorization(new URL(req.url, "https://app.example.com"));
   */
  async completeAuthorization(redirect: URL | string): Promise<void> {
    await this.#load();
    const pending = this.#pending;
    if (pending === undefined) throw new OAuthError("invalid_callback", "no authorization is pending");
    const client = this.#clients.get(pending.server.issuer);
    if (pending.expiresAt <= Date.now() || client === undefined) {
      this.#pending = undefined;
      await this.#save();
      throw new OAuthError("invalid_callback", "the pending authorization has expired: sign in again");
    }
    try {
      this.#tokens = await this.#finish(pending, client, redirect);
      this.#grants++;
      this.#server = serverOf(pending);
      this.#resource = pending.resource;
    } finally {
      await this.#save();
    }
  }

  /**
   * The redirect's code exchanged for tokens. The pending authorization is used up whatever the
   * outcome, except by a redirect for another request (another `state`).
   */
  async #finish(
    pending: PendingAuthorization,
    client: OAuthClientInformation,
    redirect: URL | string,
  ): Promise<OAuthTokens> {
    let code: string;
    try {
      code = codeFromRedirect(pending, redirect);
    } catch (error) {
      // A redirect for another request says nothing about this one, which stays pending.
      if (!(error instanceof OAuthError && error.code === "state_mismatch")) this.#pending = undefined;
      throw error;
    }
    this.#pending = undefined;
    const server = serverOf(pending);
    const { codeVerifier: verifier, redirectUri, resource, scope } = pending;
    return exchangeCode(
      this.#fetch,
      server,
      client,
      { code, verifier, redirectUri, resource, scope },
      this.#dpopFor(server),
    );
  }

  /** The DPoP key for this server's grants, when DPoP is on and the server takes ES256 proofs. */
  #dpopFor(server: AuthorizationServerMetadata): DpopKey | undefined {
    if (this.#options.dpop === false || !server.dpopAlgorithms?.includes("ES256")) return undefined;
    this.#dpopKey ??= new DpopKey({ persistable: this.#options.store !== undefined });
    return this.#dpopKey;
  }

  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      const state = await this.#options.store?.load();
      // The store is a file or a database another version (or a bug) may have written: read, not trusted.
      if (!isRecord(state)) return;
      for (const stored of Array.isArray(state.clients) ? state.clients : []) {
        const client = storedClient(stored);
        if (client === undefined) continue;
        this.#clients.set(client.issuer, client);
        // An issuer-less pre-registered client stays bound to the server it was first used with.
        if (client.clientId === this.#options.client?.clientId) this.#preRegisteredIssuer ??= client.issuer;
      }
      this.#tokens ??= storedTokens(state.tokens);
      if (isPendingAuthorization(state.pendingAuthorization)) this.#pending ??= state.pendingAuthorization;
      if (this.#dpopKey !== undefined || state.dpopKey === undefined) return;
      const stored = isDpopPrivateJwk(state.dpopKey)
        ? await DpopKey.from(state.dpopKey).catch(() => undefined)
        : undefined;
      // Tokens bound to a key that cannot be read back are useless: sign in again instead.
      if (stored === undefined && this.#tokens?.tokenType === "DPoP") this.#tokens = undefined;
      this.#dpopKey = stored;
    })().catch((error: unknown) => {
      // A store that failed for now (a file being replaced, a database restarting) is read again next time.
      this.#loaded = undefined;
      throw error;
    });
    return this.#loaded;
  }

  async #save(): Promise<void> {
    const store = this.#options.store;
    if (store === undefined) return;
    const dpopKey = await this.#dpopKey?.exportPrivate();
    await store.save({
      clients: [...this.#clients.values()],
      tokens: this.#tokens,
      ...(dpopKey !== undefined ? { dpopKey } : {}),
      ...(this.#pending !== undefined ? { pendingAuthorization: this.#pending } : {}),
    });
  }
}
