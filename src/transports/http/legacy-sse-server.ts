/**
 * The deprecated HTTP+SSE transport (2024-11-05), server side, on the endpoint's own URL: a GET
 * without a session opens an event stream whose first `endpoint` event names where to POST
 * (`?sessionId=…` on the same URL), and every answer and server request goes out on that stream.
 * Each stream is one connection, served like a stdio pipe (see ../pipe.ts).
 */
import { type LegacyService, legacyServiceOf } from "../../server/legacy/service.js";
import type { AuthInfo, Dispatcher } from "../../shared/dispatch.js";
import { ErrorCode } from "../../types/core.js";
import { requestIdOf } from "../../types/record.js";
import { type ServerPipe, servePipe } from "../pipe.js";
import { emptyReply, errorResponse, type Reply, refuseNonEventStream } from "./body.js";
import type { Incoming } from "./incoming.js";
import { DEFAULT_MAX_LEGACY_SESSIONS, newSessionId, SSE_SESSION_PARAM } from "./legacy-sessions.js";
import { SSE_HEADERS, SseStream } from "./sse.js";

/** What the HTTP+SSE endpoint needs from the handler's options. */
export interface LegacySseOptions {
  readonly maxSessions?: number;
  readonly keepAliveMs: number;
  readonly logger?: { warn(message: string): void; error(message: string): void };
}

/**
 * Requests one stream may have in flight, an answer waiting for its client to read it included:
 * its POSTs are answered 202 at once, so without a bound a client that never reads its stream would
 * make the server hold every answer.
 */
const MAX_STREAM_REQUESTS = 100;

interface SseSession {
  readonly stream: SseStream;
  readonly pipe: ServerPipe;
  readonly principal: string | undefined;
}

/**
 * The live HTTP+SSE streams of one endpoint, each bound to the principal that opened it.
 *
 * @example
 * const sse = new LegacySseEndpoint(server, { keepAliveMs: 15_000 });
 * const reply = sse.open(request, authInfo); // GET: the stream
 */
export class LegacySseEndpoint {
  readonly #dispatcher: Dispatcher;
  readonly #service: LegacyService;
  readonly #options: LegacySseOptions;
  readonly #maxSessions: number;
  readonly #sessions = new Map<string, SseSession>();

  constructor(dispatcher: Dispatcher, options: LegacySseOptions) {
    this.#dispatcher = dispatcher;
    const service = legacyServiceOf(dispatcher);
    // createHttpHandler checks this first; the streams are bound through the service's principal.
    if (!service) throw new TypeError("legacy.sse needs a server that serves 2025 clients");
    this.#service = service;
    this.#options = options;
    this.#maxSessions = options.maxSessions ?? DEFAULT_MAX_LEGACY_SESSIONS;
  }

  /** A GET without `Mcp-Session-Id`: a new stream, its `endpoint` event first. */
  open(request: Incoming, authInfo: AuthInfo | undefined): Reply {
    const refused = refuseNonEventStream(request.header("accept"));
    if (refused) return refused;
    if (this.#sessions.size >= this.#maxSessions) {
      this.#options.logger?.warn(`[http] refused an HTTP+SSE stream: ${this.#maxSessions} are open`);
      return errorResponse(503, null, ErrorCode.InternalError, "Service Unavailable: too many sessions");
    }
    const id = newSessionId();
    const stream = new SseStream({
      keepAliveMs: this.#options.keepAliveMs,
      onCancel: () => this.#end(id, "connection closed"),
    });
    const write = (message: unknown) => stream.write(message);
    const logger = this.#options.logger ?? { error: () => {} };
    const pipe = servePipe(this.#dispatcher, {
      maxInFlight: MAX_STREAM_REQUESTS,
      send: (message) => write(message).catch(() => {}),
      deliver: write,
      lost: () => !stream.open,
      logger: { error: (message) => logger.error(`[http] ${message}`) },
    });
    this.#sessions.set(id, { stream, pipe, principal: this.#service.principalOf(authInfo, request) });
    // Relative to the stream's own URL, so it survives a proxy that rewrites the path.
    stream.announce("endpoint", `?${SSE_SESSION_PARAM}=${id}`);
    return new Response(stream.readable, { status: 200, headers: SSE_HEADERS });
  }

  /**
   * A POST naming a stream: 202 at once, the answer on the stream. An unknown stream, or one
   * opened by someone else, is 404.
   */
  post(sessionId: string, message: unknown, request: Incoming, authInfo: AuthInfo | undefined): Reply {
    const session = this.#sessions.get(sessionId);
    if (session === undefined || session.principal !== this.#service.principalOf(authInfo, request)) {
      const reply = errorResponse(
        404,
        null,
        ErrorCode.InvalidRequest,
        "Not Found: unknown or closed session",
      );
      this.#service.reportRefused(message, reply.error, request, undefined);
      return reply;
    }
    if (Array.isArray(message)) {
      return errorResponse(
        400,
        null,
        ErrorCode.InvalidRequest,
        "Invalid Request: batches are not supported, send one message per POST",
      );
    }
    if (!session.pipe.receive(message, { authInfo, http: request })) {
      return errorResponse(
        429,
        requestIdOf(message),
        ErrorCode.InternalError,
        `Too Many Requests: ${MAX_STREAM_REQUESTS} requests of this stream are in flight`,
      );
    }
    return emptyReply(202);
  }

  /** Ends every stream (the server is closing). */
  closeAll(): void {
    for (const id of [...this.#sessions.keys()]) this.#end(id, "server closed");
  }

  #end(id: string, reason: string): void {
    const session = this.#sessions.get(id);
    if (session === undefined) return;
    this.#sessions.delete(id);
    session.pipe.close(reason);
    session.stream.end();
  }
}

/** What `legacy.sse` takes: the HTTP+SSE streams of one endpoint, built once by `createHttpHandler`. */
export interface HttpPlusSse {
  readonly serve: (dispatcher: Dispatcher, options: LegacySseOptions) => LegacySseEndpoint;
}

/**
 * The deprecated HTTP+SSE transport (2024-11-05), served next to Streamable HTTP on the same URL
 * when given as the handler's `legacy.sse`. It is a value to import, so that servers which do not
 * serve those clients do not carry it.
 *
 * @example
 * import { httpPlusSse, serveHttp } from "roundtrip-mcp/http";
 * await serveHttp(mcp, { port: 8000, legacy: { sse: httpPlusSse } });
 */
export const httpPlusSse: HttpPlusSse = Object.freeze({
  serve: (dispatcher: Dispatcher, options: LegacySseOptions) => new LegacySseEndpoint(dispatcher, options),
});
