/**
 * Bring your own cryptography: a KMS-backed envelope codec. One KMS call unwraps a data key at process
 * start; every token after that is local AES-256-GCM. TTL, request, audience and principal binding stay
 * the SDK's job: the boundary stamps them inside the payload before `seal` and re-checks them after
 * `unseal`, whatever the codec.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import {
  InvalidRequestState,
  MCPServer,
  type RequestStateCodec,
  RequestStateSecurity,
} from "roundtrip-mcp/server";

/** Format version; fed to GCM as associated data, so it is bound under the tag. */
const PREFIX = "kms1.";
const AAD = Buffer.from(PREFIX, "ascii");
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const CANONICAL_HEX = /^(?:[0-9a-f]{2})*$/;

/**
 * Stand-in for the one KMS call at process start (e.g. `kms.decrypt({ CiphertextBlob })`): returns the
 * unwrapped 32-byte data key.
 *
 * @example
 * const codec = new EnvelopeCodec(unwrapDataKey());
 */
export function unwrapDataKey(): Buffer {
  return randomBytes(32);
}

/**
 * A {@link RequestStateCodec} whose tokens are `kms1.` + lowercase hex(nonce ‖ ciphertext ‖ tag).
 *
 * @example
 * const codec = new EnvelopeCodec(unwrapDataKey());
 * codec.unseal(codec.seal(new TextEncoder().encode("step-2"))); // the same bytes
 */
export class EnvelopeCodec implements RequestStateCodec {
  readonly #key: Buffer;

  constructor(dataKey: Uint8Array) {
    if (dataKey.length !== 32) throw new Error("EnvelopeCodec needs a 32-byte AES-256 data key");
    this.#key = Buffer.from(dataKey); // our own copy: the caller may wipe theirs
  }

  seal(payload: Uint8Array): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(AAD);
    const body = Buffer.concat([nonce, cipher.update(payload), cipher.final(), cipher.getAuthTag()]);
    return PREFIX + body.toString("hex");
  }

  unseal(token: string): Uint8Array {
    if (!token.startsWith(PREFIX)) throw new InvalidRequestState("unknown token format");
    const body = token.slice(PREFIX.length);
    // Only the exact string seal() produced verifies: Buffer's hex decoder would stop at junk or ignore
    // an odd trailing digit, and would accept upper case.
    if (!CANONICAL_HEX.test(body) || body.length < 2 * (NONCE_BYTES + TAG_BYTES)) {
      throw new InvalidRequestState("token failed verification");
    }
    const raw = Buffer.from(body, "hex");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, NONCE_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(AAD);
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new InvalidRequestState("token failed verification");
    }
  }
}

/**
 * The policy a "Deployer" server would pass as `requestStateSecurity`.
 *
 * @example
 * const mcp = new MCPServer("Deployer", { requestStateSecurity: createDeployerSecurity() });
 */
export function createDeployerSecurity(): RequestStateSecurity {
  return new RequestStateSecurity({ codec: new EnvelopeCodec(unwrapDataKey()) });
}

/** The seed's Deployer: an MCPServer whose state is sealed by the KMS-backed codec. */
export const mcp = new MCPServer("Deployer", { requestStateSecurity: createDeployerSecurity() });
