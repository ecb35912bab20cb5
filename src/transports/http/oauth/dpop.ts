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

/**
 * An ES256 key pair made for this client (the private half is not extractable) and the nonces
 * servers asked for, by origin.
 *
 * @example
 * const dpop = new DpopKey();
 * const proof = await dpop.proof({ method: "POST", url: tokenEndpoint });
 */
export class DpopKey {
  #pair: Promise<{ privateKey: CryptoKey; jwk: JsonWebKey }> | undefined;
  readonly #nonces = new Map<string, string>();

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
      const pair = (await globalThis.crypto.subtle.generateKey(
        { name: "ECDSA", namedCurve: "P-256" },
        false,
        ["sign", "verify"],
      )) as CryptoKeyPair;
      const { kty, crv, x, y } = await globalThis.crypto.subtle.exportKey("jwk", pair.publicKey);
      return { privateKey: pair.privateKey, jwk: { kty, crv, x, y } };
    })();
    return this.#pair;
  }
}
