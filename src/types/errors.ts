/** JSON-RPC and MCP error codes used on the 2026-07-28 wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** A standard HTTP header is missing, malformed or disagrees with the body. */
  HeaderMismatch: -32020,
  /** The request needs a client capability the client did not declare. */
  MissingRequiredClientCapability: -32021,
  /** The requested protocol version is not served here. */
  UnsupportedProtocolVersion: -32022,
  /** Legacy (2025-11-25) resource-not-found; accepted from peers, never emitted on the modern wire. */
  LegacyResourceNotFound: -32002,
  /** Legacy (2025-11-25) URL elicitation required; never emitted on the modern wire. */
  LegacyUrlElicitationRequired: -32042,
} as const;

/** One of the {@link ErrorCode} values. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The JSON-RPC `error` member. */
export type ErrorObject = {
  code: number;
  message: string;
  data?: unknown;
};

/**
 * An error that crosses the wire as a JSON-RPC error with its own code, message and data.
 * Thrown by handlers to answer with a specific error; thrown by clients when the peer answered one.
 *
 * @example
 * throw new McpError(ErrorCode.InvalidParams, "Unknown tool: nope");
 */
export class McpError extends Error {
  readonly code: number;
  readonly data: unknown;
  /**
   * The HTTP status this error travels with on Streamable HTTP, when the spec fixes one beyond
   * what the code implies (e.g. 400 for a malformed `_meta` envelope, whose code -32602 is
   * otherwise answered in-band). Never serialized.
   */
  readonly httpStatus: number | undefined;

  constructor(code: number, message: string, data?: unknown, options: { httpStatus?: number } = {}) {
    super(message);
    this.name = "McpError";
    this.code = code;
    this.data = data;
    this.httpStatus = options.httpStatus;
  }

  /** The JSON-RPC `error` member for this error. */
  toErrorObject(): ErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** Rebuilds an error received from a peer. */
  static fromErrorObject(error: ErrorObject): McpError {
    return new McpError(error.code, error.message, error.data);
  }
}

/** The frozen rejection every request-state verification failure answers with. */
export const INVALID_REQUEST_STATE_MESSAGE = "Invalid or expired requestState";
/** The `data.reason` of that rejection, which tells it from other invalid params. */
export const INVALID_REQUEST_STATE_REASON = "invalid_request_state";

/**
 * Builds the one error that every inbound request-state failure answers with.
 *
 * @example
 * if (!state) throw invalidRequestStateError(); // -32602, HTTP 400
 */
export function invalidRequestStateError(): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    INVALID_REQUEST_STATE_MESSAGE,
    { reason: INVALID_REQUEST_STATE_REASON },
    { httpStatus: 400 },
  );
}

/**
 * The HTTP status an error response travels with: `explicit` when the error carries its own; 400
 * for parse, invalid-request, header, capability and version errors; 404 for an unknown method;
 * otherwise 200 (in-band).
 *
 * @example
 * httpStatusForError(ErrorCode.MethodNotFound); // 404
 * httpStatusForError(ErrorCode.InvalidParams); // 200
 */
export function httpStatusForError(code: number, explicit?: number): number {
  if (explicit !== undefined) return explicit;
  switch (code) {
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
    case ErrorCode.InvalidRequest:
    case ErrorCode.ParseError:
      return 400;
    case ErrorCode.MethodNotFound:
      return 404;
    default:
      return 200;
  }
}
