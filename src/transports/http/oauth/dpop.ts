/**
 * DPoP (RFC 9449): tokens bound to a key only this client holds. Every token request and every
 * request to the resource carries a fresh proof — a JWT signed with that key, naming the method
 * and URL (and, to the resource, a hash of the access token) — so a stolen token is useless alone.
 */
import { base64UrlOf, signJwt } from "./jwt.js";
import { randomToken } from "./pkce.js";

/** The request a proof is for: `htm` and `htu` (the URL without query or fragment, RFC 9449 §4.2). */
export interface ProofTarget {
  readonly method: string;
  readonly url: URL;
  /** The access token the request presents (resource requests only): bound in as `ath`. */
  readonly accessToken?: string;
}

/** A private ES256 key as a JWK, the way a store keeps it between runs (a secret, like the tokens). */
export interface DpopPrivateJwk {
  readonly kty: "EC";
  readonly crv: "P-256";
  readonly x: string;
  readonly y: string;
  readonly d: string;
}

/** Whether a stored value has the shape of a private P-256 JWK (the import checks the rest). */
export function isDpopPrivateJwk(value: unknown): value is DpopPrivateJwk {
  if (typeof value !== "object" || value === null) return false;
  const jwk = value as Record<string, unknown>;
  return (
    jwk.kty === "EC" &&
    jwk.crv === "P-256" &&
    typeof jwk.x === "string" &&
    typeof jwk.y === "string" &&
    typeof jwk.d === "string"
  );
}

const ES256 = { name: "ECDSA", namedCurve: "P-256" } as const;

/**
 * An ES256 key pair for this client and the nonces servers asked for, by origin. By default the
 * private half is made non-extractable; `persistable` keys can be exported for a store, and a stored
 * key is imported back with `from`.
 *
 * @example
 * const dpop = new DpopKey();
 * const proof = await dpop.proof({ method: "POST", url: tokenEndpoint });
 */
export class DpopKey {
  #pair: Promise<{ privateKey: CryptoKey; jwk: JsonWebKey }> | undefined;
  readonly #persistable: boolean;
  readonly #nonces = new Map<string, string>();

  constructor(options: { persistable?: boolean } = {}) {
    this.#persistable = options.persistable === true;
  }

  /**
   * A key imported from its stored private JWK; rejects when the JWK is not a valid P-256 key.
   *
   * @example
   * const dpop = await DpopKey.from(state.dpopKey);
   */
  static async from(stored: DpopPrivateJwk): Promise<DpopKey> {
    const { kty, crv, x, y, d } = stored;
    // Imported extractable, so that the next save writes the same key back.
    const privateKey = await globalThis.crypto.subtle.importKey("jwk", { kty, crv, x, y, d }, ES256, true, [
      "sign",
    ]);
    const key = new DpopKey({ persistable: true });
    key.#pair = Promise.resolve({ privateKey, jwk: { kty, crv, x, y } });
    return key;
  }

  /** The private key as a JWK for a store, or `undefined` for a key made non-extractable. */
  async exportPrivate(): Promise<DpopPrivateJwk | undefined> {
    if (!this.#persistable) return undefined;
    const { privateKey } = await this.#keys();
    const { x, y, d } = await globalThis.crypto.subtle.exportKey("jwk", privateKey);
    if (x === undefined || y === undefined || d === undefined) return undefined;
    return { kty: "EC", crv: "P-256", x, y, d };
  }

  /** Remembers the nonce a server (by origin) wants in its proofs. */
  rememberNonce(url: URL, nonce: string | undefined): void {
    if (nonce !== undefined && nonce !== "") this.#nonces.set(url.origin, nonce);
  }

  /** A fresh proof for one request. */
  async proof(target: ProofTarget): Promise<string> {
    const { privateKey, jwk } = await this.#keys();
    const htu = new URL(target.url);
    htu.search = "";
    htu.hash = "";
    const claims: Record<string, unknown> = {
      jti: randomToken(16),
      htm: target.method,
      htu: htu.href,
      iat: Math.floor(Date.now() / 1000),
    };
    const nonce = this.#nonces.get(target.url.origin);
    if (nonce !== undefined) claims.nonce = nonce;
    if (target.accessToken !== undefined) {
      const hash = await globalThis.crypto.subtle.digest(
        "SHA-256",
        new TextEncoder().encode(target.accessToken),
      );
      claims.ath = base64UrlOf(new Uint8Array(hash));
    }
    return signJwt({ typ: "dpop+jwt", alg: "ES256", jwk }, claims, privateKey);
  }

  #keys(): Promise<{ privateKey: CryptoKey; jwk: JsonWebKey }> {
    this.#pair ??= (async () => {
      const pair = (await globalThis.crypto.subtle.generateKey(ES256, this.#persistable, [
        "sign",
        "verify",
      ])) as CryptoKeyPair;
      const { kty, crv, x, y } = await globalThis.crypto.subtle.exportKey("jwk", pair.publicKey);
      return { privateKey: pair.privateKey, jwk: { kty, crv, x, y } };
    })();
    return this.#pair;
  }
}
