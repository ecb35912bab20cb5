import { ProtocolError, RequestTimeoutError } from "../shared/errors.js";
import { timerDelay } from "../shared/timers.js";
import {
  describeFailure,
  isLegacyProtocolVersion,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  LegacyMethod,
  validInitializeResult,
} from "../types/core.js";
import type { McpError } from "../types/index.js";
import type { InitializeResult } from "../types/legacy.js";
import type { ClientCallbacks } from "./callbacks.js";
import { NoMutualVersionError } from "./errors.js";
import { answerServerRequests } from "./legacy-requests.js";
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
 * The 2025 handshake: `initialize` (no envelope, our newest handshake-era version), a check that
 * the server answered a version we speak, then `notifications/initialized`. From then on the
 * session sends no envelope, and the server's requests (`ping`, `elicitation/create`,
 * `sampling/createMessage`, `roots/list`) are answered by the same callbacks as a 2026
 * `InputRequiredResult`. A session log level is set with `logging/setLevel` when the server logs.
 * On failure the session is left as it was (a -32022 lets negotiation re-probe).
 *
 * @example
 * const era = await legacyConnect({ session, evidence: undefined, callbacks: { elicitation } });
 * era.protocolVersion; // "2025-11-25"
 */
export const legacyConnect: LegacyConnect = async ({ session, callbacks }) => {
  const before = { era: session.era, protocolVersion: session.protocolVersion };
  session.era = "legacy";
  session.protocolVersion = LATEST_LEGACY_PROTOCOL_VERSION;
  let result: InitializeResult;
  try {
    const raw = await session.request(LegacyMethod.Initialize, {
      protocolVersion: LATEST_LEGACY_PROTOCOL_VERSION,
      capabilities: session.capabilities,
      clientInfo: session.clientInfo,
    });
    if (!validInitializeResult(raw)) {
      throw new ProtocolError(
        `The server answered initialize with a malformed result (${describeFailure(validInitializeResult, raw)})`,
      );
    }
    result = raw as InitializeResult;
    if (!isLegacyProtocolVersion(result.protocolVersion)) {
      throw new NoMutualVersionError([result.protocolVersion], LEGACY_PROTOCOL_VERSIONS);
    }
  } catch (error) {
    session.era = before.era;
    session.protocolVersion = before.protocolVersion;
    throw error;
  }
  session.protocolVersion = result.protocolVersion;
  answerServerRequests(session, callbacks, () => result.serverInfo);
  await initialized(session);
  if (session.logLevel !== undefined && result.capabilities.logging !== undefined) {
    await session.request(LegacyMethod.SetLevel, { level: session.logLevel });
  }
  return {
    era: "legacy",
    protocolVersion: result.protocolVersion,
    serverInfo: result.serverInfo,
    capabilities: result.capabilities,
    instructions: result.instructions,
  };
};

/**
 * Sends `notifications/initialized` within the session's timeout: over HTTP it is a POST the server
 * may never answer, and connect must not wait on it longer than on the handshake's requests. A
 * failed handshake closes the session, which abandons the POST.
 */
async function initialized(session: ClientSession): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new RequestTimeoutError(
            `The server did not take ${LegacyMethod.Initialized} within ${session.timeoutMs} ms`,
          ),
        ),
      timerDelay(session.timeoutMs),
    );
  });
  try {
    await Promise.race([session.connection.notify(LegacyMethod.Initialized), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
