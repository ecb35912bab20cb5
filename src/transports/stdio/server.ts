import type { Readable, Writable } from "node:stream";
import type { Dispatcher } from "../../shared/dispatch.js";
import { timerDelay } from "../../shared/timers.js";
import { ErrorCode } from "../../types/core.js";
import { errorMessage, servePipe } from "../pipe.js";
import { droppedId } from "./dropped.js";
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, LineWriter, StreamClosedError } from "./lines.js";
import { lineBoundOf, waitOf } from "./options.js";

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
  /**
   * Longest accepted line in bytes, a positive integer (default 4 MiB); a longer one is dropped
   * with a -32600 error (carrying the request's id when the line's first bytes name it).
   * Also how much output may wait for a client that does not read it before stdin is paused.
   */
  maxLineBytes?: number;
  /** How long (ms, ≥ 0) in-flight requests may run after stdin ends before they are aborted (default 5 s). */
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
  /**
   * Stops now: stops reading, ends listen streams with their closing result, aborts other in-flight
   * requests (they get no response), flushes, resolves `closed`.
   */
  close(): void;
}

/** Where every stdio message comes from, as telemetry records it. */
const STDIO = { transport: "pipe" } as const;

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
  // Checked before anything is attached: a refused option leaves the streams as they were.
  const maxLineBytes = lineBoundOf("maxLineBytes", options.maxLineBytes, DEFAULT_MAX_LINE_BYTES);
  const drainTimeoutMs = waitOf("drainTimeoutMs", options.drainTimeoutMs, DEFAULT_DRAIN_TIMEOUT_MS);
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const given = options.logger ?? stderrLogger();
  // Called from stdin's events, timers and settled requests: a throw there would end the server
  // and skip the answer it reports on, so it is ignored.
  const log =
    (level: keyof StdioLogger) =>
    (message: string): void => {
      try {
        given[level](message);
      } catch {}
    };
  const logger: StdioLogger = { warn: log("warn"), error: log("error") };

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
  const pipe = servePipe(dispatcher, {
    send,
    // Only requests still running are delivered, and finishing aborted those.
    deliver: (response) => writer.write(response),
    lost: (error) => writer.error !== undefined || error instanceof StreamClosedError,
    logger,
    onSettled: () => {
      if (ending && pipe.inFlight() === 0) finish();
    },
  });

  const lines = new LineSplitter(maxLineBytes, onLine, (head) => {
    logger.warn(`dropped an incoming line longer than ${maxLineBytes} bytes`);
    // With the request's id when its head names it: the client's call then fails at once.
    const id = droppedId(head, "request") ?? null;
    void send(errorMessage(id, ErrorCode.InvalidRequest, "Message too large", { maxLineBytes }));
  });

  function onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      logger.warn(`answered a line that is not JSON (${line.length} characters) with -32700`);
      void send(errorMessage(null, ErrorCode.ParseError, "Parse error"));
      return;
    }
    pipe.receive(message, STDIO);
  }

  const onData = (chunk: Buffer | string) => {
    if (ending) return;
    lines.push(chunk);
    // A client that sends but does not read: stop taking requests until it takes the answers,
    // so their output cannot grow without bound.
    if (writer.queuedBytes > maxLineBytes) {
      stdin.pause();
      void writer.flushed().then(() => {
        if (!ending) stdin.resume();
      });
    }
  };
  const onEnd = () => {
    if (ending) return;
    lines.end();
    beginDrain();
  };
  const onInputError = (error: Error) => {
    // Left attached at the end (see detach): an error then is no news, but must not be uncaught.
    if (ending) return;
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
    // A paused stdin no longer holds the event loop open, so the process can exit on its own.
    stdin.pause();
  }

  function beginDrain(): void {
    ending = true;
    detach();
    pipe.endInput();
    if (pipe.inFlight() === 0) {
      finish();
      return;
    }
    drainTimer = setTimeout(() => {
      logger.warn(
        `aborting ${pipe.inFlight()} request(s) still running ${drainTimeoutMs} ms after end of input`,
      );
      pipe.abortAll("end of input");
      finish();
    }, timerDelay(drainTimeoutMs));
  }

  /** Resolves `closed` once `pending` (the listen streams' closing results) and the output are flushed. */
  function finish(pending?: Promise<void>): void {
    if (finished) return;
    if (drainTimer) clearTimeout(drainTimer);
    // Nothing runs any more: end the connection's 2025 session, which the server would keep forever.
    pipe.close("end of input");
    // Flush what is queued, but never wait forever on a client that stopped reading.
    const flushed = pending ? pending.then(() => writer.flushed()) : writer.flushed();
    finished = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timerDelay(drainTimeoutMs));
    });
    void Promise.race([flushed, bound]).then(() => {
      clearTimeout(timer);
      resolveClosed();
    });
  }

  function stop(): void {
    ending = true;
    detach();
    // Listen streams get their closing result, as over HTTP; every other request is aborted.
    const streams = pipe.endStreams();
    pipe.close("server closed");
    finish(streams);
  }

  return { closed, close: stop };
}
