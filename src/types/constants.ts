/**
 * The wire's named constants, in a module without zod: the per-message path imports these and
 * the generated checks, never the schemas.
 */

/** Reserved `_meta` keys of the 2026-07-28 revision. */
export const MetaKey = {
  ProtocolVersion: "io.modelcontextprotocol/protocolVersion",
  ClientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  ClientInfo: "io.modelcontextprotocol/clientInfo",
  LogLevel: "io.modelcontextprotocol/logLevel",
  ServerInfo: "io.modelcontextprotocol/serverInfo",
  SubscriptionId: "io.modelcontextprotocol/subscriptionId",
  ProgressToken: "progressToken",
  TraceParent: "traceparent",
  TraceState: "tracestate",
  Baggage: "baggage",
} as const;

/** The core result discriminators. Extensions may add values (e.g. `"task"`). */
export const ResultType = { Complete: "complete", InputRequired: "input_required" } as const;
/** A core `resultType`: `"complete"` or `"input_required"`. */
export type CoreResultType = (typeof ResultType)[keyof typeof ResultType];

/** Logging levels in increasing severity, for `logLevel` gating. */
export const LOGGING_LEVEL_ORDER = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/**
 * Methods and notifications of the handshake era.
 *
 * @example
 * if (message.method === LegacyMethod.Initialize) openLegacySession();
 */
export const LegacyMethod = {
  Initialize: "initialize",
  Ping: "ping",
  SetLevel: "logging/setLevel",
  Subscribe: "resources/subscribe",
  Unsubscribe: "resources/unsubscribe",
  Initialized: "notifications/initialized",
  ElicitationComplete: "notifications/elicitation/complete",
  RootsListChanged: "notifications/roots/list_changed",
} as const;
