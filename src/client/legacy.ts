import type { McpError } from "../types/index.js";
import type { ClientCallbacks } from "./callbacks.js";
import { LegacyUnavailableError } from "./errors.js";
import type { NegotiatedEra } from "./negotiation.js";
import type { ClientSession } from "./session.js";

/**
 * What the legacy handshake gets to work with.
 *
 * @example
 * const hook: LegacyConnect = async ({ session, evidence }) => initialize(session, evidence);
 */
export interface LegacyConnectContext {
  readonly session: ClientSession;
  /** Why the probe judged the server legacy; undefined when `mode: "legacy"` was explicit. */
  readonly evidence: string | undefined;
  /** The probe's JSON-RPC error, when that was the evidence. */
  readonly probeError?: McpError;
  /** The same callbacks serve the legacy back-channel (requestId = the JSON-RPC id there). */
  readonly callbacks: ClientCallbacks;
}

/**
 * Runs the 2025-11-25 `initialize` handshake over the session and describes the era it landed on.
 * If the server answers the handshake with -32022 (it is modern after all), throw that McpError:
 * negotiation then re-probes once at a version the server names.
 *
 * @example
 * const legacyConnect: LegacyConnect = async ({ session }) => ({
 *   era: "legacy", protocolVersion: "2025-11-25", serverInfo, capabilities, instructions: undefined,
 * });
 */
export type LegacyConnect = (context: LegacyConnectContext) => Promise<NegotiatedEra>;

/**
 * The single place that knows about the legacy client. Until it exists, every legacy verdict
 * ends here with a clear error.
 */
export const legacyConnect: LegacyConnect = async ({ evidence }) => {
  throw new LegacyUnavailableError(evidence);
};
