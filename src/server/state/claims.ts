/**
 * The plaintext inside every sealed token: what the boundary stamps before `seal` and re-checks after
 * `unseal`, whatever the codec. Internal to the state module: tokens are private to the server, so
 * none of this is a wire format (and it is not byte-compatible with other SDKs' tokens).
 */
import * as crypto from "node:crypto";
import { decodeBase64UrlStrict, encodeWtf8 } from "./encoding.js";
import { InvalidRequestState } from "./errors.js";

/** What a token is bound to on its request: the target (tool/prompt name or resource URI) and an args digest. */
export interface RequestBinding {
  readonly target: string;
  readonly digest: string;
}

/**
 * Per carrier method, the allowlisted params that identify a request. An allowlist, so a future wire
 * field cannot silently join (or leave) the digest; a carrier without an entry denies (see below).
 */
const BINDING_FIELDS: Readonly<
  Record<string, (params: Readonly<Record<string, unknown>>) => [unknown, unknown]>
> = {
  "tools/call": (params) => [params.name, params.arguments ?? {}],
  "prompts/get": (params) => [params.name, params.arguments ?? {}],
  "resources/read": (params) => [params.uri, {}],
};

/** The binding of a carrier request; throws InvalidRequestState("request binding") when it has none. */
export function requestBinding(method: string, params: Readonly<Record<string, unknown>>): RequestBinding {
  const fields = Object.hasOwn(BINDING_FIELDS, method) ? BINDING_FIELDS[method] : undefined;
  try {
    const [target, args] = fields?.(params) ?? [];
    if (typeof target !== "string") throw new TypeError("no string target");
    return { target, digest: argsDigest(args) };
  } catch {
    // Unbindable params (no target, args that cannot be serialized): deny rather than mint unbound.
    throw new InvalidRequestState("request binding");
  }
}

/**
 * Canonical JSON: object keys sorted (UTF-16 order) at every depth, compact, and every non-ASCII code unit
 * escaped as \uXXXX, so equal JSON values give equal text and any JS string (lone surrogates included)
 * serializes without throwing. Numbers JSON cannot hold are written by name (`Infinity`, `-Infinity`,
 * `NaN`), as Python's `json.dumps` does: `JSON.parse` reads `1e400` as `Infinity`, which must not share
 * a digest with `null`. Other values JSON cannot hold behave as in `JSON.stringify` (a `toJSON` applies).
 *
 * @example
 * canonicalJson({ b: "é", a: [1, { d: null, c: true }] }); // '{"a":[1,{"c":true,"d":null}],"b":"\\u00e9"}'
 */
export function canonicalJson(value: unknown): string {
  const text = serialize(value);
  if (!/[^\0-\x7f]/.test(text)) return text;
  // Written as bytes in one pass: a regex callback per unit took a second on a 4 MB body.
  const out = Buffer.allocUnsafe(text.length * 6);
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      out[at++] = unit;
      continue;
    }
    out[at++] = 0x5c; // \u, then four lowercase hex digits
    out[at++] = 0x75;
    for (let shift = 12; shift >= 0; shift -= 4) {
      const digit = (unit >> shift) & 15;
      out[at++] = digit + (digit < 10 ? 0x30 : 0x57);
    }
  }
  return out.toString("latin1", 0, at);
}

// Plain loops and string appends: this runs twice per input round (seal, then verify).
function serialize(input: unknown): string {
  // As JSON.stringify: an in-process Date has no own keys, so without its toJSON every Date reads as {}.
  const convertible = input as { toJSON?: () => unknown } | null;
  const value =
    typeof input === "object" && typeof convertible?.toJSON === "function" ? convertible.toJSON() : input;
  if (typeof value !== "object" || value === null) {
    if (typeof value === "number" && !Number.isFinite(value)) return String(value);
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`cannot serialize a ${typeof value}`);
    return json;
  }
  if (Array.isArray(value)) {
    let out = "[";
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (index > 0) out += ",";
      out += omitted(item) ? "null" : serialize(item);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let out = "{";
  for (const key of keys) {
    const item = record[key];
    if (omitted(item)) continue;
    if (out.length > 1) out += ",";
    out += `${JSON.stringify(key)}:${serialize(item)}`;
  }
  return `${out}}`;
}

function omitted(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/**
 * base64url (no padding) of the first 16 bytes of SHA-256 over the canonical JSON of the arguments.
 *
 * @example
 * argsDigest({ name: "orders" }) === argsDigest({ name: "orders" }); // true, key order never matters
 */
export function argsDigest(args: unknown): string {
  return sha256(canonicalJson(args)).subarray(0, 16).toString("base64url");
}

/**
 * One-shot `crypto.hash` where Node has it (20.12+; read from the namespace, so older 20.x still
 * load this module): half the cost of a `Hash` object.
 */
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;
const sha256: (text: string) => Buffer =
  typeof oneShot === "function"
    ? (text) => oneShot("sha256", text, "buffer")
    : (text) => crypto.createHash("sha256").update(text, "utf8").digest();

/** The claims envelope, in the order it is written. Times are float seconds since the epoch. */
export interface RequestStateClaims {
  readonly v: 1;
  readonly iat: number;
  readonly exp: number;
  /** method */
  readonly m: string;
  /** target: tool or prompt name, or resource URI */
  readonly t: string;
  /** arguments digest */
  readonly a: string;
  /** the handler's plaintext state */
  readonly s: string;
  readonly aud?: string;
  /** salted principal hash */
  readonly p?: string;
}

/** Claims as read back: the envelope's required shape is checked, everything else is still to compare. */
export interface ReceivedClaims {
  readonly iat: number;
  readonly exp: number;
  readonly s: string;
  readonly m: unknown;
  readonly t: unknown;
  readonly a: unknown;
  readonly aud: unknown;
  readonly p: unknown;
}

/** Builds the envelope for one round: fresh iat/exp, this request's binding, aud and p only when set. */
export function mintClaims(round: {
  now: number;
  ttl: number;
  method: string;
  binding: RequestBinding;
  state: string;
  audience: string | null;
  principal: string | undefined;
}): RequestStateClaims {
  const { now, ttl, method, binding, state, audience, principal } = round;
  const claims: { -readonly [K in keyof RequestStateClaims]: RequestStateClaims[K] } = {
    v: 1,
    iat: now,
    exp: now + ttl,
    m: method,
    t: binding.target,
    a: binding.digest,
    s: state,
  };
  // Sets, not conditional spreads (ten times the cost on Node 20); the key order stays the same.
  if (audience !== null) claims.aud = audience;
  if (principal !== undefined) claims.p = principalClaim(principal);
  return claims;
}

/** UTF-8 JSON; `JSON.stringify` escapes lone surrogates, so the plaintext survives exactly. */
export function encodeClaims(claims: RequestStateClaims): Uint8Array {
  return Buffer.from(JSON.stringify(claims), "utf8");
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Parses unsealed bytes; throws InvalidRequestState("malformed") unless `v`=1, numeric iat/exp and string `s`. */
export function parseClaims(payload: Uint8Array): ReceivedClaims {
  let parsed: unknown;
  try {
    parsed = JSON.parse(UTF8.decode(payload));
  } catch {
    throw new InvalidRequestState("malformed");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new InvalidRequestState("malformed");
  }
  // Own properties only: nothing inherited can stand in for a claim.
  const claim = (key: string): unknown =>
    Object.hasOwn(parsed, key) ? (parsed as Record<string, unknown>)[key] : undefined;
  const [v, iat, exp, s] = [claim("v"), claim("iat"), claim("exp"), claim("s")];
  if (v !== 1 || typeof iat !== "number" || typeof exp !== "number" || typeof s !== "string") {
    throw new InvalidRequestState("malformed");
  }
  return { iat, exp, s, m: claim("m"), t: claim("t"), a: claim("a"), aud: claim("aud"), p: claim("p") };
}

const PRINCIPAL_LABEL = Buffer.from("roundtrip/request-state/principal:", "utf8");
const SALT_BYTES = 8;
const PRINCIPAL_HASH_BYTES = 16;

function principalHash(salt: Uint8Array, principal: string): Buffer {
  return crypto
    .createHash("sha256")
    .update(PRINCIPAL_LABEL)
    .update(salt)
    .update(encodeWtf8(principal))
    .digest()
    .subarray(0, PRINCIPAL_HASH_BYTES);
}

/**
 * The `p` claim: base64url(salt ‖ SHA-256(label ‖ salt ‖ principal)[0..16]) under a fresh 8-byte salt,
 * so the principal never appears and two tokens of one user cannot be linked.
 */
export function principalClaim(principal: string): string {
  const salt = crypto.randomBytes(SALT_BYTES);
  return Buffer.concat([salt, principalHash(salt, principal)]).toString("base64url");
}

/** Checks a received `p` against the derived principal in constant time; throws InvalidRequestState on mismatch. */
export function verifyPrincipalClaim(claim: unknown, principal: string): void {
  const raw = typeof claim === "string" ? decodeBase64UrlStrict(claim) : undefined;
  if (raw === undefined || raw.length !== SALT_BYTES + PRINCIPAL_HASH_BYTES) {
    throw new InvalidRequestState("malformed");
  }
  const expected = principalHash(raw.subarray(0, SALT_BYTES), principal);
  if (!crypto.timingSafeEqual(raw.subarray(SALT_BYTES), expected)) throw new InvalidRequestState("principal");
}
