/**
 * The era verdicts of this process (spec §5.2: "cached per process or origin, re-probed when the
 * cached assumption fails"). Only the 2025 verdicts are remembered: a modern server's probe is its
 * `server/discover`, which the client needs anyway, while a legacy verdict saves the probe on every
 * later connect — on stdio, up to the probe timeout when the server ignores requests before
 * `initialize` — and an HTTP+SSE (2024-11-05) verdict saves both refused POSTs.
 */
import { ProtocolError } from "../shared/errors.js";
import { HttpStatusError } from "../transports/http/errors.js";
import { McpError } from "../types/core.js";
import type { ClientTarget } from "./targets.js";

/** Past this many endpoints the oldest verdict is forgotten. */
const MAX_ENTRIES = 256;
/**
 * What a connect settled on: `"sse"` is a 2025 handshake over the deprecated HTTP+SSE transport.
 */
export type EraVerdict = "modern" | "legacy" | "sse";
const legacyEndpoints = new Map<string, "legacy" | "sse">();

/**
 * The cache key of a target the client opens itself (a URL, or a command with its arguments and
 * working directory); `undefined` for a transport or an in-process server, which are never cached.
 */
export function eraCacheKey(target: ClientTarget): string | undefined {
  if (typeof target === "string" || target instanceof URL) {
    return URL.canParse(String(target)) ? `http ${new URL(String(target)).href}` : undefined;
  }
  const stdio = target as { command?: unknown; args?: unknown; cwd?: unknown };
  if (typeof stdio.command !== "string" || "dispatch" in target || "send" in target) return undefined;
  return `stdio ${JSON.stringify([stdio.command, stdio.args ?? [], stdio.cwd ?? ""])}`;
}

/** How this endpoint was last found to speak only the 2025 handshake, if it was. */
export function knownLegacy(key: string): "legacy" | "sse" | undefined {
  return legacyEndpoints.get(key);
}

/** Records what a connect settled on. */
export function recordEra(key: string, verdict: EraVerdict): void {
  legacyEndpoints.delete(key);
  if (verdict === "modern") return;
  legacyEndpoints.set(key, verdict);
  if (legacyEndpoints.size > MAX_ENTRIES) {
    const oldest = legacyEndpoints.keys().next().value;
    if (oldest !== undefined) legacyEndpoints.delete(oldest);
  }
}

/**
 * Whether a handshake made on a remembered verdict failed in a way that says the verdict is stale
 * (the server refused it, or answered something else than a 2025 server would): re-probe then.
 * An outage, an abort or an auth refusal says nothing about the era.
 */
export function verdictRefuted(error: unknown): boolean {
  if (error instanceof HttpStatusError) return error.status !== 401 && error.status !== 403;
  return error instanceof McpError || error instanceof ProtocolError;
}

/**
 * Forgets every era verdict of this process (the next connect to each endpoint probes again).
 *
 * @example
 * clearEraCache(); // e.g. after upgrading the servers this process talks to
 */
export function clearEraCache(): void {
  legacyEndpoints.clear();
}
