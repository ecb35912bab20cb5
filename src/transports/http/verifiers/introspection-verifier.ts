/**
 * A `verifyToken` for opaque access tokens: token introspection (RFC 7662) at the authorization
 * server, with this resource's own client credentials, and a short cache of active answers.
 */
import type { AuthInfo } from "../../../shared/dispatch.js";
import { FetchReceived } from "../answer.js";
import { nonNegative, secureUrl, TokenRejected, TokenVerifier } from "./common.js";
import { discoveredOnce, discoverIssuerEndpoint, type MetadataFetch } from "./metadata.js";

/**
 * Where and as whom the verifier introspects, and what it accepts.
 *
 * @example
 * const options: IntrospectionVerifierOptions = {
 *   issuer: "https://auth.example.com",
 *   audience: "https://mcp.example.com/mcp",
 *   clientId: "mcp-resource",
 *   clientSecret: process.env.INTROSPECTION_SECRET!,
 * };
 */
export interface IntrospectionVerifierOptions {
  /** The authorization server's issuer identifier: an answer's `iss`, when present, must equal it. */
  readonly issuer: string;
  /**
   * This resource's identifier (its `protectedResource.resource`), or several: an answer's `aud`
   * must name one of them, so a token issued for another service is refused (RFC 8707).
   */
  readonly audience: string | readonly string[];
  /** This resource's client id at the authorization server (HTTP Basic, RFC 7662 §2.1). */
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * The introspection endpoint: `https:`, or `http:` on a loopback host. Default: the
   * `introspection_endpoint` of the issuer's metadata, read on the first token.
   */
  readonly introspectionEndpoint?: string | URL;
  /**
   * How long an active answer is reused, in milliseconds (never past the token's `exp`). Default
   * 30,000; 0 asks every time. A revoked token is refused at most this long after revocation.
   */
  readonly cacheTtlMs?: number;
  /** Answers kept at once (default 10,000); the least recently used goes first. */
  readonly maxCachedTokens?: number;
  /** Timeout of one introspection or metadata request, in milliseconds. Default 5,000. */
  readonly timeoutMs?: number;
  /** The largest answer read, in bytes. Default 64 KiB. */
  readonly maxResponseBytes?: number;
  /** The `fetch` used (a proxy-aware one, a test double). Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
}

const DEFAULT_CACHE_TTL_MS = 30_000;
const DEFAULT_MAX_CACHED = 10_000;
const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

interface Cached {
  readonly info: AuthInfo;
  readonly until: number;
}

/**
 * Verifies opaque access tokens by asking the authorization server (RFC 7662). A token is accepted
 * only when the answer says `active: true`, its `aud` names this resource, its `iss` (when given)
 * is the issuer, its `exp` (when given) has not passed and its `nbf` (when given) has. A
 * sender-constrained token (`cnf`) is refused, as by `JwtVerifier`.
 *
 * Active answers are cached for `cacheTtlMs` by a SHA-256 of the token; refusals are not, so a
 * token issued a moment ago is never refused from the cache.
 *
 * @example
 * const introspection = new IntrospectionVerifier({ issuer, audience: publicUrl.href, clientId, clientSecret });
 * await serveHttp(server, { verifyToken: introspection.verifyToken, requireAuth: true });
 */
export class IntrospectionVerifier extends TokenVerifier {
  readonly #credentials: string;
  readonly #endpoint: () => Promise<URL>;
  readonly #how: MetadataFetch;
  readonly #ttlMs: number;
  readonly #maxCached: number;
  readonly #cache = new Map<string, Cached>();

  constructor(options: IntrospectionVerifierOptions) {
    super(options);
    if (
      typeof options.clientId !== "string" ||
      options.clientId === "" ||
      typeof options.clientSecret !== "string"
    ) {
      throw new TypeError(
        "clientId and clientSecret must be this resource's credentials at the authorization server",
      );
    }
    // RFC 6749 §2.3.1: each part form-encoded, then Basic.
    const pair = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
    this.#credentials = `Basic ${btoa(pair)}`;
    this.#how = {
      fetch: options.fetch ?? globalThis.fetch,
      maxBytes: nonNegative("maxResponseBytes", options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES),
      timeoutMs: nonNegative("timeoutMs", options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    };
    this.#ttlMs = nonNegative("cacheTtlMs", options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS);
    const maxCached = options.maxCachedTokens ?? DEFAULT_MAX_CACHED;
    if (!(Number.isInteger(maxCached) && maxCached > 0)) {
      throw new RangeError(`maxCachedTokens must be a positive integer, got ${maxCached}`);
    }
    this.#maxCached = maxCached;
    if (options.introspectionEndpoint !== undefined) {
      const url = secureUrl(String(options.introspectionEndpoint), "introspectionEndpoint");
      this.#endpoint = () => Promise.resolve(url);
    } else {
      secureUrl(
        this.issuer,
        "issuer (its metadata names the endpoint when introspectionEndpoint is not given)",
      );
      this.#endpoint = discoveredOnce(() =>
        discoverIssuerEndpoint(this.issuer, "introspection_endpoint", this.#how),
      );
    }
  }

  /** Verifies one access token and says who holds it; rejects with {@link TokenRejected}. */
  async verify(token: string): Promise<AuthInfo> {
    const key = await cacheKeyOf(token);
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      this.#cache.delete(key);
      if (cached.until > Date.now()) {
        this.#cache.set(key, cached);
        return cached.info;
      }
    }
    const info = this.#accept(token, await this.#introspect(token));
    this.#remember(key, info);
    return info;
  }

  async #introspect(token: string): Promise<Record<string, unknown>> {
    let text: string;
    try {
      const endpoint = await this.#endpoint();
      const response = await this.#how.fetch(endpoint, {
        method: "POST",
        headers: {
          authorization: this.#credentials,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
        redirect: "manual",
        signal: AbortSignal.timeout(this.#how.timeoutMs),
      });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => {});
        throw new Error(`the introspection endpoint answered HTTP ${response.status}`);
      }
      text = await new FetchReceived(response).text(this.#how.maxBytes);
    } catch (error) {
      throw new TokenRejected(
        `introspection failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new TokenRejected("introspection failed: the answer is not JSON");
    }
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
      throw new TokenRejected("introspection failed: the answer is not a JSON object");
    }
    return answer as Record<string, unknown>;
  }

  /** The checks on an answer; `AuthInfo` when they all pass. */
  #accept(token: string, answer: Record<string, unknown>): AuthInfo {
    if (answer.active !== true) throw new TokenRejected("the token is not active");
    if (answer.iss !== undefined && answer.iss !== this.issuer) {
      throw new TokenRejected("the token was issued by another issuer");
    }
    const now = Date.now() / 1000;
    if (answer.exp !== undefined && !(typeof answer.exp === "number" && answer.exp > now)) {
      throw new TokenRejected("the token has expired");
    }
    if (answer.nbf !== undefined && !(typeof answer.nbf === "number" && answer.nbf <= now)) {
      throw new TokenRejected("the token is not valid yet");
    }
    const info = this.accept(token, answer);
    if (info.resource === undefined) throw new TokenRejected("the token was issued for another resource");
    return info;
  }

  #remember(key: string, info: AuthInfo): void {
    if (this.#ttlMs === 0) return;
    const expiry = info.expiresAt === undefined ? Number.POSITIVE_INFINITY : info.expiresAt * 1000;
    this.#cache.set(key, { info, until: Math.min(Date.now() + this.#ttlMs, expiry) });
    if (this.#cache.size > this.#maxCached) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
  }
}

/** The cache's key for a token: its SHA-256 (WebCrypto, so the verifier runs on any runtime). */
async function cacheKeyOf(token: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  let key = "";
  for (const byte of new Uint8Array(digest)) key += byte.toString(16).padStart(2, "0");
  return key;
}
