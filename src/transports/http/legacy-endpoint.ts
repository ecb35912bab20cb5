/**
 * 2025-11-25 Streamable HTTP on the same endpoint as 2026-07-28: `initialize` without the `_meta`
 * envelope opens a session (`Mcp-Session-Id`), later POSTs carry that id, GET opens the session's
 * stream, DELETE ends it. Anything carrying the envelope never comes here.
 */
import { hasModernEnvelope, opensLegacySession } from "../../server/legacy/connection.js";
import type { LegacyService } from "../../server/legacy/service.js";
import type { AuthInfo } from "../../shared/dispatch.js";
import { ErrorCode, LEGACY_PROTOCOL_VERSIONS } from "../../types/core.js";
import { isRecord, requestIdOf } from "../../types/record.js";
import {
  acceptsJsonAndEventStream,
  emptyReply,
  errorResponse,
  jsonResponse,
  type PlainReply,
  type Reply,
  refuseNonEventStream,
} from "./body.js";
import type { AuthOutcome } from "./guards.js";
import { HttpHeader } from "./headers.js";
import type { Incoming } from "./incoming.js";
import { respondLegacy } from "./legacy-respond.js";
import { type LegacyHttpOptions, LegacySessionStore, type SessionEntry } from "./legacy-sessions.js";
import { dropAtExpiry } from "./respond.js";
import { SSE_HEADERS, SseStream } from "./sse.js";

/** The 2025 session header. */
export const SESSION_HEADER = "Mcp-Session-Id";

function isResponse(message: Record<string, unknown>): boolean {
  return !("method" in message) && "id" in message && ("result" in message || "error" in message);
}

/** The request's `MCP-Protocol-Version` when it names a 2025-era version (bounded values only). */
function knownLegacyVersion(request: Incoming): string | undefined {
  const version = request.header(HttpHeader.ProtocolVersion);
  return version !== null && LEGACY_PROTOCOL_VERSIONS.includes(version) ? version : undefined;
}

function notAcceptable(message: Record<string, unknown>): PlainReply {
  return errorResponse(
    406,
    requestIdOf(message),
    ErrorCode.InvalidRequest,
    "Not Acceptable: Accept must allow application/json and text/event-stream",
  );
}

/** What the endpoint needs from the handler's options. */
export interface LegacyEndpointOptions extends LegacyHttpOptions {
  readonly keepAliveMs: number;
  readonly logger?: { warn(message: string): void; error(message: string): void };
}

/**
 * The legacy half of `createHttpHandler`. `post` and `other` answer what is theirs and return
 * `undefined` for everything else, which then takes the modern path unchanged.
 *
 * @example
 * const legacy = new LegacyHttpEndpoint(server.legacy, { keepAliveMs: 15_000 });
 * const answer = await legacy.post(request, message, authInfo); // undefined: not a 2025 message
 */
export class LegacyHttpEndpoint {
  readonly sessions: LegacySessionStore;
  readonly #service: LegacyService;
  readonly #options: LegacyEndpointOptions;

  constructor(service: LegacyService, options: LegacyEndpointOptions) {
    this.#service = service;
    this.#options = options;
    this.sessions = new LegacySessionStore(options);
  }

  /**
   * Whether `post` may serve this message: one without the modern envelope. Synchronous, so the
   * modern path never awaits the legacy layer.
   */
  takes(message: unknown): message is Record<string, unknown> {
    return isRecord(message) && !hasModernEnvelope(message);
  }

  /** A POSTed message without the modern envelope: `initialize`, or a message of a live session. */
  async post(
    request: Incoming,
    message: unknown,
    authInfo: AuthInfo | undefined,
  ): Promise<Reply | undefined> {
    if (!this.takes(message)) return undefined;
    if (opensLegacySession(message) && "id" in message) return this.#initialize(request, message, authInfo);
    const sessionId = request.header(SESSION_HEADER);
    const version = knownLegacyVersion(request);
    if (sessionId === null) {
      if (version === undefined) return undefined;
      return this.#refuse(
        request,
        message,
        errorResponse(
          400,
          requestIdOf(message),
          ErrorCode.InvalidRequest,
          "Bad Request: Mcp-Session-Id header is required",
        ),
        version,
      );
    }
    const entry = this.#session(request, sessionId, authInfo);
    if (!("session" in entry)) return this.#refuse(request, message, entry, version);
    if (isResponse(message)) {
      entry.session.receive(message);
      return emptyReply(202);
    }
    if (typeof message.method !== "string")
      return errorResponse(400, requestIdOf(message), ErrorCode.InvalidRequest, "Invalid Request");
    if (!("id" in message)) {
      entry.session.notification({ method: message.method, params: message.params });
      return emptyReply(202);
    }
    if (!acceptsJsonAndEventStream(request.header("accept"))) {
      return this.#refuse(request, message, notAcceptable(message), entry.session.protocolVersion);
    }
    entry.active++;
    return respondLegacy(message, request, {
      session: entry.session,
      authInfo,
      keepAliveMs: this.#options.keepAliveMs,
      logger: this.#options.logger,
      onDone: () => {
        entry.active--;
        entry.lastSeen = Date.now();
      },
    });
  }

  /**
   * GET (the session's stream) and DELETE (end the session) of a session. One that is unknown,
   * expired, ended or someone else's is 404, as for a POST: the 2025 spec's signal to start a new
   * session (a 405 would tell a client that the server has no stream, and it would wait on a dead
   * session). Without a session header, or another method, it is not ours: the endpoint answers 405.
   */
  async other(request: Incoming, authenticate: () => Promise<AuthOutcome>): Promise<Reply | undefined> {
    const sessionId = request.header(SESSION_HEADER);
    if (sessionId === null || (request.method !== "GET" && request.method !== "DELETE")) return undefined;
    const auth = await authenticate();
    if (!auth.ok) return auth.response;
    const entry = this.#session(request, sessionId, auth.authInfo);
    if (!("session" in entry)) return entry;
    if (request.method === "DELETE") {
      this.sessions.delete(entry.id);
      return emptyReply(200);
    }
    const refused = refuseNonEventStream(request.header("accept"));
    if (refused) return refused;
    if (entry.stream) {
      return errorResponse(
        409,
        null,
        ErrorCode.InvalidRequest,
        "Conflict: this session's stream is already open",
      );
    }
    const release = () => {
      clearTimeout(expiry);
      if (entry.stream === stream) {
        entry.stream = undefined;
        entry.session.attach(undefined);
      }
      entry.lastSeen = Date.now();
    };
    const stream = new SseStream({ keepAliveMs: this.#options.keepAliveMs, onCancel: release });
    // Ended with its token, so it carries no news past it; the client opens it again with a fresh one.
    const expiry = dropAtExpiry(auth.authInfo, () => {
      release();
      stream.end();
    });
    entry.stream = stream;
    entry.session.attach((message) => stream.write(message));
    return new Response(stream.readable, { status: 200, headers: SSE_HEADERS });
  }

  /** Opens a session with this `initialize`; the id is minted only when the handshake succeeds. */
  async #initialize(
    request: Incoming,
    message: Record<string, unknown>,
    authInfo: AuthInfo | undefined,
  ): Promise<Reply> {
    const id = requestIdOf(message);
    if (!acceptsJsonAndEventStream(request.header("accept"))) {
      return this.#refuse(request, message, notAcceptable(message), undefined);
    }
    // The slot is taken before the handshake, so a refused client's initialize is never traced as
    // served, and handshakes in flight count against the limit.
    const session = this.#service.openSession();
    const entry = this.sessions.add(session, this.#service.principalOf(authInfo, request));
    if (entry === undefined) {
      session.close();
      this.#options.logger?.warn(
        `[http] refused a legacy session: ${this.sessions.maxSessions} sessions are busy`,
      );
      const full = errorResponse(503, id, ErrorCode.InternalError, "Service Unavailable: too many sessions");
      return this.#refuse(request, message, full, undefined);
    }
    entry.active++;
    let response: Awaited<ReturnType<typeof session.handle>>;
    try {
      response = await session.handle(message, { send: async () => {}, authInfo, http: request });
    } finally {
      entry.active--;
    }
    if (response === undefined || "error" in response) {
      this.sessions.delete(entry.id);
      return jsonResponse(
        response ?? {
          jsonrpc: "2.0",
          id,
          error: { code: ErrorCode.InternalError, message: "Internal error" },
        },
        400,
      );
    }
    return jsonResponse(response, 200, { [SESSION_HEADER]: entry.id });
  }

  /** Tells the server's telemetry of a refused request (not of a refused response or notification). */
  #refuse(
    request: Incoming,
    message: Record<string, unknown>,
    reply: PlainReply,
    protocolVersion: string | undefined,
  ): PlainReply {
    this.#service.reportRefused(message, reply.error, request, protocolVersion);
    return reply;
  }

  /** The live session of a request, or the 404/400 that answers it. */
  #session(request: Incoming, sessionId: string, authInfo: AuthInfo | undefined): SessionEntry | PlainReply {
    const entry = this.sessions.get(sessionId, this.#service.principalOf(authInfo, request));
    if (!entry)
      return errorResponse(404, null, ErrorCode.InvalidRequest, "Not Found: unknown or expired session");
    const version = request.header(HttpHeader.ProtocolVersion);
    if (version !== null && !LEGACY_PROTOCOL_VERSIONS.includes(version)) {
      return errorResponse(
        400,
        null,
        ErrorCode.InvalidRequest,
        "Bad Request: unsupported MCP-Protocol-Version",
      );
    }
    return entry;
  }
}
