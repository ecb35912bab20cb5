import { McpError, MetaKey, NotificationMethod } from "../types/core.js";
import type { JSONRPCMessage, JSONRPCNotification, RequestId, ResultObject } from "../types/index.js";
import { isRequestId } from "../types/record.js";
import { ConnectionClosedError, ProtocolError, RequestAbortedError } from "./errors.js";
import { type CallBook, type Pending, PendingCall, type RequestOptions } from "./pending-call.js";
import type { MessageInfo, Transport } from "./transport.js";

export type { RequestOptions } from "./pending-call.js";

/** Handler for server → client requests (the legacy back-channel); modern servers never send any. */
export type IncomingRequestHandler = (
  method: string,
  params: Record<string, unknown> | undefined,
  /** The request's JSON-RPC id. */
  id: RequestId,
) => Promise<ResultObject>;

/**
 * The JSON-RPC core both sides reuse over any transport: fresh ids, pending calls, responses
 * matched by id, notifications routed to the request they belong to, cancellation.
 *
 * @example
 * const connection = new JsonRpcConnection(transport);
 * await connection.start();
 * const result = await connection.request("server/discover", { _meta: envelope });
 */
export class JsonRpcConnection {
  readonly #transport: Transport;
  readonly #pending = new Map<RequestId, Pending>();
  /** Ids of the peer's requests being answered: one that arrives again meanwhile is not run twice. */
  readonly #answering = new Set<RequestId>();
  /** Those of them the peer cancelled: they get no response (the peer has stopped waiting). */
  readonly #cancelledByPeer = new Set<RequestId>();
  /** What a pending call may do to its connection, made once per connection. */
  readonly #book: CallBook = {
    forget: (id) => this.#pending.delete(id),
    cancel: (id, reason) => this.#cancelRemote(id, reason),
  };
  #nextId = 1;
  #closed = false;
  readonly #closing = new AbortController();
  /** Notifications that belong to no in-flight request. */
  onNotification?: (notification: JSONRPCNotification) => void;
  /** Server → client requests; without a handler they are answered with -32601. */
  onRequest?: IncomingRequestHandler;
  /** Called once when the transport closes. */
  onClose?: () => void;
  /** Transport-level failures (e.g. a stdio server that exited with an error code). */
  onError?: (error: Error) => void;

  constructor(transport: Transport) {
    this.#transport = transport;
    transport.onmessage = (message, info) => this.#receive(message, info);
    transport.onclose = (reason) => this.#handleClose(reason);
    transport.onerror = (error) => this.onError?.(error);
  }

  /** True once the transport has closed or `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Aborts, with the `ConnectionClosedError` pending calls get, once the connection has closed: for
   * waits that have no request in flight, such as a task's poll interval.
   *
   * @example
   * await setTimeout(pollMs, undefined, { signal: connection.closedSignal }); // node:timers/promises
   */
  get closedSignal(): AbortSignal {
    return this.#closing.signal;
  }

  /** Starts the transport; call once, before the first request. */
  async start(): Promise<void> {
    await this.#transport.start();
  }

  /** A fresh request id, for a caller that must know it before `request` sends it (telemetry). */
  newId(): RequestId {
    return this.#nextId++;
  }

  /**
   * Sends a request with `id` (by default a fresh one) and resolves with its result (rejects with
   * `McpError` on an error response).
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions = {},
    id: RequestId = this.#nextId++,
  ): Promise<ResultObject> {
    if (this.#closed) return Promise.reject(new ConnectionClosedError("Connection is closed"));
    const { signal } = options;
    if (signal?.aborted) {
      return Promise.reject(
        new RequestAbortedError(`Request ${method} was aborted`, { cause: signal.reason }),
      );
    }
    return new Promise<ResultObject>((resolve, reject) => {
      const meta = params?._meta as Record<string, unknown> | undefined;
      const call = new PendingCall(this.#book, id, method, resolve, reject, options, meta);
      this.#pending.set(id, call);
      const message: JSONRPCMessage =
        params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
      this.#transport.send(message).catch(call.sendFailed);
    });
  }

  /** Sends a notification. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.#closed) throw new ConnectionClosedError("Connection is closed");
    await this.#transport.send(
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
    );
  }

  /** Closes the transport; pending calls reject with `ConnectionClosedError`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    // A transport that fails to close is gone all the same: pending calls must not hang on it.
    try {
      await this.#transport.close();
    } finally {
      this.#handleClose();
    }
  }

  #cancelRemote(id: RequestId, reason: string): void {
    if (this.#closed) return;
    if (this.#transport.cancel) {
      this.#transport.cancel(id, reason);
      return;
    }
    this.#transport
      .send({ jsonrpc: "2.0", method: NotificationMethod.Cancelled, params: { requestId: id, reason } })
      .catch(() => {});
  }

  #receive(message: JSONRPCMessage, info: MessageInfo | undefined): void {
    const record = message as Record<string, unknown>;
    if ("method" in record && typeof record.method === "string") {
      if ("id" in record && record.id !== undefined && record.id !== null) {
        // A request id is a string or an integer: any other is an Invalid Request, never dispatched.
        void this.#answerIncomingRequest(
          isRequestId(record.id) ? record.id : null,
          record.method,
          record.params as Record<string, unknown>,
        );
        return;
      }
      this.#routeNotification(message as JSONRPCNotification, info);
      return;
    }
    const id = record.id as RequestId | null | undefined;
    if (id === undefined || id === null) return;
    const pending = this.#pending.get(id);
    if (!pending) return;
    const error = record.error as Record<string, unknown> | null | undefined;
    if (typeof error === "object" && error !== null) {
      // A peer's error without an integer code and a string message is no error object at all.
      // Saying so is our verdict, not the peer's: a code-less ProtocolError, never a -32603 that
      // reads as the server's own.
      pending.reject(
        Number.isInteger(error.code) && typeof error.message === "string"
          ? new McpError(error.code as number, error.message, error.data)
          : new ProtocolError("Malformed response: not a JSON-RPC error object"),
      );
    } else if (typeof record.result === "object" && record.result !== null && !Array.isArray(record.result)) {
      pending.resolve(record.result as ResultObject);
    } else {
      pending.reject(new ProtocolError("Malformed response: no result object"));
    }
  }

  #routeNotification(notification: JSONRPCNotification, info: MessageInfo | undefined): void {
    if (notification.method === NotificationMethod.Cancelled) {
      const requestId = notification.params?.requestId as RequestId;
      if (this.#answering.has(requestId)) this.#cancelledByPeer.add(requestId);
      const cancelled = this.#pending.get(requestId);
      if (cancelled?.endsOnPeerCancel) {
        cancelled.resolve({ _meta: { [MetaKey.SubscriptionId]: requestId } });
        return;
      }
    }
    // A listen stream's notifications name their subscription: the id of the listen request. Only
    // a listen takes them: the same id on another call's notification is no subscription of ours.
    const subscriptionId = (notification.params?._meta as Record<string, unknown> | undefined)?.[
      MetaKey.SubscriptionId
    ];
    if (subscriptionId !== undefined && info?.relatedRequestId === undefined) {
      const pending = this.#pending.get(subscriptionId as RequestId);
      if (pending?.endsOnPeerCancel && pending.onNotification) {
        pending.onNotification(notification);
        return;
      }
    }
    const progress = notification.method === NotificationMethod.Progress;
    if (info?.relatedRequestId !== undefined) {
      const pending = this.#pending.get(info.relatedRequestId);
      if (pending?.onNotification) {
        if (progress) pending.progressed?.();
        pending.onNotification(notification);
        return;
      }
    }
    if (notification.method === NotificationMethod.Message && info?.relatedRequestId === undefined) {
      const asking = this.#onlyRequestAskingForLogs();
      if (asking?.onNotification) {
        asking.onNotification(notification);
        return;
      }
    }
    if (progress) {
      const token = notification.params?.progressToken;
      for (const pending of this.#pending.values()) {
        if (
          pending.progressToken !== undefined &&
          pending.progressToken === token &&
          pending.onNotification
        ) {
          pending.progressed?.();
          pending.onNotification(notification);
          return;
        }
      }
    }
    this.onNotification?.(notification);
  }

  /**
   * Where nothing says whose a log message is (stdio): a server logs only for a request that asked
   * (`logLevel` in its `_meta`, never on a listen stream), so with one such request in flight it
   * is that request's. With several, nobody can tell: it goes to the connection's handler.
   */
  #onlyRequestAskingForLogs(): Pending | undefined {
    let only: Pending | undefined;
    for (const pending of this.#pending.values()) {
      if (!pending.asksForLogs || pending.endsOnPeerCancel) continue;
      if (only !== undefined) return undefined;
      only = pending;
    }
    return only;
  }

  async #answerIncomingRequest(
    id: RequestId | null,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<void> {
    // A request delivered again while its first copy is being answered (a replayed event stream,
    // or a peer that reuses an id) gets the one answer: asking the user or a model twice would not
    // help, and two responses under one id would confuse the peer.
    if (id !== null && this.#answering.has(id)) return;
    if (id !== null) this.#answering.add(id);
    let reply: JSONRPCMessage;
    try {
      if (id === null) throw new McpError(-32600, "Invalid Request");
      if (!this.onRequest) throw new McpError(-32601, `Method not found: ${method}`);
      reply = { jsonrpc: "2.0", id, result: await this.onRequest(method, params, id) };
    } catch (error) {
      const wire =
        error instanceof McpError ? error.toErrorObject() : { code: -32603, message: "Internal error" };
      reply = { jsonrpc: "2.0", id, error: wire };
    } finally {
      if (id !== null) this.#answering.delete(id);
    }
    // The peer gave up on it: no response, as the cancellation rules ask.
    if (id !== null && this.#cancelledByPeer.delete(id)) return;
    if (!this.#closed) await this.#transport.send(reply).catch(() => {});
  }

  #handleClose(reason?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    const error = reason
      ? new ConnectionClosedError(`Connection closed: ${reason.message}`, { cause: reason })
      : new ConnectionClosedError("Connection closed");
    for (const pending of [...this.#pending.values()]) pending.reject(error);
    this.#pending.clear();
    this.#closing.abort(error);
    this.onClose?.();
  }
}
