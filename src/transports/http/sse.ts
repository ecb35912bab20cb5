/**
 * Server-sent events, both ends: the server's per-request response stream (notifications, then
 * the response, keep-alive comments while open) and the client's incremental parser.
 */

import { timerDelay } from "../../shared/timers.js";
import { serializeMessage } from "./body.js";
import { MAX_RESPONSE_BYTES, ResponseTooLargeError } from "./errors.js";

const encoder = new TextEncoder();

/** Headers every SSE response carries: no proxy buffering (nginx), no caching. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  "X-Accel-Buffering": "no",
});

/** One `data:` event holding a JSON-RPC message (JSON.stringify never emits a raw newline). */
export function sseEvent(json: string): string {
  return `data: ${json}\n\n`;
}

/**
 * The body of one SSE response. `write` applies backpressure (resolves once the reader has room),
 * so a handler that floods progress cannot grow memory without bound; `end` never waits. When the
 * reader goes away (`cancel`), `onCancel` fires once and later writes are dropped.
 */
export class SseStream {
  readonly readable: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #open = true;
  #waiters: (() => void)[] = [];
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(options: { keepAliveMs: number; onCancel: () => void }) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => this.#wake(),
        cancel: () => {
          this.#shut();
          options.onCancel();
        },
      },
      new CountQueuingStrategy({ highWaterMark: 32 }),
    );
    if (options.keepAliveMs > 0 && Number.isFinite(options.keepAliveMs)) {
      this.#keepAlive = setInterval(() => {
        // A reader that is behind has bytes waiting already: one more comment would only pile up
        // for as long as a client that stopped reading keeps its connection open.
        if ((this.#controller?.desiredSize ?? 1) > 0) this.#enqueue(": keep-alive\n\n");
      }, timerDelay(options.keepAliveMs));
    }
  }

  /**
   * Writes one notification as an event, waiting while the reader is behind. Throws when it cannot
   * be serialized, so the handler that sent it learns of it.
   */
  async write(message: unknown): Promise<void> {
    if (!this.#enqueue(sseEvent(JSON.stringify(message)))) return;
    while (this.#open && (this.#controller?.desiredSize ?? 1) <= 0) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Writes one named event with plain-text data (one line), e.g. HTTP+SSE's `endpoint`. */
  announce(event: string, data: string): void {
    this.#enqueue(`event: ${event}\ndata: ${data}\n\n`);
  }

  /** Whether the reader is still there. */
  get open(): boolean {
    return this.#open;
  }

  /** Writes the last message (if any) and closes the stream. */
  end(message?: unknown): void {
    if (message !== undefined) this.#enqueue(sseEvent(serializeMessage(message)));
    if (this.#open) {
      this.#shut();
      try {
        this.#controller?.close();
      } catch {
        // Already errored or cancelled: nothing left to close.
      }
    }
  }

  #enqueue(chunk: string): boolean {
    if (!this.#open || !this.#controller) return false;
    try {
      this.#controller.enqueue(encoder.encode(chunk));
      return true;
    } catch {
      this.#shut();
      return false;
    }
  }

  #wake(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  #shut(): void {
    this.#open = false;
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
    this.#wake();
  }
}

/** One dispatched SSE event. */
export interface SseMessageEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

const LINE_END = /[\r\n]/g;

/**
 * Incremental SSE parser (the WHATWG event-stream rules): CR, LF and CRLF line ends (also split
 * across chunks), multi-line `data`, comment lines ignored, an unterminated last event dropped.
 *
 * @example
 * const parser = new SseParser((event) => console.log(JSON.parse(event.data)));
 * parser.push("data: {\"a\":\n"); parser.push("\n");
 */
export class SseParser {
  readonly #onEvent: (event: SseMessageEvent) => void;
  readonly #maxEventBytes: number;
  readonly #decoder = new TextDecoder();
  /** Bytes pushed since the last blank line: what the event being read has cost so far. */
  #eventBytes = 0;
  /** The complete lines of the event being read: a chunk may hold a whole event past the bound. */
  #eventLines = 0;
  /** The line being read, in pieces: joined once it ends, never re-scanned (a long line costs linear time). */
  #partial: string[] = [];
  #skipLeadingLf = false;
  #data: string[] = [];
  #event = "";
  #id: string | undefined;
  #retryMs: number | undefined;

  /** `maxEventBytes` bounds one event with its field lines (default 32 MiB); past it, `push` throws. */
  constructor(onEvent: (event: SseMessageEvent) => void, maxEventBytes = MAX_RESPONSE_BYTES) {
    this.#onEvent = onEvent;
    this.#maxEventBytes = maxEventBytes;
  }

  /** The last event ID the stream set (WHATWG: it persists across events), for `Last-Event-ID`. */
  get lastEventId(): string | undefined {
    return this.#id;
  }

  /** The reconnection time the stream asked for with a `retry:` field, in milliseconds. */
  get retryMs(): number | undefined {
    return this.#retryMs;
  }

  /** Feeds a chunk (bytes or text). */
  push(chunk: Uint8Array | string): void {
    this.#eventBytes += typeof chunk === "string" ? chunk.length : chunk.byteLength;
    let text = typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (text === "") return;
    if (this.#skipLeadingLf && text.startsWith("\n")) text = text.slice(1);
    this.#skipLeadingLf = false;
    let start = 0;
    for (;;) {
      LINE_END.lastIndex = start;
      const end = LINE_END.exec(text)?.index;
      if (end === undefined) {
        if (start < text.length) this.#partial.push(text.slice(start));
        break;
      }
      const rest = text.slice(start, end);
      const line = this.#partial.length === 0 ? rest : this.#partial.join("") + rest;
      this.#partial = [];
      start = end + 1;
      if (text[end] === "\r") {
        if (start === text.length) this.#skipLeadingLf = true;
        else if (text[start] === "\n") start++;
      }
      if (line === "") {
        if (this.#eventLines > this.#maxEventBytes) this.#tooLarge();
        this.#eventLines = 0;
        // What is still unread belongs to the next event.
        this.#eventBytes = text.length - start;
      } else this.#eventLines += line.length + 1;
      this.#line(line);
    }
    if (this.#eventBytes > this.#maxEventBytes) this.#tooLarge();
  }

  #tooLarge(): never {
    throw new ResponseTooLargeError(`an SSE event is larger than ${this.#maxEventBytes} bytes`);
  }

  #line(line: string): void {
    if (line === "") {
      const data = this.#data.join("\n");
      // An event whose data buffer is empty is not dispatched.
      if (data !== "" || this.#data.length > 1) {
        this.#onEvent({ event: this.#event || "message", data, id: this.#id });
      }
      this.#data = [];
      this.#event = "";
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.#retryMs = Number(value);
  }
}
