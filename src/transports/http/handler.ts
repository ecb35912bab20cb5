/**
 * The Streamable HTTP server endpoint (2026-07-28) as a web-standard `fetch` handler: one POST,
 * one JSON-RPC message, answered with JSON or with a request-scoped SSE stream.
 */
import type { Logger, ServerTelemetry } from "../../server/context.js";
import { legacyServiceOf } from "../../server/legacy/service.js";
import { type Dispatcher, type HttpRequestView, PARAM_HEADER_MISMATCH } from "../../shared/dispatch.js";
import { messageOf } from "../../shared/errors.js";
import {
  ErrorCode,
  isCoreMethod,
  McpError,
  validJSONRPCNotification,
  validJSONRPCRequest,
} from "../../types/core.js";
import { requestIdOf } from "../../types/record.js";
import {
  acceptsJsonAndEventStream,
  emptyReply,
  errorResponse,
  headerMismatch,
  isIdentityEncoding,
  isJsonContentType,
  maxBodyBytesOf,
  type PlainReply,
  type Reply,
  toResponse,
} from "./body.js";
import { listedOrigin, preflight, withCorsHeaders } from "./cors.js";
import type { ResponseMode } from "./exchange.js";
import {
  ANONYMOUS,
  authenticate,
  checkHostAndOrigin,
  checkScopes,
  checksAuth,
  neededScopes,
} from "./guards.js";
import type { HttpHandlerOptions } from "./handler-options.js";
import { type Incoming, WebIncoming } from "./incoming.js";
import { LegacyHttpEndpoint, SESSION_HEADER } from "./legacy-endpoint.js";
import { SSE_SESSION_PARAM } from "./legacy-sessions.js";
import type { HttpPlusSse, LegacySseEndpoint } from "./legacy-sse-server.js";
import { checkProtectedResource } from "./protected-resource.js";
import { respond } from "./respond.js";
import {
  checkStandardHeaders,
  paramHeaderMismatch,
  type RequestBody,
  type ToolInputSchemaLookup,
} from "./validate.js";

export type { HttpHandlerOptions } from "./handler-options.js";

/**
 * A web-standard request handler.
 *
 * @example
 * const handler: FetchHandler = createHttpHandler(server);
 * app.post("/mcp", (c) => handler(c.req.raw)); // Hono
 */
export type FetchHandler = (request: Request) => Promise<Response>;

/** The validation ladder and dispatch behind a handler, over any request representation. */
export type Endpoint = (request: Incoming) => Promise<Reply>;

const ENDPOINT = Symbol("roundtrip-mcp.http.endpoint");

/**
 * The endpoint inside a handler made by `createHttpHandler`, so `toNodeListener` can serve
 * `node:http` requests through it without building a `Request`/`Response` pair.
 */
export function endpointOf(handler: FetchHandler): Endpoint | undefined {
  return (handler as FetchHandler & { [ENDPOINT]?: Endpoint })[ENDPOINT];
}

const CLOSE_SESSIONS = Symbol("roundtrip-mcp.http.close-sessions");

/** Ends what the handler holds open; with `listensOnly`, just its listen streams. */
type CloseSessions = (listensOnly?: boolean) => void;

/**
 * Ends what a handler made by `createHttpHandler` holds open: the `subscriptions/listen` streams it
 * serves, each answered with its closing result (those of other handlers or transports of the same
 * server stay open), and its 2025 sessions and HTTP+SSE streams, whose GET streams end cleanly and
 * whose work is aborted. `serveHttp`'s `close()` does this itself; a handler mounted in your own
 * server (`toNodeListener`) needs it at shutdown, since those streams never end by themselves. Does
 * nothing for another handler.
 *
 * @example
 * process.once("SIGTERM", () => {
 *   closeHttpSessions(handler);
 *   server.close();
 * });
 */
export function closeHttpSessions(handler: FetchHandler): void {
  (handler as FetchHandler & { [CLOSE_SESSIONS]?: CloseSessions })[CLOSE_SESSIONS]?.();
}

/** Ends only the listen streams the handler serves, each with its closing result (`serveHttp` does so first). */
export function endListenStreams(handler: FetchHandler): void {
  (handler as FetchHandler & { [CLOSE_SESSIONS]?: CloseSessions })[CLOSE_SESSIONS]?.(true);
}

const DEFAULT_KEEP_ALIVE_MS = 15_000;
const ALLOW = { allow: "POST" };
const IDENTITY_ONLY = { "accept-encoding": "identity" };
const ACCEPTED: PlainReply = Object.freeze(emptyReply(202));

/** A dispatcher that knows its tools' schemas (`MCPServer.toolInputSchema`) needs no option. */
function schemaLookupOf(dispatcher: Dispatcher): ToolInputSchemaLookup | undefined {
  const candidate = dispatcher as Dispatcher & { toolInputSchema?: unknown };
  if (typeof candidate.toolInputSchema !== "function") return undefined;
  const lookup = candidate.toolInputSchema as ToolInputSchemaLookup;
  return (name) => lookup.call(dispatcher, name);
}

/**
 * Reports a refusal of the endpoint's own (headers, `Accept`, scopes) to the dispatcher's telemetry,
 * as the server reports those it makes itself (see `ServerTelemetry`); returns the reply.
 */
function reporterOf(dispatcher: Dispatcher, logger: Pick<Logger, "error"> | undefined) {
  const refused = (dispatcher as Dispatcher & { telemetry?: ServerTelemetry }).telemetry?.refused;
  return (request: Incoming, rpc: RequestBody, reply: PlainReply): PlainReply => {
    const error = reply.error;
    if (!refused || error === undefined) return reply;
    try {
      const { method, id: requestId } = rpc;
      refused({
        method,
        served: isCoreMethod(method),
        requestId,
        params: rpc.params ?? {},
        error,
        http: request,
      });
    } catch (failure) {
      logger?.error(`[http] telemetry failed on a refused request: ${messageOf(failure)}`);
    }
    return reply;
  };
}

function invalidRequest(id: string | number | null, message: string): PlainReply {
  return errorResponse(400, id, ErrorCode.InvalidRequest, message);
}

/**
 * Builds the MCP endpoint for a dispatcher (`Server`, `MCPServer`). Mount it on any web-standard
 * runtime (Hono, Bun, Deno, Workers) or on `node:http` with `toNodeListener`/`serveHttp`. Rungs, in
 * order: Host/Origin (421/403), POST only (405), auth (401), `Content-Type` and `Content-Encoding`
 * (415), size (413), JSON (400/-32700), one JSON-RPC message (400/-32600), notifications (202),
 * `Accept` (406), headers vs body (400/-32020), then the dispatcher's own ladder.
 *
 * @example
 * const handler = createHttpHandler(server, { allowedHosts: ["mcp.example.com"] });
 * export default { fetch: handler }; // Workers / Bun / Deno
 */
export function createHttpHandler(dispatcher: Dispatcher, options: HttpHandlerOptions = {}): FetchHandler {
  const { endpoint: bare, closeSessions } = createEndpoint(dispatcher, options);
  const endpoint = withCors(bare, options);
  const handler: FetchHandler = async (request) => toResponse(await endpoint(new WebIncoming(request)));
  return Object.assign(handler, { [ENDPOINT]: endpoint, [CLOSE_SESSIONS]: closeSessions });
}

function createEndpoint(
  dispatcher: Dispatcher,
  options: HttpHandlerOptions,
): { endpoint: Endpoint; closeSessions: CloseSessions } {
  const maxBodyBytes = maxBodyBytesOf(options.maxBodyBytes);
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const report = (message: string) => options.logger?.warn(`[http] ${message}`);
  const toolInputSchema = options.toolInputSchema ?? schemaLookupOf(dispatcher);
  // The dispatcher's own schemas (MCPServer): a mismatch is left for it to raise once it has found
  // the tool visible to the caller. A lookup passed as an option knows nothing of visibility.
  const deferMismatch = options.toolInputSchema === undefined;
  const service = options.legacy === false ? undefined : legacyServiceOf(dispatcher);
  const legacy =
    service && new LegacyHttpEndpoint(service, { ...options.legacy, keepAliveMs, logger: options.logger });
  const sse = legacySseEndpoint(dispatcher, service !== undefined, options, keepAliveMs);
  // Fail at setup, not on the first 401.
  if (options.resourceMetadataUrl !== undefined) new URL(String(options.resourceMetadataUrl));
  if (options.protectedResource !== undefined) checkProtectedResource(options.protectedResource);
  if (options.requiredScopes !== undefined && options.verifyToken === undefined) {
    throw new TypeError("requiredScopes needs verifyToken: scopes are read from the verified token");
  }
  const anonymousOnly = !checksAuth(options);
  const reportRefusal = reporterOf(dispatcher, options.logger);
  const responseMode = checkResponseMode(options.responseMode);
  /** How to end each listen stream this handler serves (never the server's other streams). */
  const listens = new Set<() => void>();
  const closeSessions: CloseSessions = (listensOnly) => {
    for (const end of listens) end();
    if (listensOnly) return;
    legacy?.sessions.closeAll();
    sse?.closeAll();
  };

  const endpoint: Endpoint = async (request) => {
    const guarded = checkHostAndOrigin(request, options);
    if (guarded) return guarded;
    if (request.method !== "POST") {
      if (sse && request.method === "GET" && request.header(SESSION_HEADER) === null) {
        const auth = await authenticate(request, options, report);
        return auth.ok ? sse.open(request, auth.authInfo) : auth.response;
      }
      // A live 2025 session's GET stream or DELETE; otherwise GET streams, DELETE of sessions and
      // the rest are gone in 2026-07-28 (Last-Event-ID is never looked at).
      const served = await legacy?.other(request, () => authenticate(request, options, report));
      if (served) return served;
      return errorResponse(405, null, ErrorCode.InvalidRequest, "Method Not Allowed: use POST", ALLOW);
    }
    // The modern hot path awaits only what may really be asynchronous: each await is a microtask.
    const auth = anonymousOnly ? ANONYMOUS : await authenticate(request, options, report);
    if (!auth.ok) return auth.response;
    if (!isJsonContentType(request.header("content-type"))) {
      return errorResponse(
        415,
        null,
        ErrorCode.InvalidRequest,
        "Unsupported Media Type: use application/json",
      );
    }
    if (!isIdentityEncoding(request.header("content-encoding"))) {
      // RFC 9110 §15.5.16: Accept-Encoding names the codings the request may use.
      return errorResponse(
        415,
        null,
        ErrorCode.InvalidRequest,
        "Unsupported Media Type: send the body without a Content-Encoding",
        IDENTITY_ONLY,
      );
    }
    const read = request.readBody(maxBodyBytes);
    const body = read instanceof Promise ? await read : read;
    if (!body.ok) {
      return body.tooLarge
        ? errorResponse(
            413,
            null,
            ErrorCode.InvalidRequest,
            `Payload Too Large: the limit is ${maxBodyBytes} bytes`,
          )
        : errorResponse(400, null, ErrorCode.ParseError, "Parse error: the body is not readable UTF-8");
    }
    let message: unknown;
    try {
      message = JSON.parse(body.text);
    } catch {
      return errorResponse(400, null, ErrorCode.ParseError, "Parse error: the body is not valid JSON");
    }
    const requiredScopes = neededScopes(message, options);
    if (requiredScopes) {
      const refusal = checkScopes(request, message, auth.authInfo, options, requiredScopes);
      if (refusal) {
        return validJSONRPCRequest(message)
          ? reportRefusal(request, message as RequestBody, refusal)
          : refusal;
      }
    }
    if (sse) {
      const stream = request.query(SSE_SESSION_PARAM);
      if (stream !== null && request.header(SESSION_HEADER) === null) {
        return sse.post(stream, message, request, auth.authInfo);
      }
    }
    // A 2025 message (initialize, or one of a live session): no envelope, so never modern traffic.
    if (legacy?.takes(message)) {
      const served = await legacy.post(request, message, auth.authInfo);
      if (served) return served;
    }
    if (Array.isArray(message)) {
      return invalidRequest(null, "Invalid Request: batches are not supported, send one message per POST");
    }
    if (
      typeof message !== "object" ||
      message === null ||
      typeof (message as { method?: unknown }).method !== "string"
    ) {
      return invalidRequest(requestIdOf(message), "Invalid Request: POST a JSON-RPC request or notification");
    }
    if (!Object.hasOwn(message, "id")) {
      // Accepted and ignored: the modern core defines no client notification over HTTP (closing the
      // stream is the cancellation, so a notifications/cancelled here has nothing to do).
      return validJSONRPCNotification(message) ? ACCEPTED : invalidRequest(null, "Invalid Request");
    }
    if (!validJSONRPCRequest(message)) {
      return invalidRequest(requestIdOf(message), "Invalid Request");
    }
    const rpc = message as RequestBody;
    if (!acceptsJsonAndEventStream(request.header("accept"))) {
      return reportRefusal(
        request,
        rpc,
        errorResponse(
          406,
          rpc.id,
          ErrorCode.InvalidRequest,
          "Not Acceptable: Accept must allow application/json and text/event-stream",
        ),
      );
    }
    const headerError = checkStandardHeaders(request, rpc);
    if (headerError) return reportRefusal(request, rpc, headerError);
    let http: HttpRequestView = requiredScopes ? viewOf(request, { requiredScopes }) : request;
    if (toolInputSchema) {
      try {
        const checked = paramHeaderMismatch(request, rpc, toolInputSchema);
        const mismatch = checked instanceof Promise ? await checked : checked;
        if (mismatch !== undefined) {
          if (!deferMismatch) return reportRefusal(request, rpc, headerMismatch(rpc.id, mismatch));
          http = viewOf(request, {
            requiredScopes,
            [PARAM_HEADER_MISMATCH]: new McpError(ErrorCode.HeaderMismatch, mismatch),
          });
        }
      } catch (error) {
        options.logger?.error(
          `[http] toolInputSchema failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        return reportRefusal(
          request,
          rpc,
          errorResponse(500, rpc.id, ErrorCode.InternalError, "Internal error"),
        );
      }
    }
    const listen = rpc.method === "subscriptions/listen";
    // A listen stream is nothing but notifications: JSON would leave it empty.
    const mode = listen && responseMode === "json" ? "auto" : responseMode;
    return respond(dispatcher, message, request, http, auth.authInfo, {
      keepAliveMs,
      mode,
      logger: options.logger,
      listens: listen ? listens : undefined,
    });
  };
  return { endpoint, closeSessions };
}

function checkResponseMode(mode: ResponseMode | undefined): ResponseMode {
  if (mode === undefined || mode === "auto" || mode === "json" || mode === "sse") return mode ?? "auto";
  throw new TypeError(`responseMode must be "auto", "json" or "sse", got ${JSON.stringify(mode)}`);
}

/** The HTTP+SSE (2024-11-05) streams of `legacy: { sse: httpPlusSse }`, which need a dual-era server. */
function legacySseEndpoint(
  dispatcher: Dispatcher,
  servesLegacy: boolean,
  options: HttpHandlerOptions,
  keepAliveMs: number,
): LegacySseEndpoint | undefined {
  const legacy = options.legacy === false ? undefined : options.legacy;
  const sse: unknown = legacy?.sse;
  if (legacy === undefined || sse === undefined) return undefined;
  if (typeof (sse as Partial<HttpPlusSse>).serve !== "function") {
    throw new TypeError(
      "legacy.sse takes httpPlusSse, imported from roundtrip-mcp/http: servers that do not serve HTTP+SSE clients leave it out",
    );
  }
  if (!servesLegacy) {
    throw new TypeError("legacy.sse needs a server that serves 2025 clients (its legacy option is off)");
  }
  const { maxSessions } = legacy;
  return (sse as HttpPlusSse).serve(dispatcher, { maxSessions, keepAliveMs, logger: options.logger });
}

/**
 * CORS around the endpoint for the origins listed in `allowedOrigins` (see cors.ts); the endpoint
 * itself when there is no list.
 */
function withCors(endpoint: Endpoint, options: HttpHandlerOptions): Endpoint {
  const allowedOrigins = options.allowedOrigins;
  if (allowedOrigins === undefined) return endpoint;
  return async (request) => {
    const origin = listedOrigin(request, allowedOrigins);
    if (origin === undefined) return endpoint(request);
    if (request.method === "OPTIONS")
      return checkHostAndOrigin(request, options) ?? preflight(request, origin);
    return withCorsHeaders(await endpoint(request), origin);
  };
}

/**
 * `request` as handlers see it, carrying what the endpoint decided about the call: the scopes it
 * required, and the -32020 error for the server to raise (see `PARAM_HEADER_MISMATCH`).
 */
function viewOf(
  request: Incoming,
  decided: Pick<HttpRequestView, "requiredScopes" | typeof PARAM_HEADER_MISMATCH>,
): HttpRequestView {
  return { header: (name) => request.header(name), request: () => request.request(), ...decided };
}
