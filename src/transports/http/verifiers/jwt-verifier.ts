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
import { nonNegative, secureUrl, TokenRejected, TokenVerifier } from "./common.js";
import { boundedJwksFetch, DEFAULT_MAX_JWKS_BYTES } from "./jwks-fetch.js";
import { discoveredOnce, discoverIssuerEndpoint } from "./metadata.js";

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
  /**
   * Clock skew tolerated on `exp` and `nbf` by `verify`, in seconds. Default 30. The HTTP endpoint
   * refuses a token from its `exp` on whatever the verifier says, so there it applies to `nbf` only.
   */
  readonly clockToleranceSec?: number;
  /** Timeout of one key set or metadata fetch, in milliseconds. Default 5,000. */
  readonly jwksTimeoutMs?: number;
  /** The largest key set or metadata document read, in bytes. Default 256 KiB. */
  readonly maxJwksBytes?: number;
  /** The `fetch` for keys and metadata (a proxy-aware one, a test double). Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
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
export class JwtVerifier extends TokenVerifier {
  readonly #keys: JWTVerifyGetKey;
  readonly #algorithms: string[];
  /** jose takes a mutable list: one copy, made once. */
  readonly #audience: string[];
  readonly #typ: string | undefined;
  readonly #clockTolerance: number;

  constructor(options: JwtVerifierOptions) {
    super(options);
    this.#audience = [...this.audience];
    this.#algorithms = algorithmsOf(options.algorithms);
    this.#typ = options.typ;
    this.#clockTolerance = nonNegative(
      "clockToleranceSec",
      options.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC,
    );
    this.#keys = keySetOf(options);
  }

  /** Verifies one access token and says who holds it; rejects with {@link TokenRejected}. */
  async verify(token: string): Promise<AuthInfo> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys, {
        issuer: this.issuer,
        audience: this.#audience,
        algorithms: this.#algorithms,
        clockTolerance: this.#clockTolerance,
        requiredClaims: ["exp"],
        ...(this.#typ !== undefined && { typ: this.#typ }),
      }));
    } catch (error) {
      // jose's messages name the failed check ('"exp" claim timestamp check failed'), not the token.
      throw new TokenRejected(`the token was refused: ${error instanceof Error ? error.message : "invalid"}`);
    }
    return this.accept(token, payload);
  }
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

function keySetOf(options: JwtVerifierOptions): JWTVerifyGetKey {
  if (options.jwks !== undefined && options.jwksUri !== undefined) {
    throw new TypeError("give at most one of jwksUri (fetched) and jwks (configured keys)");
  }
  if (options.jwks !== undefined) return createLocalJWKSet(options.jwks);
  const how = {
    fetch: options.fetch ?? globalThis.fetch,
    maxBytes: nonNegative("maxJwksBytes", options.maxJwksBytes ?? DEFAULT_MAX_JWKS_BYTES),
    timeoutMs: nonNegative("jwksTimeoutMs", options.jwksTimeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS),
  };
  const remote = (url: URL): JWTVerifyGetKey =>
    createRemoteJWKSet(url, {
      timeoutDuration: how.timeoutMs,
      [customFetch]: boundedJwksFetch(how.fetch, how.maxBytes),
    });
  if (options.jwksUri !== undefined) return remote(secureUrl(String(options.jwksUri), "jwksUri"));
  secureUrl(options.issuer, "issuer (its metadata names the keys when jwksUri is not given)");
  const keys = discoveredOnce(() => discoverIssuerEndpoint(options.issuer, "jwks_uri", how).then(remote));
  return async (header, token) => (await keys())(header, token);
}
