import { randomBytes } from "node:crypto";
import { AesGcmRequestStateCodec, type RequestStateCodec, type RequestStateKey } from "./codec.js";
import { authenticatedPrincipal, type PrincipalBinder } from "./principal.js";

/**
 * Where sealing comes from: shared secrets for the built-in AES-GCM codec, or your own codec.
 *
 * @example
 * const fleet: RequestStateSource = { keys: [process.env.STATE_KEY!] };
 * const kms: RequestStateSource = { codec: new EnvelopeCodec(dataKey) };
 */
export type RequestStateSource =
  | { readonly keys: readonly RequestStateKey[]; readonly codec?: undefined }
  | { readonly codec: RequestStateCodec; readonly keys?: undefined };

/**
 * Tuning for {@link RequestStateSecurity}.
 *
 * @example
 * const options: RequestStateSecurityOptions = { ttl: 300, audience: "billing", bindPrincipal: null };
 */
export interface RequestStateSecurityOptions {
  /** Seconds a token lives after each round's reseal (so: thinking time per round). Default 600. */
  readonly ttl?: number;
  /** The identity state is bound to. Default {@link authenticatedPrincipal}; `null` disables binding. */
  readonly bindPrincipal?: PrincipalBinder | null;
  /** The `aud` claim; default: the boundary's `defaultAudience` (normally the server name). */
  readonly audience?: string;
}

const DEFAULT_TTL_SECONDS = 600;

/**
 * How request state is sealed: the codec, the TTL, the principal binding and the audience. Pass it to
 * `RequestStateBoundary` (or `MCPServer`'s `requestStateSecurity`).
 *
 * Use `keys` whenever a retry may land on another process (several workers, a load balancer, a
 * restart): every instance then verifies what any sibling minted. `keys[0]` mints, every key verifies.
 *
 * @example
 * const security = new RequestStateSecurity({ keys: [process.env.STATE_KEY!] }, { ttl: 300 });
 * const custom = new RequestStateSecurity({ codec: new EnvelopeCodec(dataKey) }, { audience: "billing" });
 */
export class RequestStateSecurity {
  readonly codec: RequestStateCodec;
  readonly ttl: number;
  readonly bindPrincipal: PrincipalBinder | null;
  readonly audience: string | undefined;

  constructor(source: RequestStateSource, options: RequestStateSecurityOptions = {}) {
    // Checked at runtime too: JS callers can pass both, or neither (null is absent, as Python's None).
    const hasKeys = source?.keys != null;
    const hasCodec = source?.codec != null;
    if (hasKeys === hasCodec) throw new Error("RequestStateSecurity takes exactly one of keys or codec");
    if (source.codec != null) {
      const { codec } = source;
      if (typeof codec.seal !== "function" || typeof codec.unseal !== "function") {
        throw new TypeError("codec must have seal(payload) and unseal(token) methods");
      }
      this.codec = codec;
    } else {
      this.codec = new AesGcmRequestStateCodec(source.keys);
    }
    this.ttl = checkTtl(options.ttl ?? DEFAULT_TTL_SECONDS);
    const bind = options.bindPrincipal === undefined ? authenticatedPrincipal : options.bindPrincipal;
    if (bind !== null && typeof bind !== "function") {
      throw new TypeError("bindPrincipal must be a function or null");
    }
    this.bindPrincipal = bind;
    if (options.audience !== undefined && typeof options.audience !== "string") {
      throw new TypeError("audience must be a string");
    }
    this.audience = options.audience;
  }

  /**
   * A policy under a fresh random key known only to this process: fine for stdio or one HTTP worker;
   * a retry reaching another process or a restarted one is rejected and the client starts over.
   *
   * @example
   * server.middleware.push(new RequestStateBoundary(RequestStateSecurity.ephemeral(), { defaultAudience: server.name }));
   */
  static ephemeral(
    options: Pick<RequestStateSecurityOptions, "ttl" | "audience"> = {},
  ): RequestStateSecurity {
    const key = randomBytes(32);
    try {
      return new RequestStateSecurity({ keys: [key] }, { ttl: options.ttl, audience: options.audience });
    } finally {
      key.fill(0); // the codec holds its own derived key
    }
  }
}

function checkTtl(ttl: number): number {
  // A positive test, so NaN fails too.
  if (typeof ttl === "number" && ttl > 0 && Number.isFinite(ttl)) return ttl;
  throw new RangeError(`ttl must be a positive, finite number of seconds, got ${String(ttl)}`);
}
