/** The modern revision: per-request `_meta`, no handshake, multi-round-trip requests. */
export const LATEST_PROTOCOL_VERSION = "2026-07-28";
/** The newest handshake-era revision. */
export const LATEST_LEGACY_PROTOCOL_VERSION = "2025-11-25";

/** Revisions served statelessly with the `_meta` envelope, newest first. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(["2026-07-28"]);
/** Handshake-era revisions (reached only through `initialize`), newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
]);

/** Every revision this SDK knows, oldest first: the registry that orders versions. */
export const KNOWN_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  ...[...LEGACY_PROTOCOL_VERSIONS].reverse(),
  ...[...MODERN_PROTOCOL_VERSIONS].reverse(),
]);

/**
 * True when the version is in the registry.
 *
 * @example
 * isKnownProtocolVersion("2025-06-18"); // true
 */
export function isKnownProtocolVersion(version: unknown): version is string {
  return typeof version === "string" && KNOWN_PROTOCOL_VERSIONS.includes(version);
}

/**
 * True for a modern (2026-07-28 or later, envelope-based) revision this SDK knows.
 *
 * @example
 * isModernProtocolVersion("2026-07-28"); // true
 */
export function isModernProtocolVersion(version: unknown): version is string {
  return typeof version === "string" && MODERN_PROTOCOL_VERSIONS.includes(version);
}

/**
 * True for a handshake-era revision this SDK knows.
 *
 * @example
 * isLegacyProtocolVersion("2026-07-28"); // false
 */
export function isLegacyProtocolVersion(version: unknown): version is string {
  return typeof version === "string" && LEGACY_PROTOCOL_VERSIONS.includes(version);
}

/**
 * Whether `version` is at least `minimum`, by registry order. An unknown `version` is never at
 * least anything; an unknown `minimum` is a programming error and throws.
 *
 * @example
 * protocolVersionAtLeast("2026-07-28", "2025-11-25"); // true
 */
export function protocolVersionAtLeast(version: string | undefined, minimum: string): boolean {
  const floor = KNOWN_PROTOCOL_VERSIONS.indexOf(minimum);
  if (floor < 0) throw new Error(`Unknown minimum protocol version: ${minimum}`);
  if (version === undefined) return false;
  const index = KNOWN_PROTOCOL_VERSIONS.indexOf(version);
  return index >= 0 && index >= floor;
}
