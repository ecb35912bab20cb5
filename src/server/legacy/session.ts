/**
 * One 2025-era session: opened by `initialize` (a stdio connection, or one `Mcp-Session-Id` over
 * HTTP), it remembers what the handshake established and serves every later request with 2025
 * semantics, including the back-channel and its answers.
 */

import type { AuthInfo, HttpRequestView } from "../../shared/dispatch.js";
import { coversUri } from "../../shared/subscription-filter.js";
import {
  ErrorCode,
  LegacyMethod,
  McpError,
  NotificationMethod,
  validCancelledNotificationParams,
  validJSONRPCRequest,
  validSetLevelRequestParams,
} from "../../types/core.js";
import type {
  ErrorObject,
  JSONRPCMessage,
  JSONRPCRequest,
  JSONRPCResponse,
  LoggingLevel,
  RequestId,
  ResultObject,
} from "../../types/index.js";
import { requestIdOf } from "../../types/record.js";
import { MAX_SUBSCRIBED_URI_LENGTH, MAX_SUBSCRIPTIONS } from "../subscriptions.js";
import { Outbox } from "./back-channel.js";
import { initializeResult, negotiateLegacyVersion, parseInitialize } from "./initialize.js";
import type { ResolvedLegacyOptions } from "./options.js";
import { toLegacyWireError } from "./outbound.js";
import { type LegacyCore, type SessionFacts, serveLegacyRequest } from "./serve.js";
import { answerInTelemetry, reportLegacyRefusal } from "./telemetry.js";

/**
 * How one request of the session is answered.
 *
 * @example
 * await session.handle(message, { send: (m) => stream.write(m), signal, authInfo });
 */
export interface LegacyRequestContext {
  /**
   * Writes a message related to this request (its response stream, or the stdio pipe). The session
   * stops writing for a request once it is cancelled, except to withdraw its questions.
   */
  readonly send: (message: JSONRPCMessage) => Promise<void>;
  /** The transport's abort (client gone); `notifications/cancelled` is handled by the session. */
  readonly signal?: AbortSignal;
  readonly authInfo?: AuthInfo;
  readonly http?: HttpRequestView;
  readonly transport?: "pipe" | undefined;
}

function errorResponse(id: RequestId | null, error: ErrorObject): JSONRPCResponse {
  return { jsonrpc: "2.0", id, error };
}

function alreadyInitialized(): McpError {
  return new McpError(ErrorCode.InvalidRequest, "Invalid Request: the session is already initialized");
}

/**
 * A request the session answers itself, checked: `answer` commits it. `facts` are what telemetry
 * reports it under; a `ping` before `initialize` has none and is not traced.
 */
interface LocalAnswer {
  readonly facts: SessionFacts | undefined;
  readonly answer: () => ResultObject;
}

/**
 * A 2025 session on a server. Created by `LegacyService.openSession`; transports feed it the
 * requests, notifications and responses of that session.
 *
 * @example
 * const session = server.legacy.openSession();
 * const response = await session.handle(initializeRequest, { send });
 */
export class LegacySession {
  readonly #core: LegacyCore;
  readonly #options: ResolvedLegacyOptions;
  readonly #outbox = new Outbox();
  readonly #inFlight = new Map<RequestId, AbortController>();
  #facts: SessionFacts | undefined;
  #clientReady = false;
  /**
   * Per subscribed URI, the update under it that is written but not yet taken by the client, and
   * whether another URI under it changed since (owed as one update of the subscribed URI itself).
   */
  readonly #updatesUnread = new Map<string, { readonly uri: string; owed: boolean }>();
  #closed = false;
  readonly #subscriptions = new Set<string>();
  #unsolicited: ((message: JSONRPCMessage) => Promise<void>) | undefined;
  readonly #onClose: (() => void) | undefined;

  constructor(core: LegacyCore, options: ResolvedLegacyOptions, onClose?: () => void) {
    this.#core = core;
    this.#options = options;
    this.#onClose = onClose;
  }

  /**
   * Where messages unrelated to any request go (the HTTP GET stream, the stdio pipe); undefined
   * while there is none (they are dropped, as the 2025 spec allows).
   */
  attach(write: ((message: JSONRPCMessage) => Promise<void>) | undefined): void {
    this.#unsolicited = write;
  }

  /**
   * `notifications/resources/updated` when this session subscribed to `uri` (or a parent of it).
   * One per subscription waits for the client to read its stream, so a client that reads slowly
   * holds at most one per subscription, however many URIs under a parent change. Meanwhile the
   * same URI again says nothing the unread one does not (the client re-reads the resource); another
   * URI under it is told afterwards as the subscribed URI's own, once (the spec lets either be sent).
   */
  resourceUpdated(uri: string): void {
    if (this.#closed || this.#unsolicited === undefined || this.#facts === undefined) return;
    const subscribed = [...this.#subscriptions].find((candidate) => coversUri(candidate, uri));
    if (subscribed === undefined) return;
    const unread = this.#updatesUnread.get(subscribed);
    if (unread === undefined) this.#tellUpdated(subscribed, uri);
    else if (unread.uri !== uri && unread.uri !== subscribed) unread.owed = true;
  }

  #tellUpdated(subscribed: string, uri: string): void {
    const write = this.#unsolicited;
    if (this.#closed || write === undefined || !this.#subscriptions.has(subscribed)) return;
    const unread = { uri, owed: false };
    this.#updatesUnread.set(subscribed, unread);
    void write({ jsonrpc: "2.0", method: NotificationMethod.ResourcesUpdated, params: { uri } })
      .catch(() => {})
      .finally(() => {
        this.#updatesUnread.delete(subscribed);
        if (unread.owed) this.#tellUpdated(subscribed, subscribed);
      });
  }

  /** The negotiated version, once `initialize` succeeded. */
  get protocolVersion(): string | undefined {
    return this.#facts?.protocolVersion;
  }

  /** What the handshake established (undefined before `initialize`). */
  get facts(): SessionFacts | undefined {
    return this.#facts;
  }

  /** True once the client sent `notifications/initialized`. */
  get clientReady(): boolean {
    return this.#clientReady;
  }

  /** True while requests run or server → client requests wait for answers. */
  get busy(): boolean {
    return this.#inFlight.size > 0 || this.#outbox.size > 0;
  }

  /** True once `close()` ended the session. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Serves one request of this session. Resolves with its response, or `undefined` when it was
   * cancelled (nothing may be sent for it).
   */
  async handle(message: unknown, context: LegacyRequestContext): Promise<JSONRPCResponse | undefined> {
    // Never a request, so nothing to trace (as on the modern path).
    if (!validJSONRPCRequest(message)) {
      return errorResponse(requestIdOf(message), {
        code: ErrorCode.InvalidRequest,
        message: "Invalid Request",
      });
    }
    const request = message as JSONRPCRequest;
    const facts = this.#facts;
    let local: LocalAnswer;
    try {
      if (this.#closed) throw new McpError(ErrorCode.InvalidRequest, "Session closed");
      if (request.method === LegacyMethod.Initialize) local = this.#initialize(request.params);
      // Answered before and after initialize alike; traced once a version is known.
      else if (request.method === LegacyMethod.Ping) local = { facts, answer: () => ({}) };
      else if (facts === undefined) {
        throw new McpError(ErrorCode.InvalidRequest, "Invalid Request: send initialize first");
      } else if (request.method === LegacyMethod.SetLevel) local = this.#setLevel(facts, request.params);
      else if (request.method === LegacyMethod.Subscribe || request.method === LegacyMethod.Unsubscribe)
        local = this.#subscribe(facts, request.method, request.params);
      else return await this.#serve(request, facts, context);
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      const wire = error.toErrorObject();
      reportLegacyRefusal(this.#core, request, wire, context, facts?.protocolVersion);
      return errorResponse(request.id, wire);
    }
    try {
      const result =
        local.facts === undefined
          ? local.answer()
          : await answerInTelemetry(this.#core, request, context, local.facts, local.answer);
      return { jsonrpc: "2.0", id: request.id, result };
    } catch (error) {
      // A telemetry that fails is logged and answered -32603, as a failing handler.
      return errorResponse(request.id, toLegacyWireError(request.method, error, this.#core.logger));
    }
  }

  /** A client notification: `initialized`, and `cancelled` (aborts that request's handler). */
  notification(message: { method: string; params?: unknown }): void {
    if (message.method === LegacyMethod.Initialized) {
      if (this.#facts !== undefined) this.#clientReady = true;
      return;
    }
    if (message.method === NotificationMethod.Cancelled) {
      const params = message.params as { requestId: RequestId; reason?: string };
      if (validCancelledNotificationParams(params)) {
        this.#inFlight.get(params.requestId)?.abort(params.reason ?? "cancelled");
      }
    }
  }

  /** A client response to one of our server → client requests; false when nothing waits for it. */
  receive(message: Record<string, unknown>): boolean {
    return this.#outbox.receive(message);
  }

  /** The client can no longer answer (its input ended): waiting server → client requests fail now. */
  inputEnded(): void {
    this.#outbox.closeAll("the client's input ended");
  }

  /** Ends the session: running requests are aborted, waiting server → client requests fail. */
  close(reason = "session closed"): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsolicited = undefined;
    this.#subscriptions.clear();
    this.#onClose?.();
    for (const controller of this.#inFlight.values()) controller.abort(reason);
    this.#inFlight.clear();
    this.#outbox.closeAll(reason);
  }

  #initialize(params: unknown): LocalAnswer {
    if (this.#facts !== undefined) throw alreadyInitialized();
    const hello = parseInitialize(params);
    const facts: SessionFacts = {
      protocolVersion: negotiateLegacyVersion(hello.protocolVersion),
      clientCapabilities: hello.capabilities,
      clientInfo: hello.clientInfo,
      logLevel: undefined,
    };
    const answer = () => {
      // A telemetry that awaits before its handler could let a second initialize in.
      if (this.#facts !== undefined) throw alreadyInitialized();
      this.#facts = facts;
      return initializeResult(this.#core, facts.protocolVersion);
    };
    return { facts, answer };
  }

  #setLevel(facts: SessionFacts, params: unknown): LocalAnswer {
    if (this.#core.capabilities.logging === undefined) {
      throw new McpError(ErrorCode.MethodNotFound, "Method not found: logging/setLevel");
    }
    if (!validSetLevelRequestParams(params))
      throw new McpError(ErrorCode.InvalidParams, "Invalid params for logging/setLevel: level");
    const level = (params as { level: LoggingLevel }).level;
    const answer = () => {
      if (this.#facts) this.#facts = { ...this.#facts, logLevel: level };
      return {};
    };
    return { facts, answer };
  }

  #subscribe(facts: SessionFacts, method: string, params: unknown): LocalAnswer {
    if (this.#core.capabilities.resources?.subscribe !== true) {
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    const uri = (params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri !== "string" || uri === "" || uri.length > MAX_SUBSCRIBED_URI_LENGTH)
      throw new McpError(ErrorCode.InvalidParams, `Invalid params for ${method}: uri`);
    const subscribing = method === LegacyMethod.Subscribe;
    // Checked as it commits: a telemetry that awaits lets other subscriptions in meanwhile.
    const answer = () => {
      if (!subscribing) this.#subscriptions.delete(uri);
      else if (this.#subscriptions.size < MAX_SUBSCRIPTIONS || this.#subscriptions.has(uri))
        this.#subscriptions.add(uri);
      else throw new McpError(ErrorCode.InvalidParams, "A session holds at most 1000 subscriptions");
      return {};
    };
    return { facts, answer };
  }

  async #serve(
    request: JSONRPCRequest,
    facts: SessionFacts,
    context: LegacyRequestContext,
  ): Promise<JSONRPCResponse | undefined> {
    const controller = new AbortController();
    const outer = context.signal;
    const onAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener("abort", onAbort, { once: true });
    // A reused id (a client bug) must not let one request's cancellation reach the other.
    const previous = this.#inFlight.get(request.id);
    this.#inFlight.set(request.id, controller);
    try {
      return await serveLegacyRequest(this.#core, this.#options, this.#outbox, facts, request, {
        send: context.send,
        signal: controller.signal,
        authInfo: context.authInfo,
        http: context.http,
        transport: context.transport,
        clientReady: () => this.#clientReady,
      });
    } finally {
      outer?.removeEventListener("abort", onAbort);
      if (this.#inFlight.get(request.id) === controller) {
        if (previous) this.#inFlight.set(request.id, previous);
        else this.#inFlight.delete(request.id);
      }
    }
  }
}
