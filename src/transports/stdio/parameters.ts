/**
 * How to launch a stdio server.
 *
 * @example
 * const params: StdioServerParameters = { command: "npx", args: ["-y", "my-mcp-server"], stderr: "pipe" };
 */
export interface StdioServerParameters {
  command: string;
  args?: readonly string[];
  /**
   * Merged over `defaultStdioEnv()`; an `undefined` value removes a variable. The full parent
   * environment is only passed when asked for: `env: process.env`.
   */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /**
   * The server's stderr (free-form logs). `"inherit"` (default) shows it where the host's own
   * stderr goes; `"pipe"` exposes it as `transport.stderr` (read it, or the server may block once
   * the pipe fills); `"ignore"` discards it.
   */
  stderr?: "inherit" | "pipe" | "ignore";
  /**
   * Wait in ms (≥ 0) at each shutdown step: stdin closed → SIGTERM → SIGKILL (default 2 s). Off Windows the
   * signals go to the server's process group, so what a wrapper (`sh -c`, `npx`) started ends too.
   */
  closeTimeoutMs?: number;
  /**
   * Longest accepted line from the server, a positive integer (default 32 MiB). A longer one is
   * dropped and reported; the request it answered fails, when the line's first bytes name it.
   */
  maxLineBytes?: number;
}
