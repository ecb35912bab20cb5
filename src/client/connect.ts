/** Opening a client: the transport, the session with its declared capabilities, and the era. */
import { ConnectionClosedError, RequestAbortedError } from "../shared/errors.js";
import type { Transport } from "../shared/transport.js";
import { HttpStatusError } from "../transports/http/errors.js";
import { TASKS_EXTENSION } from "../types/core.js";
import type { ClientCapabilities } from "../types/index.js";
import { type ClientCallbacks, capabilitiesFor } from "./callbacks.js";
import { recordEra } from "./era-cache.js";
import { type ClientMode, type NegotiatedEra, negotiate, STDIO_PROBE_TIMEOUT_MS } from "./negotiation.js";
import { type ClientOptions, mergeCapabilities } from "./options.js";
import { ClientSession } from "./session.js";
import { type ClientTarget, openTransport } from "./targets.js";

/**
 * What a client declares on every request: what its callbacks can answer, the Tasks extension
 * with `tasks: true`, then the explicit `clientCapabilities` merged over both.
 *
 * @example
 * declaredCapabilities({ elicitation, tasks: true });
 * // { elicitation: { form: {}, url: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } }
 */
export function declaredCapabilities(options: ClientOptions): ClientCapabilities {
  const implied = capabilitiesFor(options);
  if (options.tasks === true) implied.extensions = { [TASKS_EXTENSION]: {} };
  return mergeCapabilities(implied, options.clientCapabilities);
}

/**
 * The callbacks of a client's options, as a snapshot: mutating the options object later changes
 * nothing.
 *
 * @example
 * const callbacks = callbacksOf({ elicitation, timeoutMs: 5_000 }); // { elicitation, ... }
 */
export function callbacksOf(options: ClientCallbacks): ClientCallbacks {
  return {
    elicitation: options.elicitation,
    elicitationCapabilities: options.elicitationCapabilities,
    sampling: options.sampling,
    samplingCapabilities: options.samplingCapabilities,
    listRoots: options.listRoots,
  };
}

/**
 * Opens the transport and the session, then settles the era (`mode`); records the verdict under
 * `eraKey`. Aborting `options.signal` closes the session, which fails whatever is in flight.
 * `"sse"` goes straight to the deprecated HTTP+SSE transport (a remembered verdict).
 *
 * @example
 * const { session, era } = await openSession("http://127.0.0.1:8000/mcp", "auto", options, undefined);
 */
export async function openSession(
  target: ClientTarget,
  mode: ClientMode | "sse",
  options: ClientOptions,
  eraKey: string | undefined,
): Promise<{ session: ClientSession; era: NegotiatedEra }> {
  if (mode === "sse") return openSse(target, options, eraKey);
  try {
    return await openOn(await openTransport(target, options.http), target, mode, options, eraKey);
  } catch (error) {
    if (mode === "auto" && diedOnProbe(target, error) && !options.signal?.aborted) {
      // Some 2025 stdio servers exit on any request before initialize: a new process, handshake first.
      return openOn(await openTransport(target, options.http), target, "legacy", options, eraKey);
    }
    if (!legacySseEvidence(target, error) || options.signal?.aborted) throw error;
    // Neither the 2026-07-28 wire nor a 2025 initialize POST: perhaps an HTTP+SSE (2024-11-05)
    // server, which takes its messages elsewhere and answers on a GET stream.
    try {
      return await openSse(target, options, eraKey);
    } catch (sseError) {
      // Not an HTTP+SSE server either: the first answer says more about what is there.
      throw sseError instanceof HttpStatusError ? error : sseError;
    }
  }
}

async function openSse(
  target: ClientTarget,
  options: ClientOptions,
  eraKey: string | undefined,
): Promise<{ session: ClientSession; era: NegotiatedEra }> {
  // Loaded on demand: a client that never meets such a server does not carry it.
  const { SseClientTransport } = await import("../transports/http/legacy-sse-client.js");
  const transport = new SseClientTransport(target as string | URL, options.http);
  return openOn(transport, target, "legacy", options, eraKey, "sse");
}

/** A spawned stdio server whose process went away while the era was being settled. */
function diedOnProbe(target: ClientTarget, error: unknown): boolean {
  return typeof target === "object" && "command" in target && error instanceof ConnectionClosedError;
}

function connectingAborted(signal: AbortSignal): RequestAbortedError {
  return new RequestAbortedError("Connecting was aborted", { cause: signal.reason });
}

/**
 * A URL whose connect-time POSTs got 400, 404 or 405 without a JSON-RPC error in the body: the spec's
 * evidence for trying the deprecated HTTP+SSE transport. (A modern pin sends nothing at connect.)
 */
function legacySseEvidence(target: ClientTarget, error: unknown): boolean {
  return (
    (typeof target === "string" || target instanceof URL) &&
    error instanceof HttpStatusError &&
    // A body with a JSON-RPC error would have been an McpError: this is a bare status.
    [400, 404, 405].includes(error.status)
  );
}

async function openOn(
  transport: Transport,
  target: ClientTarget,
  mode: ClientMode,
  options: ClientOptions,
  eraKey: string | undefined,
  verdict?: "sse",
): Promise<{ session: ClientSession; era: NegotiatedEra }> {
  const session = await ClientSession.connect(transport, {
    clientInfo: options.clientInfo,
    capabilities: declaredCapabilities(options),
    logLevel: options.logLevel,
    timeoutMs: options.timeoutMs,
    onLog: options.onLog,
    onWarning: options.onWarning,
    requestMeta: options.requestMeta,
    instrument: options.instrument,
  });
  // Aborting (e.g. Ctrl-C in a CLI) closes the session, which fails whatever is in flight.
  const abort = () => void session.close().catch(() => {});
  options.signal?.addEventListener("abort", abort, { once: true });
  try {
    if (options.signal?.aborted) throw connectingAborted(options.signal);
    // stdio: a silent probe is legacy evidence, and the fallback reuses this very process.
    const stdio = typeof target === "object" && ("command" in target || "pid" in transport);
    const era = await negotiate(session, {
      mode,
      priorDiscover: options.priorDiscover,
      callbacks: callbacksOf(options),
      ...(stdio
        ? {
            probeTimeoutMs: Math.min(options.timeoutMs ?? 60_000, STDIO_PROBE_TIMEOUT_MS),
            silenceIsLegacy: true,
          }
        : {}),
    });
    if (options.signal?.aborted) throw connectingAborted(options.signal);
    if (eraKey !== undefined) recordEra(eraKey, verdict ?? era.era);
    return { session, era };
  } catch (error) {
    await session.close().catch(() => {});
    throw options.signal?.aborted ? connectingAborted(options.signal) : error;
  } finally {
    options.signal?.removeEventListener("abort", abort);
  }
}
