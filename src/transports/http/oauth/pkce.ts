/**
 * The random parts of one authorization: the PKCE verifier and its S256 challenge (RFC 7636) and
 * the `state`. WebCrypto only, so the OAuth client also runs in browsers and workers.
 */
import { base64UrlOf } from "./jwt.js";

/** `bytes` of randomness as unpadded base64url. */
export function randomToken(bytes: number): string {
  return base64UrlOf(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * A fresh verifier (32 random bytes: 43 characters) and its S256 challenge.
 *
 * @example
 * const { verifier, challenge } = await pkcePair(); // challenge = base64url(SHA-256(verifier))
 */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomToken(32);
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: base64UrlOf(new Uint8Array(digest)) };
}

/** Compares two strings without an early exit on the first difference (the `state` check). */
export function sameString(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let difference = left.length ^ right.length;
  for (let index = 0; index < left.length; index++) difference |= left[index]! ^ (right[index] ?? 0);
  return difference === 0;
}
