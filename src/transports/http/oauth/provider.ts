/**
 * The OAuth 2.1 client of the MCP authorization spec, as an `HttpAuthProvider`: on a 401 it
 * discovers the authorization server, gets a client identity there, runs the authorization-code
 * flow with PKCE and resource indicators, and the transport re-sends the refused message with the
 * new token; on a 403 `insufficient_scope` it re-authorizes with the union of the scopes.
 */
import type { HttpAuthChallenge, HttpAuthProvider, HttpAuthRequest, HttpCredentials } from "../auth.js";
import type { AuthorizationServerMetadata, OAuthFetch } from "./discovery.js";
import { DpopKey, type DpopPrivateJwk, isDpopPrivateJwk } from "./dpop.js";
import { OAuthError } from "./errors.js";
import { pkcePair, randomToken, sameString } from "./pkce.js";
import {
  bearerOf,
  chooseScope,
  judgeRefusal,
  locateAuthorizationServer,
  wantsDpopNonce,
} from "./recovery.js";
import { chooseAuthMethod, registerClient } from "./registration.js";
import { SingleFlight } from "./single-flight.js";
import {
  exchangeCode,
  freshAccessToken,
  type OAuthClientInformation,
  type OAuthTokens,
  refreshTokens,
  type TokenEndpointAuthMethod,
} from "./token.js";

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
   * the authorization server redirected back to, query included (`code`, `state`, `iss`).
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
    readonly authMethod?: TokenEndpointAuthMethod;
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
  readonly store?: OAuthStore;
}

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
  readonly #refreshing = new SingleFlight<OAuthTokens | undefined>();

  constructor(options: OAuthClientOptions) {
    if (typeof options?.authorize !== "function") throw new TypeError("authorize must be a function");
    if (typeof options.redirectUri !== "string" || !URL.canParse(options.redirectUri)) {
      throw new TypeError("redirectUri must be an absolute URL");
    }
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The tokens in use, if any (secrets: do not log them). */
  get tokens(): OAuthTokens | undefined {
    return this.#tokens;
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
    if (token === undefined) return { token, headers: [] };
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
      const refreshed = await this.#refresh(previous);
      if (refreshed !== undefined) return true;
    }
    const client = await this.#clientFor(server);
    const offlineAccess = this.#options.offlineAccess !== false;
    const scope = chooseScope({ ...located, status: challenge.status, bearer, previous, offlineAccess });
    this.#tokens = await this.#authorize(server, client, resource.resource, scope);
    await this.#save();
    return true;
  }

  /**
   * New tokens from the refresh token, or undefined when there are none. Tokens that cannot be
   * refreshed (no refresh token, another issuer, a refused refresh) are dropped; tokens loaded from
   * the store before the server is known are kept for the recovery of the coming 401 to refresh.
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
    } catch {
      // A refused refresh (expired, revoked): the next 401 runs a full authorization.
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
    const state = randomToken(16);
    const url = new URL(server.authorizationEndpoint);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", client.clientId);
    url.searchParams.set("redirect_uri", this.#options.redirectUri);
    url.searchParams.set("code_challenge", challenge);
    url.searchParams.set("code_challenge_method", "S256");
    url.searchParams.set("state", state);
    url.searchParams.set("resource", resource);
    if (scope !== undefined) url.searchParams.set("scope", scope);
    const returned = String(await this.#options.authorize(url));
    if (!URL.canParse(returned)) throw new OAuthError("invalid_callback", "authorize returned no URL");
    const answer = new URL(returned).searchParams;
    if (!sameString(answer.get("state") ?? "", state)) {
      throw new OAuthError("state_mismatch", "the authorization response is not for this request (state)");
    }
    // RFC 9207: compared exactly whenever present; required when the server promised it.
    const iss = answer.get("iss");
    if (iss === null ? server.issParameterSupported : iss !== server.issuer) {
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
    const grant = { code, verifier, redirectUri: this.#options.redirectUri, resource, scope };
    return exchangeCode(this.#fetch, server, client, grant, this.#dpopFor(server));
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
      if (state === undefined) return;
      for (const client of state.clients ?? []) {
        this.#clients.set(client.issuer, client);
        // An issuer-less pre-registered client stays bound to the server it was first used with.
        if (client.clientId === this.#options.client?.clientId) this.#preRegisteredIssuer ??= client.issuer;
      }
      this.#tokens ??= state.tokens;
      if (this.#dpopKey !== undefined || state.dpopKey === undefined) return;
      const stored = isDpopPrivateJwk(state.dpopKey)
        ? await DpopKey.from(state.dpopKey).catch(() => undefined)
        : undefined;
      // Tokens bound to a key that cannot be read back are useless: sign in again instead.
      if (stored === undefined && this.#tokens?.tokenType === "DPoP") this.#tokens = undefined;
      this.#dpopKey = stored;
    })();
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
    });
  }
}
