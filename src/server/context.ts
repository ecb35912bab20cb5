import type { AuthInfo, HttpRequestView } from "../shared/dispatch.js";
import type {
  ClientCapabilities,
  ErrorObject,
  Implementation,
  JSONRPCNotification,
  LoggingLevel,
  ProgressToken,
  RequestId,
  ResultObject,
} from "../types/index.js";

/** Where the server writes operational messages (never to the wire). */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Everything a handler or middleware knows about one request. Middleware that changes something
 * passes a copy to `next`: `deriveContext(ctx, { params: { ...ctx.params, x } })` (a spread works
 * too, but reads the lazy `signal`, which builds an AbortController for the request).
 */
export interface ServerRequestContext {
  readonly method: string;
  readonly requestId: RequestId;
  /** The validated request params, `_meta` included. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | undefined;
  readonly progressToken: ProgressToken | undefined;
  readonly authInfo: AuthInfo | undefined;
  /** The HTTP request that carried this one, on HTTP transports (headers, the web `Request`). */
  readonly http?: HttpRequestView | undefined;
  /** `"pipe"` for a request that came over stdio. */
  readonly transport?: "pipe" | undefined;
  /** Fires when the client cancels the request or the transport goes away. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** Sends a notification tied to this request (progress, log message) before its response. */
  readonly notify: (notification: JSONRPCNotification) => Promise<void>;
}

/** The rest of the chain: call it with the (possibly copied) context to get the result. */
export type NextHandler = (ctx: ServerRequestContext) => Promise<ResultObject>;

/** A middleware as a function. */
export type MiddlewareFunction = (ctx: ServerRequestContext, next: NextHandler) => Promise<ResultObject>;

/** A middleware: a function or an object with a `handle` method (e.g. `RequestStateBoundary`). */
export type Middleware = MiddlewareFunction | { handle: MiddlewareFunction };

/** A request the server refused before its middleware chain ran, and the error the client got. */
export interface RefusedRequest {
  /** The method as sent: client-chosen text unless `served`. */
  readonly method: string;
  /** Whether the server has a handler for `method`. */
  readonly served: boolean;
  readonly requestId: RequestId;
  /** The params as sent, never validated: a bad envelope or bad params is why it was refused. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly error: ErrorObject;
  readonly http: HttpRequestView | undefined;
  /** `"pipe"` for a request that came over stdio. */
  readonly transport?: "pipe" | undefined;
  /** A 2025 session's negotiated version, once it has one (a modern request names its own in `_meta`). */
  readonly protocolVersion?: string | undefined;
}

/**
 * A middleware the server runs first, which also hears of each request refused before the chain
 * (a bad `_meta` envelope, an unknown method, params that fail the method's schema). On a 2025
 * session it also runs around what the session answers itself (`initialize`, `ping`,
 * `logging/setLevel`, `resources/subscribe`). The
 * `telemetry` option takes one; `serverTelemetry()` from `roundtrip-mcp/otel` makes one.
 *
 * @example
 * const telemetry: ServerTelemetry = Object.assign(async (ctx, next) => next(ctx), {
 *   refused: (request: RefusedRequest) => console.warn(`${request.method}: ${request.error.code}`),
 * });
 */
export type ServerTelemetry = MiddlewareFunction & { readonly refused?: (request: RefusedRequest) => void };

export type { AuthInfo };

/**
 * A copy of `ctx` with `changes` applied, as a spread would make it, except that `signal` stays
 * an accessor: the server builds it lazily, and a spread or `Object.assign` would read it,
 * building an AbortController for every request.
 *
 * @example
 * const inner = deriveContext(ctx, { params: { ...ctx.params, region: "eu-west-1" } });
 * return next(inner);
 */
export function deriveContext(
  ctx: ServerRequestContext,
  changes: Partial<ServerRequestContext>,
): ServerRequestContext {
  const source = ctx as unknown as Record<PropertyKey, unknown>;
  const copy: Record<PropertyKey, unknown> = {};
  // The keys a spread copies (own, enumerable, symbols too: the legacy back-channel is one), read
  // as values, except `signal`, which keeps its accessor (one descriptor lookup, not one per key).
  for (const key of Object.keys(source)) {
    if (key === "signal" || Object.hasOwn(changes, key)) continue;
    copy[key] = source[key];
  }
  for (const key of Object.getOwnPropertySymbols(source)) {
    if (Object.prototype.propertyIsEnumerable.call(source, key) && !Object.hasOwn(changes, key)) {
      copy[key] = source[key];
    }
  }
  if (!Object.hasOwn(changes, "signal")) {
    const signal = Object.getOwnPropertyDescriptor(source, "signal");
    if (signal) Object.defineProperty(copy, "signal", signal);
  }
  return Object.assign(copy, changes) as unknown as ServerRequestContext;
}
