import type { JSONRPCNotification, JSONRPCResponse } from "../types/index.js";

/**
 * What a verified access token says about its bearer. Filled by a transport's auth hook
 * (HTTP `verifyToken`) and read by request-state principal binding.
 */
export interface AuthInfo {
  /** The raw bearer token. Never logged. */
  readonly token: string;
  /** The OAuth client the token was issued to. */
  readonly clientId: string;
  readonly scopes: readonly string[];
  /** The token's `iss` claim, when the verifier knows it. */
  readonly issuer?: string;
  /** The token's `sub` claim, when the verifier knows it. */
  readonly subject?: string;
  /** Expiry, in seconds since the epoch: an HTTP endpoint refuses the token from then on. */
  readonly expiresAt?: number;
  /**
   * The resource the token was issued for (its audience, RFC 8707), when the verifier knows it: an
   * HTTP endpoint with `protectedResource` refuses a token for another resource.
   */
  readonly resource?: string;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * Where the Streamable HTTP endpoint leaves the -32020 error of a `tools/call` whose `Mcp-Param-*`
 * headers do not match its arguments, for an `MCPServer` to raise once it has found the tool
 * visible to the caller: a tool hidden from the caller is refused exactly as an unknown one, and
 * its headers never tell that it exists.
 */
export const PARAM_HEADER_MISMATCH: unique symbol = Symbol("roundtrip.paramHeaders");

/**
 * The HTTP request that carried a message, for handlers that need more than MCP passes on (a
 * tenant header, a forwarded client address).
 *
 * @example
 * const tenant = ctx.http?.header("x-tenant"); // null when absent, undefined off HTTP
 */
export interface HttpRequestView {
  /** A header's value (any case of `name`; repeats combined as `Headers.get` does), or null. */
  header(name: string): string | null;
  /** The whole request as a web `Request` (built on first use where the transport has none). */
  request(): Request;
  /**
   * The scopes the endpoint's `requiredScopes` demanded of this call, all held by its token
   * (undefined when it demanded none). A task remembers them: only a token holding them follows it.
   */
  readonly requiredScopes?: readonly string[];
  /** See `PARAM_HEADER_MISMATCH`. */
  readonly [PARAM_HEADER_MISMATCH]?: Error;
}

/** What a transport knows about one incoming request. */
export interface DispatchContext {
  /** Request-scoped notifications (progress, logs) go here, before the response. */
  notify?: (notification: JSONRPCNotification) => void | Promise<void>;
  /**
   * Aborted when the client cancels or disconnects. May be a getter that builds it on first read
   * (the transports hand over a `LazyDispatchContext`); passing the context on as it is keeps it
   * lazy, a spread builds it.
   */
  signal?: AbortSignal;
  /**
   * True once the request was cancelled. A transport whose `signal` is a lazy getter supplies
   * this, so the server can check for cancellation without building a signal nobody listens to.
   */
  cancelled?: () => boolean;
  /** Filled by the transport's auth hook. */
  authInfo?: AuthInfo;
  /** The HTTP request that carried the message (HTTP transports only). */
  http?: HttpRequestView;
  /** `"pipe"` over stdio (the conventions' `network.transport`; HTTP is known by `http`). */
  transport?: "pipe" | undefined;
}

/**
 * Anything that serves requests through the dispatch core (`Server`, `MCPServer`): transports
 * depend on this shape, never on the server classes.
 */
export interface Dispatcher {
  /** Serves one request; resolves `undefined` when nothing may be sent (cancelled, or a notification). */
  dispatch(message: unknown, context?: DispatchContext): Promise<JSONRPCResponse | undefined>;
}

/**
 * Key under which `dispatch` attaches the HTTP status of an error response (a symbol, so it
 * never reaches the serialized wire). Read with `httpStatusOf`.
 */
export const HTTP_STATUS: unique symbol = Symbol("roundtrip.httpStatus");

/**
 * The HTTP status a dispatched response should travel with (200 unless the error says otherwise).
 *
 * @example
 * const response = await server.dispatch(message);
 * if (response) return Response.json(response, { status: httpStatusOf(response) });
 */
export function httpStatusOf(response: JSONRPCResponse): number {
  return (response as { [HTTP_STATUS]?: number })[HTTP_STATUS] ?? 200;
}
