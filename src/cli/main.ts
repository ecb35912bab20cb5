#!/usr/bin/env node
/**
 * The `roundtrip` command: talk to an MCP server (Streamable HTTP URL or stdio command) from a
 * terminal, answering its elicitation, sampling and roots questions as they come.
 * Run `roundtrip --help` for the usage.
 */
import { ExitCode } from "./exit.js";
import { run } from "./run.js";

/** How long the process may linger after the run (open handles) before it is ended. */
const EXIT_GRACE_MS = 1_500;

const interrupt = new AbortController();
process.on("SIGINT", () => {
  // First Ctrl-C abandons the request (the client closes cleanly); a second one leaves at once.
  if (interrupt.signal.aborted) process.exit(ExitCode.Aborted);
  interrupt.abort();
  setTimeout(() => process.exit(ExitCode.Aborted), EXIT_GRACE_MS * 2).unref();
});

// Write errors reach run() through each write's callback (EPIPE, a reader that stopped early,
// ends the run quietly); unheard, the stream's 'error' event would crash the process.
process.stdout.on("error", () => {});
// stderr only carries messages about the run: with its reader gone there is nobody left to tell,
// and the exit code still says how the run ended.
process.stderr.on("error", () => {});

const code = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  platform: process.platform,
  signal: interrupt.signal,
});
process.exitCode = code;
// Output is flushed by now; do not let a stray handle (a paused stdin, a socket) keep us alive.
setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
