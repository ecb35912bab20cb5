/**
 * `private_key_jwt` client authentication (RFC 7523 §2.2): a short-lived JWT signed with the
 * client's private key, instead of a shared secret. WebCrypto only (ES256 or RS256).
 */
import { signJwt } from "./jwt.js";
import { randomToken } from "./pkce.js";

/** The algorithms a client assertion can be signed with. */
export type AssertionAlgorithm = "ES256" | "RS256";

const IMPORT: Record<AssertionAlgorithm, EcKeyImportParams | RsaHashedImportParams> = {
  ES256: { name: "ECDSA", namedCurve: "P-256" },
  RS256: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
};
/** Assertions live one minute: long enough for clock skew, short enough to be useless if captured. */
const LIFETIME_SECONDS = 60;

/**
 * A PKCS #8 PEM private key as a non-extractable signing key.
 *
 * @example
 * const key = await importAssertionKey(await readFile("client-key.pem", "utf8"), "ES256");
 */
export async function importAssertionKey(pem: string, algorithm: AssertionAlgorithm): Promise<CryptoKey> {
  const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(/\s+/g, "");
  let der: Uint8Array<ArrayBuffer>;
  try {
    der = Uint8Array.from(atob(body), (char) => char.charCodeAt(0));
  } catch {
    throw new TypeError("privateKey is not a PKCS #8 PEM key");
  }
  try {
    return await globalThis.crypto.subtle.importKey("pkcs8", der, IMPORT[algorithm], false, ["sign"]);
  } catch {
    // Never the key material, nor WebCrypto's text about it.
    throw new TypeError(`privateKey is not a PKCS #8 ${algorithm} private key`);
  }
}

/**
 * A signed client assertion: `iss` and `sub` are the client id, `aud` the authorization server,
 * with a fresh `jti` and a one-minute lifetime.
 *
 * @example
 * const assertion = await signClientAssertion({ clientId, audience: server.issuer, key, algorithm: "ES256" });
 */
export async function signClientAssertion(claims: {
  clientId: string;
  audience: string;
  key: CryptoKey;
  algorithm: AssertionAlgorithm;
  keyId?: string;
}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: claims.algorithm, typ: "JWT", ...(claims.keyId ? { kid: claims.keyId } : {}) };
  const payload = {
    iss: claims.clientId,
    sub: claims.clientId,
    aud: claims.audience,
    iat: now,
    exp: now + LIFETIME_SECONDS,
    jti: randomToken(16),
  };
  return signJwt(header, payload, claims.key);
}
