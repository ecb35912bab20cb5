import { ProtocolError, RequestTimeoutError } from "../shared/errors.js";
import { HttpStatusError } from "../transports/http/errors.js";
import {
  ErrorCode,
  isLegacyProtocolVersion,
  isModernProtocolVersion,
  McpError,
  MetaKey,
  MODERN_PROTOCOL_VERSIONS,
  validDiscoverResult,
  validImplementation,
} from "../types/core.js";
import type { DiscoverResult, Implementation, ServerCapabilities } from "../types/index.js";
import type { ClientCallbacks } from "./callbacks.js";
import { NoMutualVersionError } from "./errors.js";
import { legacyConnect as defaultLegacyConnect, type LegacyConnect } from "./legacy.js";
import type { ClientSession } from "./session.js";

/** Errors only a 2026-07-28 server answers to the probe: evidence against falling back. */
const MODERN_REFUSALS: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
]);

/**
 * How the client picks the protocol era: `"auto"` probes `server/discover` and falls back to the
 * 2025 handshake on legacy evidence; `"legacy"` handshakes directly; a modern version pins it
 * without any probe.
 *
 * @example
 * await Client.connect(server, { mode: "2026-07-28", priorDiscover: saved });
 */
export type ClientMode = "auto" | "legacy" | "2026-07-28";

/**
 * What the client settled on at connect time.
 *
 * @example
 * const era: NegotiatedEra = await negotiate(session, { mode: "auto", callbacks: {} });
 */
export interface NegotiatedEra {
  readonly era: "modern" | "legacy";
  readonly protocolVersion: string;
  /** Absent when the server did not say (a pinned connect without `priorDiscover`, a missing stamp). */
  readonly serverInfo: Implementation | undefined;
  readonly capabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  /** The DiscoverResult adopted (modern era). */
  readonly discover?: DiscoverResult;
}

/** How long a stdio client waits for its `server/discover` probe before judging the server legacy. */
export const STDIO_PROBE_TIMEOUT_MS = 5_000;

export interface NegotiateOptions {
  mode: ClientMode;
  /** Adopted as-is by a version pin (ignored by `"auto"` and `"legacy"`). */
  priorDiscover?: DiscoverResult;
  callbacks: ClientCallbacks;
  /** The legacy handshake; defaults to the one in `legacy.ts`. */
  legacyConnect?: LegacyConnect;
  /** Timeout of each `server/discover` probe (default: the session's request timeout). */
  probeTimeoutMs?: number;
  /**
   * stdio: no answer to the probe within `probeTimeoutMs` is legacy evidence (some legacy servers
   * ignore requests sent before `initialize`). Elsewhere a timeout is an outage and propagates.
   */
  silenceIsLegacy?: boolean;
}

/**
 * Validates a `mode` option before anything is connected: a handshake-era version is refused with
 * a hint to use `"legacy"`, and so is any other unknown string.
 *
 * @example
 * checkMode("2025-11-25"); // throws: use mode "legacy"
 */
export function checkMode(mode: unknown): ClientMode {
  if (mode === "auto" || mode === "legacy" || isModernProtocolVersion(mode)) return mode as ClientMode;
  if (isLegacyProtocolVersion(mode)) {
    throw new TypeError(
      `mode ${JSON.stringify(mode)} is a handshake-era version and cannot be pinned; use mode "legacy" ` +
        "to run the 2025 initialize handshake.",
    );
  }
  throw new TypeError(
    `Unknown mode ${JSON.stringify(mode)}: expected "auto", "legacy" or a modern version ` +
      `(${MODERN_PROTOCOL_VERSIONS.map((v) => JSON.stringify(v)).join(", ")}).`,
  );
}

/**
 * Settles the era per spec §5.2 (the python SDK's `negotiate_auto` policy): a valid discover result
 * with a mutual version is adopted; anything that is not positive modern evidence — any JSON-RPC
 * error, an unparseable result, a result with only legacy versions — goes to the legacy handshake.
 * A -32022 naming a mutual version earns exactly one corrective re-probe; a -32022 whose versions
 * are all modern and none mutual is re-raised. Over HTTP a 4xx without a JSON-RPC error (not
 * 401/403) is legacy evidence; on stdio (`silenceIsLegacy`) so is a probe nobody answers. Anything
 * else that is not an McpError (network, closed transport, a timeout elsewhere) propagates
 * unchanged: an outage is never an era verdict.
 *
 * @example
 * const era = await negotiate(session, { mode: "auto", callbacks: {} });
 */
export async function negotiate(session: ClientSession, options: NegotiateOptions): Promise<NegotiatedEra> {
  const legacy = options.legacyConnect ?? defaultLegacyConnect;
  if (options.mode === "legacy")
    return legacy({ session, evidence: undefined, callbacks: options.callbacks });
  if (options.mode !== "auto") return adoptPinned(session, options.mode, options.priorDiscover);

  let version = MODERN_PROTOCOL_VERSIONS[0] as string;
  for (let attempt = 0; attempt < 2; attempt++) {
    session.protocolVersion = version;
    let evidence: string;
    let probeError: McpError | undefined;
    try {
      const discovered = await session.discover({ timeoutMs: options.probeTimeoutMs });
      const mutual = mutualVersions(discovered.supportedVersions);
      if (mutual.length > 0) return adopt(session, discovered);
      if (
        discovered.supportedVersions.length > 0 &&
        !discovered.supportedVersions.some(isLegacyProtocolVersion)
      ) {
        throw new NoMutualVersionError(discovered.supportedVersions, MODERN_PROTOCOL_VERSIONS);
      }
      evidence = `server/discover listed no modern version (${JSON.stringify(discovered.supportedVersions)})`;
    } catch (error) {
      if (error instanceof ProtocolError) {
        evidence = `server/discover answered something unparseable: ${error.message}`;
      } else if (error instanceof RequestTimeoutError && options.silenceIsLegacy) {
        evidence = `server/discover got no answer within ${options.probeTimeoutMs ?? "the timeout"} ms`;
      } else if (
        error instanceof HttpStatusError &&
        error.status >= 400 &&
        error.status < 500 &&
        error.status !== 401 &&
        error.status !== 403
      ) {
        // HTTP: a 4xx without a JSON-RPC error in its body is no modern server's answer (spec §5.2).
        evidence = `server/discover answered HTTP ${error.status} without a JSON-RPC error`;
      } else if (error instanceof McpError) {
        if (error.code === ErrorCode.UnsupportedProtocolVersion) {
          const supported = parseSupported(error.data);
          const mutual = mutualVersions(supported ?? []);
          if (mutual.length > 0 && attempt === 0) {
            version = mutual[0] as string;
            continue;
          }
          // Modern-only and disjoint (or still refused after the corrective probe): a real mismatch.
          if (supported !== undefined && !supported.some(isLegacyProtocolVersion)) throw error;
        }
        // A header mismatch or a missing capability is a modern server's answer (spec §5.2): the
        // request needs fixing, and a 2025 handshake would only hide why.
        if (MODERN_REFUSALS.has(error.code)) throw error;
        probeError = error;
        evidence = `server/discover failed with ${error.code} ${JSON.stringify(error.message)}`;
      } else {
        throw error;
      }
    }
    try {
      return await legacy({ session, evidence, probeError, callbacks: options.callbacks });
    } catch (error) {
      // -32022 from the handshake is itself modern evidence (a timed-out probe locked the server
      // modern before initialize arrived): re-probe once at a version it names.
      if (
        !(error instanceof McpError) ||
        error.code !== ErrorCode.UnsupportedProtocolVersion ||
        attempt > 0
      ) {
        throw error;
      }
      const mutual = mutualVersions(parseSupported(error.data) ?? []);
      if (mutual.length === 0) throw error;
      version = mutual[0] as string;
    }
  }
  throw new Error("unreachable: negotiation always returns or throws within two attempts");
}

/**
 * `data.supported` of a -32022 error when it is shaped as the spec says (an array of strings),
 * otherwise undefined (not actionable).
 */
export function parseSupported(data: unknown): string[] | undefined {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  const supported = (data as { supported?: unknown }).supported;
  if (!Array.isArray(supported) || !supported.every((v) => typeof v === "string")) return undefined;
  return supported as string[];
}

/** Our modern versions the server also lists, newest first. */
function mutualVersions(serverVersions: readonly string[]): string[] {
  return MODERN_PROTOCOL_VERSIONS.filter((v) => serverVersions.includes(v));
}

/**
 * Adopts a DiscoverResult: the newest mutual modern version becomes the session's, and the
 * server's capabilities, instructions and identity come from it.
 */
export function adopt(session: ClientSession, discovered: DiscoverResult): NegotiatedEra {
  const mutual = mutualVersions(discovered.supportedVersions);
  const version = mutual[0];
  if (version === undefined)
    throw new NoMutualVersionError(discovered.supportedVersions, MODERN_PROTOCOL_VERSIONS);
  session.protocolVersion = version;
  const stamp = (discovered._meta as Record<string, unknown> | undefined)?.[MetaKey.ServerInfo];
  return {
    era: "modern",
    protocolVersion: version,
    serverInfo: validImplementation(stamp) ? (stamp as Implementation) : undefined,
    capabilities: discovered.capabilities,
    instructions: discovered.instructions,
    discover: discovered,
  };
}

/** A version pin sends nothing: it adopts `priorDiscover`, or a minimal result that knows nothing. */
function adoptPinned(session: ClientSession, pin: string, prior: DiscoverResult | undefined): NegotiatedEra {
  if (prior === undefined) {
    session.protocolVersion = pin;
    return {
      era: "modern",
      protocolVersion: pin,
      serverInfo: undefined,
      capabilities: {},
      instructions: undefined,
      discover: { supportedVersions: [pin], capabilities: {} },
    };
  }
  if (!validDiscoverResult(prior)) throw new TypeError("priorDiscover is not a valid DiscoverResult");
  if (!prior.supportedVersions.includes(pin)) {
    throw new NoMutualVersionError(prior.supportedVersions, [pin]);
  }
  const era = adopt(session, prior);
  session.protocolVersion = pin;
  return { ...era, protocolVersion: pin };
}
