/**
 * The server side of one persistent JSON-RPC connection — a stdio pipe, an HTTP+SSE session —
 * whatever carries its bytes: requests run concurrently and answer on the connection, a
 * `notifications/cancelled` aborts its request (which then gets no response), and responses feed
 * a 2025 session's back-channel. The first exchange locks the connection's era (dual-era servers).
 */
import { openDualEraConnection } from "../server/legacy/connection.js";
import type { AuthInfo, Dispatcher, HttpRequestView } from "../shared/dispatch.js";
import { messageOf } from "../shared/errors.js";
import { ErrorCode, NotificationMethod, validCancelledNotificationParams } from "../types/core.js";
import type {
  CancelledNotificationParams,
  JSONRPCErrorResponse,
  JSONRPCResponse,
  RequestId,
} from "../types/index.js";
import { isRecord, requestIdOf } from "../types/record.js";

/** Who sent a message, as far as its transport knows. */
export interface MessageOrigin {
  readonly authInfo?: AuthInfo | undefined;
  readonly http?: HttpRequestView | undefined;
  /** `"pipe"` for stdio (see `DispatchContext.transport`). */
  readonly transport?: "pipe" | undefined;
}

interface InFlight {
  readonly id: RequestId | null;
  readonly controller: AbortController;
  /**
   * A listen stream's: it never finishes by itself, so the server ends it (aborting its signal)
   * and it still answers with its closing result; resolves once that is written.
   */
  readonly end?: () => Promise<void>;
}

/**
 * How a pipe reaches its transport.
 *
 * @example
 * const pipe = servePipe(server, { send, deliver: send, lost: () => false, logger, onSettled });
 */
export interface PipeWiring {
  /** Writes a server message (a notification, a back-channel request, an error); never rejects. */
  send(message: unknown): Promise<void>;
  /** Writes a response; rejects when it cannot be serialized or the connection failed. */
  deliver(response: unknown): Promise<void>;
  /** Whether a `deliver` failure means the connection is gone (nothing to answer on). */
  lost(error: unknown): boolean;
  logger: { error(message: string): void };
  /** A request finished (answered, failed or aborted). */
  onSettled?: () => void;
  /**
   * Most requests served at once, counting those whose answer waits for the client to read it;
   * `receive` refuses one more. Default: no bound (stdio, whose client is the process's parent).
   */
  maxInFlight?: number;
}

/**
 * A JSON-RPC error message.
 *
 * @example
 * errorMessage(null, -32700, "Parse error"); // { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }
 */
export function errorMessage(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): JSONRPCErrorResponse {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** One connection's server side, as `servePipe` returns it. */
export interface ServerPipe {
  /** Requests still running. */
  readonly inFlight: () => number;
  /**
   * One parsed message from the client; `from` is what the transport knows of who sent it (the
   * verified token, the HTTP request that carried it). False when it was refused: a message to
   * answer while `maxInFlight` requests are in flight (notifications and responses never are).
   */
  receive(message: unknown, from?: MessageOrigin): boolean;
  /**
   * No more input will come: questions waiting for the client fail, listen streams end with their
   * closing result (they would never finish), other requests go on.
   */
  endInput(): void;
  /** Ends the listen streams, each answered with its closing result; resolves once those are written. */
  endStreams(): Promise<void>;
  /** Aborts every request still running; they get no response. */
  abortAll(reason: string): void;
  /** The connection is gone: the 2025 session's work and every request are aborted. */
  close(reason: string): void;
}

/**
 * Serves the messages of one connection (see the module comment). Closures rather than a class:
 * this is in every stdio server's bundle.
 *
 * @example
 * const pipe = servePipe(server, wiring);
 * pipe.receive(JSON.parse(line));
 */
export function servePipe(dispatcher: Dispatcher, wiring: PipeWiring): ServerPipe {
  const inFlight = new Set<InFlight>();
  let closed = false;
  const send = (message: unknown): Promise<void> => (closed ? Promise.resolve() : wiring.send(message));
  const era = openDualEraConnection(dispatcher, send);
  const report = (what: string, error: unknown) => wiring.logger.error(`${what}: ${messageOf(error)}`);
  const abortAll = (reason: string) => {
    for (const entry of inFlight) entry.controller.abort(reason);
    inFlight.clear();
  };

  const serve = (message: unknown, from: MessageOrigin | undefined) => {
    const controller = new AbortController();
    const { signal } = controller;
    /** Ended by the server rather than cancelled: the response still goes out. */
    let ending = false;
    const dropped = () => (signal.aborted || closed) && !ending;
    // Anything that is not a notification or a response goes to the dispatcher, which answers
    // malformed requests (arrays, missing jsonrpc, bad ids) with -32600 itself.
    let dispatched: Promise<JSONRPCResponse | undefined>;
    try {
      dispatched = (era ?? dispatcher).dispatch(message, {
        signal,
        cancelled: dropped,
        notify: (notification) => (signal.aborted ? undefined : send(notification)),
        authInfo: from?.authInfo,
        http: from?.http,
        transport: from?.transport,
      });
    } catch (error) {
      // A dispatcher that throws synchronously is answered like one that rejects (as over HTTP),
      // rather than throwing out of the input stream's 'data' handler and ending the process.
      dispatched = Promise.reject(error);
    }
    const done = dispatched
      .then(
        (response) => {
          if (!response || dropped()) return;
          return wiring.deliver(response).catch((error: unknown) => {
            if (wiring.lost(error)) return;
            // Unserializable (a BigInt, a cycle): the client must still get an answer for its id.
            report("could not serialize a response", error);
            return send(errorMessage(response.id ?? null, ErrorCode.InternalError, "Internal error"));
          });
        },
        (error: unknown) => {
          report("dispatch failed", error);
          if (!dropped() && entry.id !== null) {
            return send(errorMessage(entry.id, ErrorCode.InternalError, "Internal error"));
          }
        },
      )
      .finally(() => {
        inFlight.delete(entry);
        wiring.onSettled?.();
      });
    const end = () => {
      // One the client cancelled already stays cancelled: it gets no response.
      ending = !signal.aborted;
      controller.abort("server closing");
      return done;
    };
    const entry: InFlight = {
      id: requestIdOf(message),
      controller,
      end: isRecord(message) && message.method === "subscriptions/listen" ? end : undefined,
    };
    inFlight.add(entry);
  };
  const endStreams = async () => {
    const ended: Promise<void>[] = [];
    for (const entry of inFlight) if (entry.end) ended.push(entry.end());
    await Promise.all(ended);
  };

  const cancel = (params: unknown) => {
    if (!validCancelledNotificationParams(params)) return;
    const { requestId, reason } = params as CancelledNotificationParams;
    // An unknown or finished id is a normal race (the response crossed the notification): ignore it.
    for (const entry of inFlight) {
      if (entry.id === requestId) entry.controller.abort(reason ?? "cancelled");
    }
  };

  return {
    inFlight: () => inFlight.size,
    receive(message, from) {
      if (closed) return true;
      if (isRecord(message) && typeof message.method === "string" && !("id" in message)) {
        if (message.method === NotificationMethod.Cancelled) cancel(message.params);
        era?.notification({ method: message.method, params: message.params });
        return true; // Other client notifications carry nothing a stateless server acts on.
      }
      // A response: only a legacy session's back-channel waits for one; modern servers send none.
      if (isRecord(message) && !("method" in message) && ("result" in message || "error" in message)) {
        era?.response(message);
        return true;
      }
      if (inFlight.size >= (wiring.maxInFlight ?? Number.POSITIVE_INFINITY)) return false;
      serve(message, from);
      return true;
    },
    endInput() {
      era?.inputEnded();
      void endStreams();
    },
    endStreams,
    abortAll,
    close(reason) {
      closed = true;
      era?.close();
      abortAll(reason);
    },
  };
}
