import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import { decodeBase64UrlStrict } from "./encoding.js";
import { InvalidRequestState } from "./errors.js";

/**
 * Turns the boundary's claims envelope into an opaque wire token and back. Both methods are synchronous:
 * cache key material at construction (one KMS call at start), never per token.
 *
 * Contract: `unseal(seal(p))` equals `p`; `unseal` throws {@link InvalidRequestState} for every token it
 * did not mint unmodified (aliases included); tokens carry a version prefix bound under the tag and never
 * name their algorithm; secrets are compared in constant time. The codec owns integrity (and ideally
 * confidentiality) only: TTL, request, audience and principal binding are stamped and re-checked by
 * `RequestStateBoundary` for every codec.
 *
 * @example
 * const security = new RequestStateSecurity({ codec: new EnvelopeCodec(unwrapDataKey()) });
 */
export interface RequestStateCodec {
  seal(payload: Uint8Array): string;
  unseal(token: string): Uint8Array;
}

/**
 * A ring entry: secret bytes, or a string taken as its UTF-8 bytes (`"k".repeat(32)` and
 * `Buffer.from("k".repeat(32))` are the same key). A string with lone surrogates has no UTF-8 form
 * and is refused.
 *
 * @example
 * const keys: RequestStateKey[] = [process.env.STATE_KEY!, randomBytes(32)];
 */
export type RequestStateKey = Uint8Array | string;

/**
 * The minimum length of every ring key, in bytes.
 *
 * @example
 * const key = randomBytes(MIN_KEY_BYTES).toString("base64url"); // 43 characters, 32 bytes of entropy
 */
export const MIN_KEY_BYTES = 32;

const PREFIX = "v1.";
const HKDF_INFO = "roundtrip/request-state/v1/aes-256-gcm";
const KID_LABEL = "roundtrip/request-state/v1/kid:";
const KID_BYTES = 4;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const NONCE_POOL_BYTES = 4096;
const KEYGEN_HINT = `node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"`;

let noncePool = Buffer.alloc(0);
let nonceOffset = 0;

/**
 * A fresh random 96-bit nonce. One `randomBytes` call per seal was the single biggest cost of
 * sealing, so nonces are sliced from a random pool; every slice is used once and a spent pool is
 * replaced, never refilled in place, so uniqueness and unpredictability are those of `randomBytes`.
 */
function nextNonce(): Buffer {
  if (nonceOffset + NONCE_BYTES > noncePool.length) {
    noncePool = randomBytes(NONCE_POOL_BYTES);
    nonceOffset = 0;
  }
  const nonce = noncePool.subarray(nonceOffset, nonceOffset + NONCE_BYTES);
  nonceOffset += NONCE_BYTES;
  return nonce;
}

interface RingKey {
  readonly kid: Buffer;
  readonly key: KeyObject;
  /** "v1." ‖ kid: binds the format version and the ring slot under the tag. */
  readonly aad: Buffer;
}

/**
 * The built-in codec: AES-256-GCM under an HKDF-SHA256-derived key per ring entry. Token:
 * `v1.` + unpadded base64url(kid(4) ‖ nonce(12) ‖ ciphertext ‖ tag(16)). `keys[0]` mints; every key
 * verifies, which is what makes a zero-downtime rotation possible: `[OLD, NEW]` → `[NEW, OLD]` →
 * `[NEW]` one TTL after phase 2 is fully deployed.
 *
 * @example
 * const codec = new AesGcmRequestStateCodec([process.env.STATE_KEY!, process.env.OLD_STATE_KEY!]);
 * const token = codec.seal(new TextEncoder().encode("step-2"));
 * codec.unseal(token); // the same bytes; anything else throws InvalidRequestState
 */
export class AesGcmRequestStateCodec implements RequestStateCodec {
  readonly #minter: RingKey;
  /** Keyed by hex kid: a non-secret fingerprint, so a plain map lookup leaks nothing. */
  readonly #ring = new Map<string, RingKey>();

  constructor(keys: readonly RequestStateKey[]) {
    if (!Array.isArray(keys)) throw new TypeError("keys must be an array of Uint8Array or string secrets");
    if (keys.length === 0) {
      throw new Error("keys must hold at least one key: keys[0] mints new request state");
    }
    // An indexed loop, not forEach: a hole in the list must reach the type check, not be skipped.
    for (let index = 0; index < keys.length; index++) {
      const entry = deriveRingKey(keys[index], index);
      const id = entry.kid.toString("hex");
      if (this.#ring.has(id)) throw new Error(`keys[${index}] duplicates an earlier ring key`);
      this.#ring.set(id, entry);
    }
    // Non-null: the ring holds keys[0]'s entry, checked non-empty above.
    this.#minter = this.#ring.values().next().value!;
  }

  seal(payload: Uint8Array): string {
    const { kid, key, aad } = this.#minter;
    const nonce = nextNonce();
    const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    // One concatenation: the elements are evaluated in order, so the tag is read after `final`.
    const sealed = Buffer.concat([kid, nonce, cipher.update(payload), cipher.final(), cipher.getAuthTag()]);
    return PREFIX + sealed.toString("base64url");
  }

  unseal(token: string): Uint8Array {
    if (typeof token !== "string" || !token.startsWith(PREFIX)) throw new InvalidRequestState("malformed");
    const raw = decodeBase64UrlStrict(token.slice(PREFIX.length));
    if (raw === undefined || raw.length < KID_BYTES + NONCE_BYTES + TAG_BYTES) {
      throw new InvalidRequestState("malformed");
    }
    const entry = this.#ring.get(raw.subarray(0, KID_BYTES).toString("hex"));
    if (entry === undefined) throw new InvalidRequestState("unknown key");
    const nonce = raw.subarray(KID_BYTES, KID_BYTES + NONCE_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", entry.key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(entry.aad);
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const plaintext = decipher.update(raw.subarray(KID_BYTES + NONCE_BYTES, raw.length - TAG_BYTES));
    try {
      // OpenSSL checks the tag in constant time; nothing is returned before it passes. GCM is a
      // stream mode: `final` adds no bytes to what `update` gave.
      decipher.final();
    } catch {
      throw new InvalidRequestState("seal");
    }
    return plaintext;
  }
}

function deriveRingKey(key: unknown, index: number): RingKey {
  let secret: Buffer;
  if (typeof key === "string") {
    // UTF-8 writes every lone surrogate as U+FFFD: distinct strings would share one key, and a key of
    // lone surrogates would be a public constant. Python refuses such a string too.
    if (!key.isWellFormed()) {
      throw new Error(
        `keys[${index}] is a string with lone UTF-16 surrogates; pass its bytes as a Uint8Array`,
      );
    }
    secret = Buffer.from(key, "utf8");
  } else if (key instanceof Uint8Array) secret = Buffer.from(key);
  // Never coerce: a number or an object would silently become a weak or all-zero key.
  else throw new TypeError(`keys[${index}] must be a Uint8Array or a string, got ${describeType(key)}`);
  try {
    if (secret.length < MIN_KEY_BYTES) {
      throw new Error(
        `keys[${index}] is ${secret.length} bytes; request-state keys need at least ${MIN_KEY_BYTES}. ` +
          `Generate one with: ${KEYGEN_HINT}`,
      );
    }
    const derived = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), HKDF_INFO, 32));
    const kid = createHash("sha256").update(KID_LABEL).update(derived).digest().subarray(0, KID_BYTES);
    const entry = { kid, key: createSecretKey(derived), aad: Buffer.concat([Buffer.from(PREFIX), kid]) };
    derived.fill(0);
    return entry;
  } finally {
    // Our copy of the caller's secret is only needed for derivation.
    secret.fill(0);
  }
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") {
    return (value as { constructor?: { name?: string } }).constructor?.name ?? "object";
  }
  return typeof value;
}
