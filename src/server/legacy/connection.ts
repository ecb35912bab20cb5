/**
 * The era lock of one message-pipe connection (stdio, in-memory): the first exchange decides. A
 * request carrying the `_meta` envelope locks the connection modern; `initialize` locks it legacy
 * and opens its one 2025 session. Afterwards the other era's opening is refused.
 */
import type { DispatchContext, Dispatcher } from "../../shared/dispatch.js";
import { ErrorCode, LegacyMethod, MetaKey, MODERN_PROTOCOL_VERSIONS } from "../../types/core.js";
import type { JSONRPCMessage, JSONRPCResponse } from "../../types/index.js";
import { isRecord, requestIdOf } from "../../types/record.js";
import type { LegacyService } from "./service.js";
import type { LegacySession } from "./session.js";

/**
 * True when a message carries the 2026-07-28 envelope (`params._meta` names a protocol version):
 * such a request is modern whatever else it holds.
 *
 * @example
 * hasModernEnvelope({ method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } }); // true
 */
export function hasModernEnvelope(message: unknown): boolean {
  if (!isRecord(message) || !isRecord(message.params) || !isRecord(message.params._meta)) return false;
  return message.params._meta[MetaKey.ProtocolVersion] !== undefined;
}

/**
 * True for the request that opens a 2025 session: `initialize` without the modern envelope.
 *
 * @example
 * opensLegacySession({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25" } }); // true
 */
export function opensLegacySession(message: unknown): boolean {
  return isRecord(message) && message.method === LegacyMethod.Initialize && !hasModernEnvelope(message);
}

/**
 * One connection's era: `open` until the first exchange, then `modern` or `legacy` for good.
 *
 * @example
 * const era = openDualEraConnection(server, (message) => writeLine(message));
 * const response = await (era ?? server).dispatch(message, { signal });
 */
export class DualEraConnection {
  readonly #dispatcher: Dispatcher;
  readonly #service: LegacyService;
  readonly #write: (message: JSONRPCMessage) => Promise<void>;
  #era: "open" | "modern" | "legacy" = "open";
  #session: LegacySession | undefined;

  constructor(
    dispatcher: Dispatcher,
    service: LegacyService,
    write: (message: JSONRPCMessage) => Promise<void>,
  ) {
    this.#dispatcher = dispatcher;
    this.#service = service;
    this.#write = write;
  }

  /** `open`, `modern` or `legacy`. */
  get era(): "open" | "modern" | "legacy" {
    return this.#era;
  }

  /** The 2025 session, once `initialize` locked the connection legacy. */
  get session(): LegacySession | undefined {
    return this.#session;
  }

  /** Serves one request under the connection's era (locking it on the first exchange). */
  dispatch(message: unknown, context: DispatchContext = {}): Promise<JSONRPCResponse | undefined> {
    const record = isRecord(message) ? message : {};
    if (hasModernEnvelope(message)) {
      if (this.#era === "legacy") return Promise.resolve(this.#modernOnLegacy(record));
      this.#era = "modern";
      return this.#dispatcher.dispatch(message, context);
    }
    if (record.method === LegacyMethod.Initialize) {
      if (this.#era === "modern") return Promise.resolve(this.#initializeOnModern(record));
      if (this.#era === "open") {
        this.#era = "legacy";
        this.#session = this.#service.openSession();
        this.#session.attach(this.#write);
      }
    }
    const session = this.#session;
    if (session === undefined) return this.#dispatcher.dispatch(message, context);
    return session.handle(message, {
      send: this.#write,
      signal: context.signal,
      authInfo: context.authInfo,
      http: context.http,
      transport: context.transport,
    });
  }

  /** A client notification (`initialized`, `cancelled`): only a legacy session acts on them. */
  notification(message: { method: string; params?: unknown }): void {
    this.#session?.notification(message);
  }

  /** A client response: the answer to one of the session's server → client requests. */
  response(message: Record<string, unknown>): boolean {
    return this.#session?.receive(message) ?? false;
  }

  /** No more input will come: questions waiting for an answer fail now; running handlers go on. */
  inputEnded(): void {
    this.#session?.inputEnded();
  }

  /** The connection is gone: the session's work is aborted. */
  close(): void {
    this.#session?.close("connection closed");
  }

  #modernOnLegacy(record: Record<string, unknown>): JSONRPCResponse {
    const version = this.#session?.protocolVersion ?? "2025-11-25";
    return {
      jsonrpc: "2.0",
      id: requestIdOf(record),
      error: {
        code: ErrorCode.InvalidRequest,
        message:
          `Invalid Request: this connection negotiated protocol revision ${version} with initialize; ` +
          "requests carrying the 2026-07-28 _meta envelope are not accepted on it",
      },
    };
  }

  #initializeOnModern(record: Record<string, unknown>): JSONRPCResponse {
    const requested = isRecord(record.params) ? record.params.protocolVersion : undefined;
    return {
      jsonrpc: "2.0",
      id: requestIdOf(record),
      error: {
        code: ErrorCode.UnsupportedProtocolVersion,
        message: "Unsupported protocol version",
        data: {
          supported: [...MODERN_PROTOCOL_VERSIONS],
          requested: typeof requested === "string" ? requested : "unknown",
        },
      },
    };
  }
}

/**
 * The era lock for a connection to `dispatcher`, or `undefined` when it serves only the modern
 * era (a plain `Dispatcher`, or a server built with `legacy: false`).
 *
 * @example
 * const era = openDualEraConnection(dispatcher, send);
 */
export function openDualEraConnection(
  dispatcher: Dispatcher,
  write: (message: JSONRPCMessage) => Promise<void>,
): DualEraConnection | undefined {
  const legacy = (dispatcher as Dispatcher & { legacy?: { connect?: unknown } }).legacy;
  if (typeof legacy?.connect !== "function") return undefined;
  return (legacy as LegacyService).connect(dispatcher, write);
}
