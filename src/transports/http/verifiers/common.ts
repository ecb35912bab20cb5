/**
 * What the token verifiers share: reading the bearer token off a request, the refusal they throw,
 * option checks, and turning verified claims into `AuthInfo`.
 */
import type { AuthInfo } from "../../../shared/dispatch.js";
import { isLoopbackHostname } from "../loopback.js";

/**
 * Why a presented token was refused. Its message names the check that failed, never the token,
 * and the HTTP endpoint turns it into `401` with `error="invalid_token"`.
 *
 * @example
 * await verifier.verify(token).catch((error) => error instanceof TokenRejected && console.warn(error.message));
 */
export class TokenRejected extends Error {
  override readonly name = "TokenRejected";
}

/**
 * What both verifiers are: an issuer and audience checked at construction, the endpoint's
 * `verifyToken` over `verify`, and verified claims turned into `AuthInfo`.
 */
export abstract class TokenVerifier {
  protected readonly issuer: string;
  protected readonly audience: readonly string[];

  protected constructor(options: { readonly issuer: string; readonly audience: string | readonly string[] }) {
    this.issuer = issuerOf(options?.issuer);
    this.audience = audienceOf(options.audience);
  }

  /**
   * The HTTP endpoint's `verifyToken`: `undefined` without an `Authorization` header or for a
   * scheme other than `Bearer`; the token's identity when it verifies; a {@link TokenRejected}
   * otherwise (the endpoint answers `401 invalid_token` and logs the reason).
   */
  readonly verifyToken = async (request: Request): Promise<AuthInfo | undefined> => {
    const token = bearerTokenOf(request);
    return token === undefined ? undefined : this.verify(token);
  };

  /** Verifies one access token and says who holds it; rejects with {@link TokenRejected}. */
  abstract verify(token: string): Promise<AuthInfo>;

  /** Verified claims as `AuthInfo`; a sender-constrained token (`cnf`) is refused here. */
  protected accept(token: string, claims: Readonly<Record<string, unknown>>): AuthInfo {
    refuseSenderConstrained(claims);
    return authInfoOf(token, claims, this.audience);
  }
}

/**
 * The bearer token of a request: `undefined` without an `Authorization` header or for a scheme
 * other than `Bearer` (any case). The `DPoP` scheme is refused: no verifier here checks proofs.
 * A `Bearer` header that is not exactly one token is refused too, not read as no credentials:
 * where auth is optional that would serve the request anonymously.
 */
function bearerTokenOf(request: Request): string | undefined {
  const authorization = request.headers.get("authorization");
  if (authorization === null) return undefined;
  const [scheme = "", ...credentials] = authorization.trim().split(/ +/);
  // The scheme ends at any whitespace: `Bearer<TAB>token` is a malformed Bearer credential (RFC 9110
  // §11.4 separates scheme and token with spaces), not another scheme to serve anonymously.
  const name = scheme.split(/\s/, 1)[0]?.toLowerCase();
  if (name === "dpop") throw new TokenRejected("DPoP-bound tokens are not accepted by this verifier");
  if (name !== "bearer") return undefined;
  if (credentials.length !== 1 || scheme.length !== name.length) {
    throw new TokenRejected("the Authorization header is not one Bearer token");
  }
  return credentials[0];
}

/** A sender-constrained token (`cnf`: DPoP or mTLS) needs a proof these verifiers do not check. */
function refuseSenderConstrained(claims: Readonly<Record<string, unknown>>): void {
  if (claims.cnf !== undefined) {
    throw new TokenRejected(
      "the token is sender-constrained (cnf) and needs a proof this verifier does not check",
    );
  }
}

/** What verified claims (a JWT payload, an introspection answer) say, in `AuthInfo` terms. */
function authInfoOf(
  token: string,
  claims: Readonly<Record<string, unknown>>,
  audience: readonly string[],
): AuthInfo {
  const aud = claims.aud;
  const granted = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  return {
    token,
    // RFC 9068 and RFC 7662 name it client_id; many providers only carry the OIDC `azp`.
    clientId: text(claims.client_id) ?? text(claims.azp) ?? "",
    scopes: scopesOf(claims),
    issuer: text(claims.iss),
    subject: text(claims.sub),
    expiresAt: typeof claims.exp === "number" ? claims.exp : undefined,
    resource: audience.find((entry) => granted.includes(entry)),
    extra: Object.freeze({ ...claims }),
  };
}

/** `scope` (space-separated) or `scp` (an array, or a string, as some providers send). */
function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === "string") return raw.split(" ").filter((scope) => scope !== "");
  if (Array.isArray(raw))
    return raw.filter((scope): scope is string => typeof scope === "string" && scope !== "");
  return [];
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The `issuer` option, checked. */
function issuerOf(issuer: unknown): string {
  if (typeof issuer !== "string" || issuer === "") {
    throw new TypeError("issuer must be the authorization server's issuer identifier");
  }
  return issuer;
}

/** The `audience` option as a non-empty list of non-empty identifiers. */
function audienceOf(audience: string | readonly string[] | undefined): string[] {
  const list = typeof audience === "string" ? [audience] : [...(audience ?? [])];
  if (list.length === 0 || list.some((entry) => typeof entry !== "string" || entry === "")) {
    throw new TypeError("audience must name this resource (its protectedResource.resource URL)");
  }
  return list;
}

export function nonNegative(name: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  }
  return value;
}

/** A URL option that must be `https:` (or `http:` on a loopback host). */
export function secureUrl(value: string, name: string): URL {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== "https:" && !(url?.protocol === "http:" && isLoopbackHostname(url.hostname))) {
    throw new TypeError(`${name} must be an https: URL (http: only on a loopback host)`);
  }
  return url;
}
