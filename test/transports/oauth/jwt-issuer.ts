/**
 * The signing side of JWT access tokens for the mock authorization server: an ES256 key, its public
 * JWK (served at `jwks_uri`) and RFC 9068 tokens signed synchronously with node:crypto.
 */
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";

export interface JwtIssuerKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  /** The public key as a JWK, with `kid`, `alg` and `use`. */
  readonly jwk: Record<string, unknown>;
}

export function jwtIssuerKey(kid = "as-key-1"): JwtIssuerKey {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { kid, privateKey, jwk: { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" } };
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** An `at+jwt` access token (RFC 9068) with these claims, signed by `key`. */
export function signAccessToken(key: JwtIssuerKey, claims: Record<string, unknown>): string {
  const input = `${part({ alg: "ES256", typ: "at+jwt", kid: key.kid })}.${part(claims)}`;
  const signature = sign("sha256", Buffer.from(input), { key: key.privateKey, dsaEncoding: "ieee-p1363" });
  return `${input}.${signature.toString("base64url")}`;
}
