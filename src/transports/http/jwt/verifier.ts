/**
 * A `verifyToken` for JWT access tokens (RFC 9068): signature against the issuer's published keys,
 * then issuer, audience (RFC 8707: tokens issued for this resource only), expiry and not-before.
 * Signature checks and key sets are `jose`'s; this file is the MCP policy around them.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import type { AuthInfo } from "../../../shared/dispatch.js";
import { isLoopbackHostname } from "../loopback.js";
import { discoverJwksUri } from "./discovery.js";
import { boundedJwksFetch, DEFAULT_MAX_JWKS_BYTES } from "./jwks-fetch.js";

/**
 * Where the verifier reads the issuer's keys, and what it accepts.
 *
 * @example
 * const options: JwtVerifierOptions = {
 *   issuer: "https://auth.example.com",
 *   audience: "https://mcp.example.com/mcp",
 *   jwksUri: "https://auth.example.com/.well-known/jwks.json",
 * };
 */
export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier: a token's `iss` must equal it. */
  readonly issuer: string;
  /**
   * This resource's identifier (its `protectedResource.resource`), or several: a token's `aud` must
   * name one of them, so a token issued for another service is refused (MCP authorization, RFC 8707).
   */
  readonly audience: string | readonly string[];
  /**
   * The issuer's key set URL: `https:`, or `http:` on a loopback host. Default: the `jwks_uri` of
   * the issuer's metadata (RFC 8414 or OpenID discovery), read on the first token. Keys are cached,
   * and an unknown `kid` fetches the set again (at most every 30 s), so a key rotation needs no
   * restart.
   */
  readonly jwksUri?: string | URL;
  /** The issuer's keys themselves, for a key set that is configured rather than fetched. */
  readonly jwks?: JSONWebKeySet;
  /**
   * The signature algorithms accepted. Default: the asymmetric JWS algorithms (RS, PS and ES
   * families, EdDSA). Shared-secret (`HS*`) and `none` are never accepted.
   */
  readonly algorithms?: readonly string[];
  /** The `typ` header a token must carry, e.g. `"at+jwt"` (RFC 9068 §2.1). Default: not checked. */
  readonly typ?: string;
  /** Clock skew tolerated on `exp` and `nbf`, in seconds. Default 30. */
  readonly clockToleranceSec?: number;
  /** Timeout of one key set or metadata fetch, in milliseconds. Default 5,000. */
  readonly jwksTimeoutMs?: number;
  /** The largest key set or metadata document read, in bytes. Default 256 KiB. */
  readonly maxJwksBytes?: number;
  /** The `fetch` for keys and metadata (a proxy-aware one, a test double). Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/**
 * Why a presented token was refused. Its message names the check that failed, never the token,
 * and the HTTP endpoint turns it into `401` with `error="invalid_token"`.
 *
 * @example
 * await verifier.verify(token).catch((error) => error instanceof JwtRejected && console.warn(error.message));
 */
export class JwtRejected extends Error {
  override readonly name = "JwtRejected";
}

const ASYMMETRIC = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

const DEFAULT_CLOCK_TOLERANCE_SEC = 30;
const DEFAULT_JWKS_TIMEOUT_MS = 5_000;
/** After a failed metadata read, tokens are refused without asking the issuer again for this long. */
const DISCOVERY_RETRY_MS = 30_000;

/**
 * Verifies JWT access tokens for an MCP server. `verifyToken` plugs into the HTTP endpoint's
 * option of the same name; `verify` checks one token anywhere else.
 *
 * A bearer token is accepted only when its signature verifies with one of the issuer's keys under
 * an allowed algorithm, `iss` is the issuer, `aud` names this resource, `exp` is present and not
 * past, and `nbf`, when present, is reached. A sender-constrained token (one with a `cnf` claim,
 * DPoP or mTLS) is refused: this verifier checks no proof of possession, and accepting such a token
 * as a bearer token would let whoever copied it use it.
 *
 * @example
 * const jwt = new JwtVerifier({ issuer, audience: publicUrl.href }); // keys from the issuer's metadata
 * await serveHttp(server, { verifyToken: jwt.verifyToken, requireAuth: true });
 */
export class JwtVerifier {
  readonly #keys: JWTVerifyGetKey;
  readonly #issuer: string;
  readonly #audience: string[];
  readonly #algorithms: string[];
  readonly #typ: string | undefined;
  readonly #clockTolerance: number;

  constructor(options: JwtVerifierOptions) {
    if (typeof options?.issuer !== "string" || options.issuer === "") {
      throw new TypeError("issuer must be the authorization server's issuer identifier");
    }
    this.#issuer = options.issuer;
    this.#audience = audienceOf(options.audience);
    this.#algorithms = algorithmsOf(options.algorithms);
    this.#typ = options.typ;
    this.#clockTolerance = nonNegative(
      "clockToleranceSec",
      options.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC,
    );
    this.#keys = keySetOf(options);
  }

  /**
   * The HTTP endpoint's `verifyToken`: `undefined` without an `Authorization` header or for a
   * scheme other than `Bearer`; the token's identity when it verifies; a {@link JwtRejected}
   * otherwise (the endpoint answers `401 invalid_token` and logs the reason).
   */
  readonly verifyToken = async (request: Request): Promise<AuthInfo | undefined> => {
    const authorization = request.headers.get("authorization");
    if (authorization === null) return undefined;
    const match = /^(\S+) +(\S+)$/.exec(authorization.trim());
    const scheme = match?.[1]?.toLowerCase();
    if (scheme === "dpop") throw new JwtRejected("DPoP-bound tokens are not accepted by this verifier");
    if (scheme !== "bearer" || match?.[2] === undefined) return undefined;
    return this.verify(match[2]);
  };

  /** Verifies one access token and says who holds it; rejects with {@link JwtRejected}. */
  async verify(token: string): Promise<AuthInfo> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys, {
        issuer: this.#issuer,
        audience: this.#audience,
        algorithms: this.#algorithms,
        clockTolerance: this.#clockTolerance,
        requiredClaims: ["exp"],
        ...(this.#typ !== undefined && { typ: this.#typ }),
      }));
    } catch (error) {
      // jose's messages name the failed check ('"exp" claim timestamp check failed'), not the token.
      throw new JwtRejected(`the token was refused: ${error instanceof Error ? error.message : "invalid"}`);
    }
    if (payload.cnf !== undefined) {
      throw new JwtRejected(
        "the token is sender-constrained (cnf) and needs a proof this verifier does not check",
      );
    }
    return authInfoOf(token, payload, this.#audience);
  }
}

/** What a verified token says, in `AuthInfo` terms. */
function authInfoOf(token: string, payload: JWTPayload, audience: readonly string[]): AuthInfo {
  const granted = typeof payload.aud === "string" ? [payload.aud] : (payload.aud ?? []);
  return {
    token,
    // RFC 9068 names it client_id; many providers only carry the OIDC `azp`.
    clientId: stringClaim(payload.client_id) ?? stringClaim(payload.azp) ?? "",
    scopes: scopesOf(payload),
    issuer: payload.iss,
    subject: payload.sub,
    expiresAt: payload.exp,
    resource: audience.find((entry) => granted.includes(entry)),
    extra: Object.freeze({ ...payload }),
  };
}

/** `scope` (RFC 9068: space-separated) or `scp` (an array, or a string, as some providers send). */
function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === "string") return raw.split(" ").filter((scope) => scope !== "");
  if (Array.isArray(raw)) return raw.filter((scope): scope is string => typeof scope === "string");
  return [];
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function audienceOf(audience: string | readonly string[] | undefined): string[] {
  const list = typeof audience === "string" ? [audience] : [...(audience ?? [])];
  if (list.length === 0 || list.some((entry) => typeof entry !== "string" || entry === "")) {
    throw new TypeError("audience must name this resource (its protectedResource.resource URL)");
  }
  return list;
}

function algorithmsOf(algorithms: readonly string[] | undefined): string[] {
  if (algorithms === undefined) return [...ASYMMETRIC];
  const refused = algorithms.filter((alg) => !(ASYMMETRIC as readonly string[]).includes(alg));
  if (algorithms.length === 0 || refused.length > 0) {
    throw new TypeError(
      `algorithms must be asymmetric JWS algorithms (${ASYMMETRIC.join(", ")}); refused: ${refused.join(", ") || "an empty list"}`,
    );
  }
  return [...algorithms];
}

function nonNegative(name: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  }
  return value;
}

function keySetOf(options: JwtVerifierOptions): JWTVerifyGetKey {
  if (options.jwks !== undefined && options.jwksUri !== undefined) {
    throw new TypeError("give at most one of jwksUri (fetched) and jwks (configured keys)");
  }
  if (options.jwks !== undefined) return createLocalJWKSet(options.jwks);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxBytes = nonNegative("maxJwksBytes", options.maxJwksBytes ?? DEFAULT_MAX_JWKS_BYTES);
  const timeoutMs = nonNegative("jwksTimeoutMs", options.jwksTimeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS);
  const remote = (url: URL): JWTVerifyGetKey =>
    createRemoteJWKSet(url, {
      timeoutDuration: timeoutMs,
      [customFetch]: boundedJwksFetch(fetchImpl, maxBytes),
    });
  if (options.jwksUri !== undefined) return remote(secure(String(options.jwksUri), "jwksUri"));
  secure(options.issuer, "issuer (its metadata names the keys when jwksUri is not given)");
  return discovered(() => discoverJwksUri(options.issuer, fetchImpl, maxBytes, timeoutMs).then(remote));
}

function secure(value: string, name: string): URL {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== "https:" && !(url?.protocol === "http:" && isLoopbackHostname(url.hostname))) {
    throw new TypeError(`${name} must be an https: URL (http: only on a loopback host)`);
  }
  return url;
}

/**
 * Keys found through the issuer's metadata, read once on first use. A failed read is retried
 * by a token that comes after `DISCOVERY_RETRY_MS`; the ones before are refused with its reason.
 */
function discovered(discover: () => Promise<JWTVerifyGetKey>): JWTVerifyGetKey {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  let failure: { at: number; error: unknown } | undefined;
  return async (header, token) => {
    if (keys === undefined) {
      if (failure !== undefined && Date.now() - failure.at < DISCOVERY_RETRY_MS) throw failure.error;
      const attempt = discover();
      keys = attempt;
      attempt.catch((error: unknown) => {
        keys = undefined;
        failure = { at: Date.now(), error };
      });
    }
    return (await keys)(header, token);
  };
}
