/** Compact JWS pieces the OAuth client signs with WebCrypto: client assertions and DPoP proofs. */

/** Unpadded base64url of bytes. */
export function base64UrlOf(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function base64UrlJson(value: unknown): string {
  return base64UrlOf(new TextEncoder().encode(JSON.stringify(value)));
}

/** WebCrypto's parameters for the JWS algorithms the client signs with. */
const SIGN: Record<"ES256" | "RS256", AlgorithmIdentifier | EcdsaParams> = {
  ES256: { name: "ECDSA", hash: "SHA-256" },
  RS256: { name: "RSASSA-PKCS1-v1_5" },
};

/**
 * `header.claims.signature`. WebCrypto's ECDSA signature is r ‖ s, which is exactly the JWS form
 * of ES256.
 */
export async function signJwt(
  header: Record<string, unknown> & { alg: "ES256" | "RS256" },
  claims: Record<string, unknown>,
  key: CryptoKey,
): Promise<string> {
  const input = `${base64UrlJson(header)}.${base64UrlJson(claims)}`;
  const signature = await globalThis.crypto.subtle.sign(
    SIGN[header.alg],
    key,
    new TextEncoder().encode(input),
  );
  return `${input}.${base64UrlOf(new Uint8Array(signature))}`;
}
