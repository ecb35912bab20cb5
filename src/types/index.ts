/**
 * The 2026-07-28 wire: zod schemas, inferred types, error codes, versions and `_meta` keys.
 * Depends on nothing else in roundtrip.
 */
export * from "./capabilities.js";
export * from "./common.js";
export * from "./completion.js";
export * from "./content.js";
export * from "./discover.js";
export * from "./errors.js";
export * from "./guards.js";
export * from "./input.js";
export * from "./jsonrpc.js";
export * from "./meta.js";
export * from "./methods.js";
export * from "./notifications.js";
export * from "./prompts.js";
export * from "./resources.js";
export * from "./result.js";
export * from "./tasks.js";
export * from "./tools.js";
export * from "./versions.js";
