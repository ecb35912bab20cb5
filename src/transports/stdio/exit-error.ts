import { RoundtripError } from "../../shared/errors.js";

/**
 * The server process exited without being asked to. Reported through `onerror`; pending requests
 * then fail with `ConnectionClosedError` (the spec: in-flight requests are lost and may be retried).
 *
 * @example
 * transport.onerror = (error) => {
 *   if (error instanceof StdioServerExitError) restartLater(error.exitCode, error.signal);
 * };
 */
export class StdioServerExitError extends RoundtripError {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;

  constructor(exitCode: number | null, signal: NodeJS.Signals | null) {
    super(
      `The MCP server process exited unexpectedly (${signal === null ? `code ${exitCode}` : `signal ${signal}`})`,
    );
    this.exitCode = exitCode;
    this.signal = signal;
  }
}
