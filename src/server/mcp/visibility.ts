/**
 * Per-caller lists: a tool or prompt shown only to some callers (an admin tool, a tenant's own
 * prompt). The spec lets lists vary with the authorization on the request; a hidden entry is also
 * refused exactly as one that does not exist, so its name is never confirmed.
 */

import { messageOf } from "../../shared/errors.js";
import type { ServerRequestContext } from "../context.js";
import type { Audience } from "../subscriptions.js";

/**
 * Whether the caller of this request may see and use an entry. `false`, or a throw (deny on
 * error), hides it.
 *
 * @example
 * const adminsOnly: Visibility = (ctx) => ctx.authInfo?.scopes.includes("admin") === true;
 */
export type Visibility = (ctx: ServerRequestContext) => boolean;

/** Whether `visible` shows the entry `name` to the caller of `ctx` (no rule: everyone). */
export function allows(visible: Visibility | undefined, name: string, ctx: ServerRequestContext): boolean {
  if (visible === undefined) return true;
  try {
    return visible(ctx) === true;
  } catch (error) {
    ctx.logger.warn(`${name}: visible() failed (hidden): ${messageOf(error)}`);
    return false;
  }
}

/** Who may hear that the entry `name` changed: whoever may see it (no rule: everyone). */
export function audienceOf(visible: Visibility | undefined, name: string): Audience | undefined {
  return visible && ((ctx) => allows(visible, name, ctx));
}

/**
 * The `${kind}s` list the caller may see; a list that depends on the caller is cached for that caller
 * only.
 */
export function listFor<T extends { name: string }, K extends string>(
  kind: K,
  entries: Iterable<{ definition: T; visible?: Visibility }>,
  ctx: ServerRequestContext,
): Record<`${K}s`, T[]> & { cacheScope?: "private" } {
  const shown: T[] = [];
  let varies = false;
  for (const entry of entries) {
    if (entry.visible) varies = true;
    if (allows(entry.visible, `${kind} ${entry.definition.name}`, ctx)) shown.push(entry.definition);
  }
  const result = { [`${kind}s`]: shown } as Record<`${K}s`, T[]> & { cacheScope?: "private" };
  if (varies) result.cacheScope = "private";
  return result;
}
