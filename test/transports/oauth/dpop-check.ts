/** What a server checks in a DPoP proof (RFC 9449 §4.3), for the mock servers of the OAuth tests. */
import { createHash, createPublicKey, verify } from "node:crypto";

export interface ProofExpectations {
  readonly htm: string;
  readonly htu: string;
  readonly accessToken?: string;
  /** The nonce the proof must carry, if the server asked for one. */
  readonly nonce?: string;
}

export type ProofVerdict =
  | { readonly ok: true; readonly jkt: string }
  | { readonly ok: false; readonly reason: "missing" | "invalid" | "nonce" };

function decode(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;
}

/** The RFC 7638 thumbprint of an EC public key. */
export function thumbprint(jwk: Record<string, unknown>): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash("sha256").update(canonical).digest("base64url");
}

/** Checks a proof: signed by the key in its header, for this method and URL, fresh, bound as asked. */
export function checkProof(proof: string | undefined, expected: ProofExpectations): ProofVerdict {
  if (proof === undefined) return { ok: false, reason: "missing" };
  const [header, payload, signature] = proof.split(".");
  if (header === undefined || payload === undefined || signature === undefined)
    return { ok: false, reason: "invalid" };
  const head = decode(header);
  const claims = decode(payload);
  const jwk = head.jwk as Record<string, unknown> | undefined;
  if (head.typ !== "dpop+jwt" || head.alg !== "ES256" || jwk === undefined)
    return { ok: false, reason: "invalid" };
  const key = createPublicKey({ key: jwk as never, format: "jwk" });
  const signed = verify(
    "sha256",
    Buffer.from(`${header}.${payload}`),
    { key, dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  );
  const age = Math.abs(Date.now() / 1000 - Number(claims.iat));
  const ath =
    expected.accessToken === undefined
      ? undefined
      : createHash("sha256").update(expected.accessToken).digest("base64url");
  if (
    !signed ||
    claims.htm !== expected.htm ||
    claims.htu !== expected.htu ||
    typeof claims.jti !== "string" ||
    !(age < 60) ||
    claims.ath !== ath
  ) {
    return { ok: false, reason: "invalid" };
  }
  if (expected.nonce !== undefined && claims.nonce !== expected.nonce) return { ok: false, reason: "nonce" };
  return { ok: true, jkt: thumbprint(jwk) };
}
