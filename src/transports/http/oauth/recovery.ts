/**
 * The steps every OAuth provider takes on a refusal, whatever its grant: read the challenge, find
 * the authorization server afresh (the resource may have moved), and choose the scope to ask for.
 */
import type { HttpAuthChallenge } from "../auth.js";
import { onThisMachine } from "../loopback.js";
import { type BearerChallenge, parseBearerChallenge, parseChallenge } from "./challenge.js";
import {
  type AuthorizationServerMetadata,
  discoverAuthorizationServer,
  discoverResource,
  type OAuthFetch,
  type ProtectedResourceMetadata,
} from "./discovery.js";
import type { OAuthTokens } from "./token.js";

/** What a refusal calls for. */
export type RefusalVerdict =
  /** Not ours to fix (a 403 other than `insufficient_scope`). */
  | "give-up"
  /** Refused with a token already replaced (a late answer to an earlier request): just retry. */
  | "retry"
  /** A new token is needed. */
  | "authorize";

/** Sorts a refusal by what it calls for, given the access token now in use. */
export function judgeRefusal(
  challenge: HttpAuthChallenge,
  bearer: BearerChallenge | undefined,
  current: string | undefined,
): RefusalVerdict {
  if (challenge.status === 403 && bearer?.error !== "insufficient_scope") return "give-up";
  if (challenge.token !== undefined && current !== undefined && challenge.token !== current) return "retry";
  return "authorize";
}

/**
 * The challenge's parameters: its `Bearer` challenge, or else its `DPoP` one (a resource that
 * expects DPoP-bound tokens challenges with that scheme).
 */
export function bearerOf(challenge: HttpAuthChallenge): BearerChallenge | undefined {
  return parseBearerChallenge(challenge.wwwAuthenticate) ?? parseChallenge(challenge.wwwAuthenticate, "dpop");
}

/** A 401 asking for a DPoP nonce (RFC 9449 §9): retry with it rather than authorize again. */
export function wantsDpopNonce(challenge: HttpAuthChallenge): boolean {
  const dpop = parseChallenge(challenge.wwwAuthenticate, "dpop");
  return challenge.dpopNonce !== undefined && dpop?.error === "use_dpop_nonce";
}

/** The resource's metadata and its (first) authorization server's, both validated. */
export async function locateAuthorizationServer(
  fetchImpl: OAuthFetch,
  url: URL,
  bearer: BearerChallenge | undefined,
): Promise<{ resource: ProtectedResourceMetadata; server: AuthorizationServerMetadata }> {
  const resource = await discoverResource(fetchImpl, url, bearer?.resourceMetadata);
  // Non-null: discoverResource returns at least one authorization server.
  const local = onThisMachine(url.hostname);
  const server = await discoverAuthorizationServer(fetchImpl, resource.authorizationServers[0]!, local);
  return { resource, server };
}

function scopeList(scope: string | undefined): string[] {
  return (scope ?? "").split(" ").filter((item) => item !== "");
}

/**
 * The scope to ask for (MCP spec, scope selection): the challenge's, else everything the resource
 * lists, else none; on a step-up, the union with what was asked before from the same server; plus
 * `offline_access` when wanted and the authorization server lists it.
 */
export function chooseScope(choice: {
  status: 401 | 403;
  bearer: BearerChallenge | undefined;
  resource: ProtectedResourceMetadata;
  server: AuthorizationServerMetadata;
  previous: OAuthTokens | undefined;
  offlineAccess: boolean;
}): string | undefined {
  const { status, bearer, resource, server, previous } = choice;
  const scopes = new Set<string>();
  if (status === 403 && previous?.issuer === server.issuer) {
    for (const scope of scopeList(previous.requestedScope)) scopes.add(scope);
  }
  const wanted = bearer?.scope !== undefined ? scopeList(bearer.scope) : (resource.scopesSupported ?? []);
  for (const scope of wanted) scopes.add(scope);
  if (choice.offlineAccess && server.scopesSupported?.includes("offline_access"))
    scopes.add("offline_access");
  return scopes.size === 0 ? undefined : [...scopes].join(" ");
}
