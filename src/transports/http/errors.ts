/**
 * Local failures of the HTTP client transport. They extend `RoundtripError` and carry no JSON-RPC
 * code, so they can never be mistaken for an error the server sent (those arrive as `McpError`).
 */
import { RoundtripError } from "../../shared/errors.js";
import type { ErrorObject } from "../../types/index.js";

/**
 * The exchange failed without a JSON-RPC answer: network error, a stream that closed before the
 * response, or a response that is not MCP.
 *
 * @example
 * try { await session.callTool("deploy", {}); } catch (e) { if (e instanceof HttpTransportError) retryLater(); }
 */
export class HttpTransportError extends RoundtripError {}

/** The default bound on one response body or one SSE event a client reads (as stdio bounds a line). */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * The server sent more than the client reads in one answer (`maxResponseBytes`): the exchange is
 * abandoned rather than buffered without end.
 *
 * @example
 * catch (e) { if (e instanceof ResponseTooLargeError) console.error("the server's answer is too large"); }
 */
export class ResponseTooLargeError extends HttpTransportError {}

/**
 * The server answered with an HTTP error status and no usable JSON-RPC error (or with 401/403,
 * which are always reported this way so auth layers can see the status and challenge).
 *
 * @example
 * catch (e) { if (e instanceof HttpStatusError && e.status === 401) await reauthorize(e.wwwAuthenticate); }
 */
export class HttpStatusError extends HttpTransportError {
  /** The HTTP status. */
  readonly status: number;
  /** The `WWW-Authenticate` challenge, when the server sent one. */
  readonly wwwAuthenticate: string | undefined;
  /** The JSON-RPC error the body carried, when it carried one. */
  readonly error: ErrorObject | undefined;
  /** The `DPoP-Nonce` the server asked proofs to carry (RFC 9449 §9), when it sent one. */
  readonly dpopNonce: string | undefined;

  constructor(
    status: number,
    message: string,
    wwwAuthenticate?: string,
    error?: ErrorObject,
    dpopNonce?: string,
  ) {
    super(message);
    this.status = status;
    this.wwwAuthenticate = wwwAuthenticate;
    this.error = error;
    this.dpopNonce = dpopNonce;
  }
}
