import type { AuthInfo, DispatchContext, Dispatcher } from "../shared/dispatch.js";
import type { MessageInfo, Transport } from "../shared/transport.js";
import {
  CancelledNotificationParamsSchema,
  type JSONRPCMessage,
  NotificationMethod,
  type RequestId,
} from "../types/index.js";

/** Which way a message crossed the in-memory wire. */
export type WireDirection = "client→server" | "server→client";

export interface MemoryTransportOptions {
  /** Presented to the server as the request's verified token (as an HTTP auth hook would). */
  authInfo?: AuthInfo;
  /** Sees every message exactly as serialized on the wire; for tests and tracing. */
  onWire?: (direction: WireDirection, message: JSONRPCMessage) => void;
}

/**
 * The client end of an in-process connection to a server: speaks 2026-07-28 directly (no
 * handshake). Every message is serialized to JSON and parsed back, so both sides see exactly
 * what a real wire would carry.
 *
 * @example
 * const session = new ClientSession(new MemoryTransport(server));
 */
export class MemoryTransport implements Transport {
  readonly #target: Dispatcher;
  readonly #options: MemoryTransportOptions;
  readonly #inFlight = new Map<RequestId, AbortController>();
  #closed = false;
  onmessage?: (message: JSONRPCMessage, info?: MessageInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(target: Dispatcher, options: MemoryTransportOptions = {}) {
    this.#target = target;
    this.#options = options;
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("MemoryTransport is closed");
    const wire = this.#cross("client→server", message) as Record<string, unknown>;
    if (typeof wire.method === "string" && (wire.id === undefined || wire.id === null)) {
      this.#receiveNotification(wire);
      return;
    }
    const id = wire.id as RequestId;
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    const context: DispatchContext = {
      signal: controller.signal,
      authInfo: this.#options.authInfo,
      notify: (notification) => this.#deliver(notification, { relatedRequestId: id }),
    };
    void this.#target.dispatch(wire, context).then((response) => {
      this.#inFlight.delete(id);
      if (response && !controller.signal.aborted) this.#deliver(response, {});
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#inFlight.values()) controller.abort();
    this.#inFlight.clear();
    this.onclose?.();
  }

  #receiveNotification(notification: Record<string, unknown>): void {
    if (notification.method !== NotificationMethod.Cancelled) return;
    const params = CancelledNotificationParamsSchema.safeParse(notification.params);
    if (params.success) this.#inFlight.get(params.data.requestId)?.abort();
  }

  #deliver(message: JSONRPCMessage, info: MessageInfo): void {
    if (this.#closed) return;
    const wire = this.#cross("server→client", message);
    queueMicrotask(() => {
      if (!this.#closed) this.onmessage?.(wire, info);
    });
  }

  #cross(direction: WireDirection, message: JSONRPCMessage): JSONRPCMessage {
    const wire = JSON.parse(JSON.stringify(message)) as JSONRPCMessage;
    this.#options.onWire?.(direction, wire);
    return wire;
  }
}
