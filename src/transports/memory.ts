import { Cancellation } from "../shared/cancellation.js";
import type { AuthInfo, Dispatcher } from "../shared/dispatch.js";
import { LazyDispatchContext } from "../shared/lazy-signal.js";
import type { MessageInfo, Transport } from "../shared/transport.js";
import { ErrorCode, MetaKey, NotificationMethod, validCancelledNotificationParams } from "../types/core.js";
import type {
  CancelledNotificationParams,
  JSONRPCErrorResponse,
  JSONRPCMessage,
  RequestId,
} from "../types/index.js";

/**
 * What a dual-era target (`Server`, `MCPServer`) offers a message pipe through `legacy.connect`:
 * the connection's era lock. Duck-typed, so the client side never imports server code.
 */
interface EraLock extends Dispatcher {
  notification(message: { method: string; params?: unknown }): void;
  response(message: Record<string, unknown>): boolean;
  close(): void;
}

function eraLockOf(
  target: Dispatcher,
  write: (message: JSONRPCMessage) => Promise<void>,
): EraLock | undefined {
  const legacy = (target as { legacy?: { connect?: unknown } }).legacy;
  if (typeof legacy?.connect !== "function") return undefined;
  return (
    legacy.connect as (dispatcher: Dispatcher, write: (message: JSONRPCMessage) => Promise<void>) => EraLock
  )(target, write);
}

/** True for a 2025 `initialize`: no `_meta` envelope naming a protocol version. */
function opensLegacySession(wire: Record<string, unknown>): boolean {
  const meta = (wire.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return wire.method === "initialize" && meta?.[MetaKey.ProtocolVersion] === undefined;
}

/** The answer a stdio pipe gives a request it could not answer otherwise. */
function internalError(id: RequestId): JSONRPCErrorResponse {
  return { jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message: "Internal error" } };
}

/** Which way a message crossed the in-memory wire. */
export type WireDirection = "client→server" | "server→client";

/** Options of `new MemoryTransport(server, options)`. */
export interface MemoryTransportOptions {
  /** Presented to the server as the request's verified token (as an HTTP auth hook would). */
  authInfo?: AuthInfo;
  /** Sees every message exactly as serialized on the wire; for tests and tracing. Implies `serialize`. */
  onWire?: (direction: WireDirection, message: JSONRPCMessage) => void;
  /**
   * Serialize every message to JSON and parse it back, as a real wire would (default `false`,
   * `true` when `onWire` is set). Off, both sides share the message objects: nothing in roundtrip
   * mutates a message it received, but an application that mutates a result it got, or keeps a
   * non-JSON value (a `Date`, `undefined`) in one, sees that on the other side.
   */
  serialize?: boolean;
}

/**
 * The client end of an in-process connection to a server: speaks 2026-07-28 directly (no
 * handshake). Messages are handed over as objects; `serialize: true` (or an `onWire` tap) makes
 * every one cross as JSON, so both sides see exactly what a real wire would carry.
 *
 * @example
 * const session = new ClientSession(new MemoryTransport(server));
 */
export class MemoryTransport implements Transport {
  readonly #target: Dispatcher;
  readonly #options: MemoryTransportOptions;
  readonly #inFlight = new Map<RequestId, Cancellation>();
  #closed = false;
  /** Set by an `initialize` without the envelope, when the target serves 2025 clients too. */
  #legacy: EraLock | undefined;
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
    if (this.#legacy === undefined && opensLegacySession(wire)) {
      this.#legacy = eraLockOf(this.#target, async (out) => this.#deliver(out, {}));
    }
    if (this.#legacy && typeof wire.method !== "string") {
      this.#legacy.response(wire); // the answer to one of the 2025 server's requests
      return;
    }
    if (typeof wire.method === "string" && (wire.id === undefined || wire.id === null)) {
      this.#receiveNotification(wire);
      return;
    }
    const id = wire.id as RequestId;
    const pending = new Cancellation();
    this.#inFlight.set(id, pending);
    const context = new LazyDispatchContext(
      pending,
      (notification) => this.#deliver(notification, { relatedRequestId: id }),
      this.#options.authInfo,
    );
    void this.#answer(wire, context, id, pending);
  }

  async #answer(
    wire: Record<string, unknown>,
    context: LazyDispatchContext,
    id: RequestId,
    pending: Cancellation,
  ) {
    try {
      const response = await (this.#legacy ?? this.#target).dispatch(wire, context);
      if (response && !pending.cancelled()) this.#deliver(response, {});
    } catch {
      // A failed dispatch, or a response that cannot cross as JSON (a BigInt): the client still
      // gets an answer for its id, as on a stdio pipe, and never the server's error text.
      if (!pending.cancelled()) this.#deliver(internalError(id), {});
    } finally {
      this.#inFlight.delete(id);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const pending of this.#inFlight.values()) pending.cancel();
    this.#inFlight.clear();
    this.#legacy?.close();
    this.onclose?.();
  }

  #receiveNotification(notification: Record<string, unknown>): void {
    this.#legacy?.notification({ method: String(notification.method), params: notification.params });
    if (notification.method !== NotificationMethod.Cancelled) return;
    const params = notification.params;
    if (!validCancelledNotificationParams(params)) return;
    this.#inFlight.get((params as CancelledNotificationParams).requestId)?.cancel();
  }

  #deliver(message: JSONRPCMessage, info: MessageInfo): void {
    if (this.#closed) return;
    const wire = this.#cross("server→client", message);
    queueMicrotask(() => {
      if (!this.#closed) this.onmessage?.(wire, info);
    });
  }

  #cross(direction: WireDirection, message: JSONRPCMessage): JSONRPCMessage {
    const { onWire, serialize } = this.#options;
    if (onWire === undefined && serialize !== true) return message;
    const wire = JSON.parse(JSON.stringify(message)) as JSONRPCMessage;
    onWire?.(direction, wire);
    return wire;
  }
}
