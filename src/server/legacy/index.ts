/**
 * Serving 2025-11-25 (and older handshake-era) clients from the same server and handlers: the
 * `initialize` handshake, sessions, the back-channel and the opt-in shim.
 */
export { BACK_CHANNEL, type BackChannel, backChannelOf } from "./back-channel.js";
export {
  DualEraConnection,
  hasModernEnvelope,
  openDualEraConnection,
  opensLegacySession,
} from "./connection.js";
export { legacyCapabilities, negotiateLegacyVersion } from "./initialize.js";
export {
  DEFAULT_LEGACY_REQUEST_TIMEOUT_MS,
  DEFAULT_SHIM_MAX_ROUNDS,
  DEFAULT_SHIM_ROUND_TIMEOUT_MS,
  type LegacyOptions,
  type LegacyShimOptions,
  type ResolvedLegacyOptions,
  resolveLegacyOptions,
} from "./options.js";
export type { LegacyCore, SessionFacts } from "./serve.js";
export { LegacyService, legacyServiceOf } from "./service.js";
export { type LegacyRequestContext, LegacySession } from "./session.js";
