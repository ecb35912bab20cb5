import { ErrorCode, INPUT_REQUIRED_METHODS, invalidRequestStateError, McpError } from "../../types/core.js";
import type { ResultObject } from "../../types/index.js";
import { deriveContext, type NextHandler, type ServerRequestContext } from "../context.js";
import {
  encodeClaims,
  mintClaims,
  parseClaims,
  type RequestBinding,
  requestBinding,
  verifyPrincipalClaim,
} from "./claims.js";
import { InvalidRequestState } from "./errors.js";
import type { RequestStateSecurity } from "./policy.js";
import type { PrincipalBinder } from "./principal.js";

/**
 * Options for {@link RequestStateBoundary}.
 *
 * @example
 * const options: RequestStateBoundaryOptions = { defaultAudience: server.name };
 */
export interface RequestStateBoundaryOptions {
  /**
   * The `aud` claim when the policy sets no `audience`: normally the server name, so two services that
   * happen to share a key still reject each other's state. `null` explicitly opts out of the claim.
   */
  readonly defaultAudience: string | null;
  /** The clock, in seconds since the epoch (default `Date.now() / 1000`). Injected by tests. */
  readonly now?: () => number;
}

/** How far in the future a token's `iat` may be: tolerates clock skew between sibling instances. */
const FUTURE_SKEW_SECONDS = 60;

/**
 * The middleware that seals `requestState` on the way out and verifies it on the way back, on
 * `tools/call`, `prompts/get` and `resources/read` only. Handlers write and read plaintext; the wire only
 * ever carries an opaque token bound to a time window, the original request (method, target, arguments
 * digest), the audience and the authenticated principal. Every inbound failure answers the one frozen
 * `-32602 "Invalid or expired requestState"` without running the handler, and logs the real reason
 * (never the token, plaintext, key or principal). Each round is resealed with a fresh expiry, so the
 * TTL bounds thinking time per round, not the whole flow.
 *
 * @example
 * // The one-line opt-in for a low-level Server:
 * server.middleware.push(new RequestStateBoundary(RequestStateSecurity.ephemeral(), { defaultAudience: server.name }));
 */
export class RequestStateBoundary {
  readonly #security: RequestStateSecurity;
  readonly #audience: string | null;
  readonly #now: () => number;

  constructor(security: RequestStateSecurity, options: RequestStateBoundaryOptions) {
    const fallback: unknown = options?.defaultAudience;
    // Required on purpose: forgetting it would silently drop the audience claim.
    if (fallback !== null && typeof fallback !== "string") {
      throw new TypeError(
        "defaultAudience is required: the server name, or null to opt out of the audience claim",
      );
    }
    this.#security = security;
    this.#audience = security.audience ?? fallback;
    this.#now = options.now ?? (() => Date.now() / 1000);
  }

  /**
   * The middleware function. An arrow property, so it can be passed around detached from the instance.
   *
   * @example
   * const result = await boundary.handle(ctx, (inner) => handler(inner)); // inner.params.requestState is plaintext
   */
  readonly handle = async (ctx: ServerRequestContext, next: NextHandler): Promise<ResultObject> => {
    if (!INPUT_REQUIRED_METHODS.has(ctx.method)) return next(ctx);
    const facts = new RoundFacts(ctx, this.#security.bindPrincipal);
    const inbound = ctx.params.requestState;
    let inner = ctx;
    if (inbound === null) {
      // Null means absent (any client could strip the field anyway): the handler sees no state.
      const { requestState: _null, ...rest } = ctx.params;
      inner = deriveContext(ctx, { params: rest });
    } else if (inbound !== undefined) {
      inner = deriveContext(ctx, {
        params: withKey(ctx.params, "requestState", this.#verify(ctx, inbound, facts)),
      });
    }
    const result = await next(inner);
    if (result.resultType !== "input_required" || typeof result.requestState !== "string") return result;
    return withKey(result, "requestState", this.#seal(ctx, result.requestState, facts));
  };

  /** Returns the plaintext, or throws the frozen error after logging why. */
  #verify(ctx: ServerRequestContext, token: unknown, facts: RoundFacts): string {
    try {
      if (typeof token !== "string") throw new InvalidRequestState("malformed");
      let payload: Uint8Array;
      try {
        payload = this.#security.codec.unseal(token);
      } catch (error) {
        // Deny on error: a buggy custom codec rejects, it never lets a token through.
        throw error instanceof InvalidRequestState ? error : new InvalidRequestState("codec error");
      }
      const claims = parseClaims(payload);
      const now = this.#now();
      // Positive accept conditions, so a NaN anywhere fails them.
      if (!(claims.iat <= now + FUTURE_SKEW_SECONDS)) throw new InvalidRequestState("minted in the future");
      if (!(now < claims.exp)) throw new InvalidRequestState("expired");
      const { target, digest } = facts.binding();
      if (claims.m !== ctx.method || claims.t !== target || claims.a !== digest) {
        throw new InvalidRequestState("request binding");
      }
      if ((claims.aud ?? null) !== this.#audience) throw new InvalidRequestState("audience");
      const principal = facts.principal();
      if ((claims.p !== undefined) !== (principal !== undefined)) {
        throw new InvalidRequestState("principal drift");
      }
      if (principal !== undefined) verifyPrincipalClaim(claims.p, principal);
      return claims.s;
    } catch (error) {
      const reason = error instanceof InvalidRequestState ? logSafe(error.message) : "verification error";
      ctx.logger.warn(`requestState rejected on ${ctx.method}: ${reason}`);
      throw invalidRequestStateError();
    }
  }

  /**
   * Seals the handler's plaintext in a fresh envelope: unbindable arguments are -32602, any other
   * failure a sanitized -32603.
   */
  #seal(ctx: ServerRequestContext, state: string, facts: RoundFacts): string {
    let binding: RequestBinding;
    try {
      binding = facts.binding();
    } catch {
      // The target is routed, so only the arguments fail: nested past the digest's stack, or not JSON.
      ctx.logger.warn(`requestState seal failed on ${ctx.method}: request binding`);
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid params: ${ctx.method} arguments are too deeply nested or not JSON`,
      );
    }
    try {
      const now = this.#now();
      const claims = mintClaims({
        now,
        ttl: this.#security.ttl,
        method: ctx.method,
        binding,
        state,
        audience: this.#audience,
        principal: facts.principal(),
      });
      const token: unknown = this.#security.codec.seal(encodeClaims(claims));
      if (typeof token !== "string") throw new InvalidRequestState("codec returned a non-string token");
      return token;
    } catch (error) {
      // Never mint unbound state, and never let a codec's own text reach the wire.
      const reason = error instanceof InvalidRequestState ? logSafe(error.message) : "codec error";
      ctx.logger.error(`requestState seal failed on ${ctx.method}: ${reason}`);
      throw new McpError(ErrorCode.InternalError, "Internal error");
    }
  }
}

/** What one request is bound to, derived at most once and shared by the verify and the reseal. */
// Object.assign and then a set, not a spread with an extra key: on Node 20 the spread costs ten times more.
// (Params never hold an own "__proto__" here: checkParams drops it.)
function withKey(object: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = Object.assign({}, object);
  copy[key] = value;
  return copy;
}

class RoundFacts {
  #binding: RequestBinding | undefined;
  #principal: { readonly value: string | undefined } | undefined;

  readonly #ctx: ServerRequestContext;
  readonly #bind: PrincipalBinder | null;

  constructor(ctx: ServerRequestContext, bind: PrincipalBinder | null) {
    this.#ctx = ctx;
    this.#bind = bind;
  }

  binding(): RequestBinding {
    this.#binding ??= requestBinding(this.#ctx.method, this.#ctx.params);
    return this.#binding;
  }

  principal(): string | undefined {
    this.#principal ??= { value: this.#derivePrincipal() };
    return this.#principal.value;
  }

  #derivePrincipal(): string | undefined {
    if (this.#bind === null) return undefined;
    let value: unknown;
    try {
      value = this.#bind(this.#ctx);
    } catch {
      throw new InvalidRequestState("principal binding");
    }
    if (value !== undefined && typeof value !== "string") throw new InvalidRequestState("principal binding");
    return value;
  }
}

/** Reasons are short codes, but a custom codec writes its own: keep log lines single and short. */
function logSafe(reason: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
  return reason.replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, 80);
}
