import type { ServerRequestContext } from "../context.js";

/**
 * Derives the identity a request state is bound to, or `undefined` when there is none to bind.
 * Runs on every sealing and every verifying round under deny-on-error: throwing, or returning anything
 * but a string or `undefined`, fails the round. Must be consistent: the same caller must get the same
 * string on every round, or its in-flight state is rejected as principal drift.
 *
 * @example
 * const fromProxy: PrincipalBinder = (ctx) => ctx.authInfo?.extra?.["x-user"] as string | undefined;
 */
export type PrincipalBinder = (ctx: ServerRequestContext) => string | undefined;

/**
 * The default {@link PrincipalBinder}: the SDK-verified OAuth token's identity as the compact JSON of
 * `[clientId, issuer, subject]`, missing parts as `null`; `undefined` without auth, which makes the
 * binding inert. Including the subject is what keeps two users of one OAuth client apart.
 *
 * @example
 * authenticatedPrincipal(ctx); // '["client-123",null,"alice"]', or undefined on an unauthenticated transport
 */
export function authenticatedPrincipal(ctx: Pick<ServerRequestContext, "authInfo">): string | undefined {
  const auth = ctx.authInfo;
  if (auth === undefined) return undefined;
  return JSON.stringify([auth.clientId, auth.issuer ?? null, auth.subject ?? null]);
}
