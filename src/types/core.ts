/**
 * The zod-free part of the wire: constants, error codes, versions, the method table, guards and
 * the generated checks. Everything the per-message path needs; the zod schemas (index.ts) load
 * only on demand.
 */
export * from "./checks.generated.js";
export * from "./constants.js";
export * from "./errors.js";
export * from "./guards.js";
export * from "./method-table.js";
export * from "./tasks.js";
export * from "./versions.js";
