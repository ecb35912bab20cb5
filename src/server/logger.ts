import type { Logger } from "./context.js";

let guarded = false;

/** Writes one line to stderr; a closed stderr (EPIPE) must never crash a server. */
function writeStderr(line: string): void {
  if (!guarded) {
    guarded = true;
    process.stderr.on("error", () => {});
  }
  process.stderr.write(line);
}

/** The default logger: one line per message on stderr (never stdout, which stdio servers own). */
export const consoleLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message) => writeStderr(`[roundtrip] warn: ${message}\n`),
  error: (message) => writeStderr(`[roundtrip] error: ${message}\n`),
};

/** A logger that drops everything. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
