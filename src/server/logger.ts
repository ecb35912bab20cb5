import type { Logger } from "./context.js";

/** The default logger: one line per message on stderr (never stdout, which stdio servers own). */
export const consoleLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message) => process.stderr.write(`[roundtrip] warn: ${message}\n`),
  error: (message) => process.stderr.write(`[roundtrip] error: ${message}\n`),
};

/** A logger that drops everything. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
