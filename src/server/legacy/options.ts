/** How a server serves 2025-era (handshake) clients. */

/**
 * The legacy shim: a hand-built `InputRequiredResult` returned on a 2025 session is fulfilled
 * through the back-channel (real `elicitation/create`, `sampling/createMessage`, `roots/list`
 * requests to the client), then the handler is re-entered with the answers and the sealed state.
 *
 * @example
 * new MCPServer("fleet", { legacyShim: { maxRounds: 4, roundTimeoutMs: 60_000 } });
 */
export interface LegacyShimOptions {
  /** Rounds fulfilled before the request fails (default 8). */
  maxRounds?: number;
  /** Bound on one round: every server → client request of it, together (default 600 000 ms). */
  roundTimeoutMs?: number;
}

/**
 * Options of the legacy layer (`Server` / `MCPServer` option `legacy`).
 *
 * @example
 * new Server("svc", { legacy: { shim: true, requestTimeoutMs: 120_000 } });
 */
export interface LegacyOptions {
  /** Fulfil hand-built `InputRequiredResult`s through the back-channel. Default off: they answer -32603. */
  shim?: boolean | LegacyShimOptions;
  /** How long one server → client request (a resolver's question) may wait (default 600 000 ms). */
  requestTimeoutMs?: number;
}

/** The defaults of the shim (the official SDK's values). */
export const DEFAULT_SHIM_MAX_ROUNDS = 8;
/** The default bound on one round of the shim, in ms (10 minutes). */
export const DEFAULT_SHIM_ROUND_TIMEOUT_MS = 600_000;
/** How long one server → client request may wait by default, in ms (10 minutes). */
export const DEFAULT_LEGACY_REQUEST_TIMEOUT_MS = 600_000;

/** Options with every default applied. */
export interface ResolvedLegacyOptions {
  readonly shim: { readonly maxRounds: number; readonly roundTimeoutMs: number } | undefined;
  readonly requestTimeoutMs: number;
}

function positive(name: string, value: number | undefined, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0) || (integer && !Number.isInteger(value))) {
    throw new RangeError(`${name} must be a positive ${integer ? "integer" : "number"}, got ${value}`);
  }
  return value;
}

/**
 * Applies the defaults and refuses nonsense at construction time.
 *
 * @example
 * resolveLegacyOptions({ shim: true }).shim; // { maxRounds: 8, roundTimeoutMs: 600000 }
 */
export function resolveLegacyOptions(options: LegacyOptions = {}): ResolvedLegacyOptions {
  const shim = options.shim === true ? {} : options.shim === false ? undefined : options.shim;
  return {
    shim: shim && {
      maxRounds: positive("legacyShim.maxRounds", shim.maxRounds, DEFAULT_SHIM_MAX_ROUNDS, true),
      roundTimeoutMs: positive(
        "legacyShim.roundTimeoutMs",
        shim.roundTimeoutMs,
        DEFAULT_SHIM_ROUND_TIMEOUT_MS,
      ),
    },
    requestTimeoutMs: positive(
      "legacy.requestTimeoutMs",
      options.requestTimeoutMs,
      DEFAULT_LEGACY_REQUEST_TIMEOUT_MS,
    ),
  };
}
