/**
 * Who may reach a task. A task belongs to its creator, and to them only with a token as strong as
 * the one that created it: a narrower token of the same user (a read-only one, say) must not read
 * the result of a call it could not have made, nor answer or cancel it.
 */
import type { ServerRequestContext } from "../context.js";

/** Who asks about a task: the principal the server binds, and the scopes their token holds. */
export interface TaskCaller {
  readonly principal: string | undefined;
  /** The caller's token's scopes; undefined without a token. */
  readonly scopes: readonly string[] | undefined;
}

/** Who a task is for: its creator, and the scopes the HTTP endpoint required of the creating call. */
export interface TaskOwner {
  readonly principal: string | undefined;
  readonly requiredScopes: readonly string[];
}

/**
 * The owner of a task `ctx`'s call creates: `principal`, and the scopes the endpoint's
 * `requiredScopes` demanded of the call (none off HTTP or without that option).
 */
export function taskOwnerOf(ctx: ServerRequestContext, principal: string | undefined): TaskOwner {
  return { principal, requiredScopes: ctx.http?.requiredScopes ?? [] };
}

/** The caller `ctx` stands for, bound to `principal`. */
export function taskCallerOf(ctx: ServerRequestContext, principal: string | undefined): TaskCaller {
  return { principal, scopes: ctx.authInfo?.scopes };
}

/**
 * Whether `caller` may reach a task of `owner`: the same principal, with every scope the creating
 * call required.
 *
 * @example
 * mayReach({ principal: "u", requiredScopes: ["w"] }, { principal: "u", scopes: ["r"] }); // false
 */
export function mayReach(owner: TaskOwner, caller: TaskCaller): boolean {
  if (owner.principal !== caller.principal) return false;
  return owner.requiredScopes.every((scope) => caller.scopes?.includes(scope) === true);
}
