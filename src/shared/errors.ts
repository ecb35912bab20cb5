/**
 * Errors raised locally by the SDK. They carry no JSON-RPC code, so they can never be mistaken
 * for an error the peer sent (which is always an `McpError`).
 */
export class RoundtripError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The connection closed before the response arrived. */
export class ConnectionClosedError extends RoundtripError {}

/** No response arrived within the request's timeout. */
export class RequestTimeoutError extends RoundtripError {}

/** The caller aborted the request; `cause` is the abort signal's reason. */
export class RequestAbortedError extends RoundtripError {}

/** The peer answered something the protocol does not allow (e.g. an unknown `resultType`). */
export class ProtocolError extends RoundtripError {}

/** An error's message for a log line or a local error text (anything else as text). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error's stack (else its message) for a log line. */
export function traceOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
