/**
 * Errors raised locally by the SDK. They carry no JSON-RPC code, so they can never be mistaken
 * for an error the peer sent (which is always an `McpError`).
 *
 * @example
 * if (error instanceof RoundtripError) console.error("failed here, not at the server:", error.message);
 */
export class RoundtripError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The connection closed before the response arrived.
 *
 * @example
 * if (error instanceof ConnectionClosedError) client = await Client.connect(url);
 */
export class ConnectionClosedError extends RoundtripError {}

/**
 * No response arrived within the request's timeout.
 *
 * @example
 * await session.callTool("report", {}, { timeoutMs: 5_000 }); // rejects with it after 5 s without an answer
 */
export class RequestTimeoutError extends RoundtripError {}

/**
 * The caller aborted the request; `cause` is the abort signal's reason.
 *
 * @example
 * const controller = new AbortController();
 * const call = session.callTool("report", {}, { signal: controller.signal });
 * controller.abort(); // `call` rejects with a RequestAbortedError
 */
export class RequestAbortedError extends RoundtripError {}

/**
 * The peer answered something the protocol does not allow (e.g. an unknown `resultType`).
 *
 * @example
 * if (error instanceof ProtocolError) console.error("the server broke the protocol:", error.message);
 */
export class ProtocolError extends RoundtripError {}

/** An error's message for a log line or a local error text (anything else as text). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error's stack (else its message) for a log line. */
export function traceOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
