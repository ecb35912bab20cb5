/**
 * Seeded fuzzing of `JwtVerifier.verify` with hostile bearer tokens: random strings, genuine
 * tokens with flipped or swapped parts, forged headers (`none`, HS256 keyed with the public key,
 * unknown or odd `kid`s, embedded keys), and tokens the issuer really signed but whose claims hold
 * every type but the right one. Each must be refused with `TokenRejected` (whose message never
 * carries the token) or accepted with exactly the claims the rules allow: never another error.
 */
import { createHmac } from "node:crypto";
import { base64url, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { TokenRejected } from "../../../src/transports/http/verifiers/common.js";
import { JwtVerifier } from "../../../src/transports/http/verifiers/jwt.js";
import { prng } from "../../prng.js";

const ISSUER = "https://auth.example.com";
const RESOURCE = "https://mcp.example.com/mcp";
const RUNS = 1_500;
const now = () => Math.floor(Date.now() / 1000);

type Rng = ReturnType<typeof prng>;

function junk(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 1 ? 5 : 7)) {
    case 0:
      return null;
    case 1:
      return rng.pick([0, -1, 1.5, 2 ** 53, now() + 600, now() - 600, true]);
    case 2:
      return rng.pick(["", "é", ISSUER, `${ISSUER}/`, RESOURCE, "https://other.example", "notes:read"]);
    case 3:
      return String(now() + 600);
    case 4:
      return rng.pick(["at+jwt", "JWT", "none", "DPoP"]);
    case 5:
      return Array.from({ length: rng.int(3) }, () => junk(rng, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: rng.int(3) }, () => [rng.pick(["jkt", "x5t#S256", "a"]), junk(rng, depth + 1)]),
      );
  }
}

function flip(rng: Rng, token: string): string {
  const at = rng.int(token.length);
  return token.slice(0, at) + (token[at] === "A" ? "B" : "A") + token.slice(at + 1);
}

const encode = (value: unknown) => base64url.encode(JSON.stringify(value));

describe("JwtVerifier fuzz: hostile bearer tokens", () => {
  it(`refuses or rightly accepts ${RUNS} hostile tokens, never failing otherwise`, async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    const verifier = new JwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwks: { keys: [jwk] } });
    const rng = prng(0x1a7);
    const base: JWTPayload = {
      iss: ISSUER,
      aud: RESOURCE,
      sub: "alice",
      client_id: "notes-app",
      scope: "notes:read",
      iat: now(),
      exp: now() + 600,
    };
    const sign = (payload: JWTPayload, header: Record<string, unknown> = {}) =>
      new SignJWT(payload).setProtectedHeader({ alg: "ES256", kid: "k1", ...header }).sign(privateKey);
    const genuine = await sign(base);
    const outcomes = { accepted: 0, refused: new Map<string, number>() };

    for (let run = 0; run < RUNS; run++) {
      let token: string;
      let signedClaims: Record<string, unknown> | undefined;
      switch (rng.int(8)) {
        case 0:
          token = rng.pick(["", ".", "..", "a.b.c", "Bearer x", "é.é.é", `${genuine}.`, genuine.repeat(2)]);
          break;
        case 1:
          token = flip(rng, genuine);
          break;
        case 2: {
          const [header, payload, signature] = genuine.split(".") as [string, string, string];
          token = rng.pick([
            `${payload}.${header}.${signature}`,
            `${header}.${payload}.`,
            `${header}.${payload}`,
          ]);
          break;
        }
        case 3:
          token = `${encode({ alg: "none", kid: "k1" })}.${encode(base)}.`;
          break;
        case 4: {
          // The classic confusion: HS256 "signed" with the public key's bytes.
          const input = `${encode({ alg: "HS256", kid: "k1" })}.${encode(base)}`;
          const mac = createHmac("sha256", JSON.stringify(jwk)).update(input).digest("base64url");
          token = `${input}.${mac}`;
          break;
        }
        case 5:
          token = await sign(base, {
            kid: junk(rng),
            ...(rng.chance(0.5) ? { jwk, crit: rng.pick([["exp"], [], "x"]) } : {}),
            typ: junk(rng),
          }).catch(() => genuine.slice(1));
          break;
        default: {
          const claims: Record<string, unknown> = { ...base };
          for (let i = rng.int(3); i >= 0; i--) {
            const name = rng.pick([
              "iss",
              "aud",
              "exp",
              "nbf",
              "iat",
              "sub",
              "client_id",
              "azp",
              "scope",
              "cnf",
            ]);
            if (rng.chance(0.3)) delete claims[name];
            else claims[name] = junk(rng);
          }
          signedClaims = claims;
          token = await sign(claims as JWTPayload).catch(() => genuine.slice(1));
        }
      }
      const outcome = await verifier.verify(token).then(
        (info) => ({ info }),
        (error: unknown) => ({ error }),
      );
      if ("error" in outcome) {
        expect(outcome.error, `run ${run}: ${String(outcome.error)}`).toBeInstanceOf(TokenRejected);
        const message = (outcome.error as Error).message;
        if (token.length > 8) expect(message).not.toContain(token);
        outcomes.refused.set(message, (outcomes.refused.get(message) ?? 0) + 1);
        continue;
      }
      // Accepted: only a token the issuer signed, for this resource, unexpired, without cnf.
      outcomes.accepted++;
      const claims = signedClaims ?? base;
      const { info } = outcome;
      expect(claims.iss).toBe(ISSUER);
      expect([claims.aud].flat()).toContain(RESOURCE);
      expect(typeof claims.exp === "number" && claims.exp > now()).toBe(true);
      expect(claims.cnf).toBeUndefined();
      expect(info.token).toBe(token);
      expect(info.issuer).toBe(ISSUER);
      expect(info.expiresAt).toBe(claims.exp);
      expect(typeof info.clientId).toBe("string");
      expect(info.scopes.every((scope) => typeof scope === "string" && scope !== "")).toBe(true);
    }
    expect(outcomes.accepted).toBeGreaterThan(RUNS / 50);
    expect(outcomes.refused.size).toBeGreaterThan(5);
    if (process.env.FUZZ_DEBUG) console.log(outcomes);
  }, 60_000);
});
