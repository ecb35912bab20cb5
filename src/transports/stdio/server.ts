import type { Readable, Writable } from "node:stream";
import { openDualEraConnection } from "../../server/legacy/connection.js";
import type { Dispatcher } from "../../shared/dispatch.js";
import { ErrorCode, NotificationMethod, validCancelledNotificationParams } from "../../types/core.js";
import type { CancelledNotificationParams, JSONRPCErrorResponse, RequestId } from "../../types/index.js";
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, LineWriter, StreamClosedError } from "./lines.js";

/**
 * Default time in-flight requests get to finish after stdin ends (5 s).
 *
 * @example
 * serveStdio(server, { drainTimeoutMs: DEFAULT_DRAIN_TIMEOUT_MS * 6 }); // long-running tools
 */
export const DEFAULT_DRAIN_TIMEOUT_MS = 5_000;

/**
 * Where the stdio server reports what it cannot put on the wire. A `Server`'s `Logger` fits.
 *
 * @example
 * serveStdio(server, { logger: server.logger });
 */
export interface StdioLogger {
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Options of `serveStdio`.
 *
 * @example
 * serveStdio(server, { maxLineBytes: 1024 * 1024, drainTimeoutMs: 10_000 });
 */
export interface ServeStdioOptions {
  /** Where requests come from. Default `process.stdin`. */
  stdin?: Readable;
  /** Where responses go; nothing but JSON-RPC lines is ever written to it. Default `process.stdout`. */
  stdout?: Writable;
  /** Default: one line per message on stderr (stdout belongs to the protocol). */
  logger?: StdioLogger;
  /** Longest accepted line in bytes (default 4 MiB); a longer one is dropped with a -32600 error. */
  maxLineBytes?: number;
  /** How long in-flight requests may run after stdin ends before they are aborted (default 5 s). */
  drainTimeoutMs?: number;
}

/**
 * A running stdio server.
 *
 * @example
 * const handle = serveStdio(server);
 * process.on("SIGTERM", () => handle.close());
 * await handle.closed;
 */
export interface StdioServerHandle {
  /** Resolves once input ended (or `close()` was called), requests settled and output was flushed. */
  readonly closed: Promise<void>;
  /** Stops now: stops reading, aborts in-flight requests (they get no response), flushes, resolves `closed`. */
  close(): void;
}

interface InFlight {
  readonly id: RequestId | undefined;
  readonly controller: AbortController;
  /** A listen stream: it never finishes by itself, so end of input ends it at once. */
  readonly longLived: boolean;
}

let stderrGuarded = false;

/** The default logger; it also makes a closed stderr harmless, as a stdio server owns its stdio. */
function stderrLogger(): StdioLogger {
  if (!stderrGuarded) {
    stderrGuarded = true;
    process.stderr.on("error", () => {});
  }
  const line = (level: string) => (message: string) => {
    if (!process.stderr.destroyed) process.stderr.write(`[roundtrip] stdio ${level}: ${message}\n`);
  };
  return { warn: line("warn"), error: line("error") };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function validIdOf(message: unknown): RequestId | undefined {
  const id = isRecord(message) ? message.id : undefined;
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : undefined;
}

function errorLine(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): JSONRPCErrorResponse {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/**
 * Serves a `Server` (or any `Dispatcher`) over stdio: newline-delimited JSON-RPC on stdin and
 * stdout. Requests run concurrently (a pipe is not a session); each one's progress and log
 * notifications are written as their own lines before its response. `notifications/cancelled`
 * aborts the request's signal and nothing more is written for it. When stdin ends, in-flight
 * requests get `drainTimeoutMs` to finish, then `closed` resolves; if a handler may keep timers
 * alive past that, exit explicitly.
 *
 * @example
 * const server = new Server("Provisioner", { onCallTool: ... });
 * const { closed } = serveStdio(server);
 * await closed;
 * process.exit(0);
 */
export function serveStdio(dispatcher: Dispatcher, options: ServeStdioOptions = {}): StdioServerHandle {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const logger = options.logger ?? stderrLogger();
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;

  const inFlight = new Set<InFlight>();
  let ending = false;
  let finished = false;
  let drainTimer: ReturnType<typeof setTimeout> | undefined;
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const writer = new LineWriter(stdout, (error) => {
    // EPIPE and friends: the client stopped reading, so nothing we compute can be delivered.
    logger.error(`stdout failed (${error.message}); stopping`);
    stop();
  });
  // A broken stdout is handled once, by the writer's error callback; single writes just give up.
  const send = (message: unknown): Promise<void> =>
    finished ? Promise.resolve() : writer.write(message).catch(() => {});
  // Dual-era servers: the first exchange locks the pipe modern (envelope) or legacy (initialize).
  const era = openDualEraConnection(dispatcher, send);

  const lines = new LineSplitter(maxLineBytes, onLine, () => {
    logger.warn(`dropped an incoming line longer than ${maxLineBytes} bytes`);
    void send(errorLine(null, ErrorCode.InvalidRequest, "Message too large", { maxLineBytes }));
  });

  function onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      logger.warn(`answered a line that is not JSON (${line.length} characters) with -32700`);
      void send(errorLine(null, ErrorCode.ParseError, "Parse error"));
      return;
    }
    if (isRecord(message) && typeof message.method === "string" && !("id" in message)) {
      if (message.method === NotificationMethod.Cancelled) cancel(message.params);
      era?.notification({ method: message.method, params: message.params });
      return; // Other client notifications carry nothing a stateless server acts on.
    }
    // A response: only a legacy session's back-channel waits for one; modern servers send no requests.
    if (isRecord(message) && !("method" in message) && ("result" in message || "error" in message)) {
      era?.response(message);
      return;
    }
    serve(message);
  }

  function serve(message: unknown): void {
    const longLived = isRecord(message) && message.method === "subscriptions/listen";
    const entry: InFlight = { id: validIdOf(message), controller: new AbortController(), longLived };
    const { signal } = entry.controller;
    inFlight.add(entry);
    // Anything that is not a notification or a response goes to the dispatcher, which answers
    // malformed requests (arrays, missing jsonrpc, bad ids) with -32600 itself.
    (era ?? dispatcher)
      .dispatch(message, {
        signal,
        notify: (notification) => (signal.aborted ? undefined : send(notification)),
      })
      .then(
        (response) => {
          if (!response || signal.aborted || finished) return;
          return writer.write(response).catch((error: unknown) => {
            if (writer.error !== undefined || error instanceof StreamClosedError) return;
            // Unserializable (a BigInt, a cycle): the client must still get an answer for its id.
            logger.error(`could not serialize a response: ${error instanceof Error ? error.message : error}`);
            return send(errorLine(response.id ?? null, ErrorCode.InternalError, "Internal error"));
          });
        },
        (error: unknown) => {
          logger.error(`dispatch failed: ${error instanceof Error ? error.message : String(error)}`);
          if (!signal.aborted && entry.id !== undefined) {
            return send(errorLine(entry.id, ErrorCode.InternalError, "Internal error"));
          }
        },
      )
      .finally(() => {
        inFlight.delete(entry);
        if (ending && inFlight.size === 0) finish();
      });
  }

  function cancel(params: unknown): void {
    if (!validCancelledNotificationParams(params)) return;
    const { requestId, reason } = params as CancelledNotificationParams;
    // An unknown or finished id is a normal race (the response crossed the notification): ignore it.
    for (const entry of inFlight) {
      if (entry.id === requestId) entry.controller.abort(reason ?? "cancelled");
    }
  }

  const onData = (chunk: Buffer | string) => {
    if (!ending) lines.push(chunk);
  };
  const onEnd = () => {
    if (ending) return;
    lines.end();
    beginDrain();
  };
  const onInputError = (error: Error) => {
    logger.warn(`stdin failed (${error.message}); treating it as end of input`);
    onEnd();
  };
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.on("close", onEnd);
  stdin.on("error", onInputError);
  // A stream that already ended will never say so again.
  if (stdin.readableEnded) queueMicrotask(onEnd);

  function detach(): void {
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.off("close", onEnd);
    stdin.off("error", onInputError);
    // A paused stdin no longer holds the event loop open, so the process can exit on its own.
    stdin.pause();
  }

  function beginDrain(): void {
    ending = true;
    detach();
    era?.inputEnded();
    for (const entry of [...inFlight]) {
      if (!entry.longLived) continue;
      entry.controller.abort("end of input");
      inFlight.delete(entry);
    }
    if (inFlight.size === 0) {
      finish();
      return;
    }
    drainTimer = setTimeout(() => {
      logger.warn(
        `aborting ${inFlight.size} request(s) still running ${drainTimeoutMs} ms after end of input`,
      );
      abortAll("end of input");
      finish();
    }, drainTimeoutMs);
  }

  function abortAll(reason: string): void {
    for (const entry of inFlight) entry.controller.abort(reason);
    inFlight.clear();
  }

  function finish(): void {
    if (finished) return;
    if (drainTimer) clearTimeout(drainTimer);
    // Flush what is queued, but never wait forever on a client that stopped reading.
    const flushed = writer.flushed();
    finished = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, drainTimeoutMs);
    });
    void Promise.race([flushed, bound]).then(() => {
      clearTimeout(timer);
      resolveClosed();
    });
  }

  function stop(): void {
    ending = true;
    detach();
    era?.close();
    abortAll("server closed");
    finish();
  }

  return { closed, close: stop };
}
