import type { Writable } from "node:stream";
import type { JSONRPCMessage } from "../../types/index.js";
import { DROPPED_HEAD_BYTES } from "./dropped.js";

/**
 * The message one line from the server holds, or the error that says why it is ignored (not JSON,
 * or not a JSON object). The JSON-RPC shape is checked where the message is read.
 *
 * @example
 * const message = messageOfLine('{"jsonrpc":"2.0","method":"notifications/initialized"}');
 */
export function messageOfLine(line: string): JSONRPCMessage | Error {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return new Error(`Ignored a line from the server that is not JSON: ${line.slice(0, 200)}`);
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return new Error("Ignored a line from the server that is not a JSON-RPC message");
  }
  return message as JSONRPCMessage;
}

/**
 * Default bound on one incoming line on the server side (4 MiB).
 *
 * @example
 * serveStdio(server, { maxLineBytes: DEFAULT_MAX_LINE_BYTES / 4 });
 */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into newline-delimited lines without ever holding more than
 * `maxLineBytes` of one line (not counting a CRLF's "\r"): an over-long line is dropped as it
 * streams in (`onOverflow` fires once for it, with the line's first bytes, enough to read its id)
 * and framing resumes at the next newline, so one bad message never costs the stream.
 *
 * Splitting happens on bytes, not characters: 0x0A never occurs inside a multi-byte UTF-8
 * sequence, and decoding whole lines avoids tearing a character across two chunks.
 *
 * @example
 * const lines = new LineSplitter(1024, (line) => console.error(line), () => console.error("too long"));
 * stream.on("data", (chunk) => lines.push(chunk));
 * stream.on("end", () => lines.end());
 */
export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #onLine: (line: string) => void;
  readonly #onOverflow: (head: string) => void;
  #chunks: Buffer[] = [];
  #size = 0;
  #discarding = false;

  constructor(maxLineBytes: number, onLine: (line: string) => void, onOverflow: (head: string) => void) {
    this.#maxLineBytes = maxLineBytes;
    this.#onLine = onLine;
    this.#onOverflow = onOverflow;
  }

  /** Feeds one chunk; complete lines are delivered synchronously, in order. */
  push(chunk: Buffer | string): void {
    const data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(NEWLINE, start);
      const end = newline === -1 ? data.length : newline;
      if (!this.#discarding) {
        const lastByte = end > start ? data[end - 1] : this.#lastByte();
        if (this.#tooLong(this.#size + (end - start), lastByte)) {
          const head = this.#head(data.subarray(start, end));
          this.#reset();
          this.#discarding = true;
          this.#onOverflow(head);
        } else if (end > start) {
          this.#chunks.push(data.subarray(start, end));
          this.#size += end - start;
        }
      }
      if (newline === -1) return;
      if (this.#discarding) this.#discarding = false;
      else this.#emit();
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without its newline still counts (some writers omit it). */
  end(): void {
    if (!this.#discarding && this.#size > 0) this.#emit();
    this.#reset();
    this.#discarding = false;
  }

  /** The limit is on content: a trailing "\r" may be a CRLF's, which is framing. */
  #tooLong(size: number, lastByte: number | undefined): boolean {
    const content = lastByte === CARRIAGE_RETURN ? size - 1 : size;
    return content > this.#maxLineBytes;
  }

  /** The last byte held of the current line (chunks are only held when they add bytes). */
  #lastByte(): number | undefined {
    const last = this.#chunks.at(-1);
    return last?.[last.length - 1];
  }

  /** The first bytes of the line being dropped: what it holds so far, then `rest`. */
  #head(rest: Buffer): string {
    const parts: Buffer[] = [];
    let size = 0;
    for (const part of [...this.#chunks, rest]) {
      if (size >= DROPPED_HEAD_BYTES) break;
      const taken = part.subarray(0, DROPPED_HEAD_BYTES - size);
      parts.push(taken);
      size += taken.length;
    }
    return Buffer.concat(parts, size).toString("utf8");
  }

  #emit(): void {
    let line = Buffer.concat(this.#chunks, this.#size).toString("utf8");
    this.#reset();
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() === "") return;
    this.#onLine(line);
  }

  #reset(): void {
    this.#chunks = [];
    this.#size = 0;
  }
}

/**
 * A write was attempted after the stream ended or was destroyed.
 *
 * @example
 * await writer.write(message).catch((error) => { if (error instanceof StreamClosedError) reconnect(); });
 */
export class StreamClosedError extends Error {}

/**
 * Writes one JSON message per line to a stream, in call order, honouring backpressure: when
 * `write` returns false the next line waits for `drain`. A stream error (EPIPE when the reader is
 * gone) is caught here, so it can never crash the process; the write it cut short and every later
 * write reject with it.
 *
 * @example
 * const writer = new LineWriter(process.stdout);
 * await writer.write({ jsonrpc: "2.0", id: 1, result: {} });
 */
export class LineWriter {
  readonly #stream: Writable;
  #tail: Promise<void> = Promise.resolve();
  #lastFlush: Promise<void> = Promise.resolve();
  #error: Error | undefined;
  #queuedBytes = 0;

  constructor(stream: Writable, onError?: (error: Error) => void) {
    this.#stream = stream;
    stream.on("error", (error: Error) => {
      if (this.#error) return;
      this.#error = error;
      onError?.(error);
    });
  }

  /** The error that broke the stream, if any. */
  get error(): Error | undefined {
    return this.#error;
  }

  /** Bytes of the lines written but not yet taken by the reader (queued here or in the stream's buffer). */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Serializes and queues one message; resolves once the stream accepted it (or rejects). */
  write(message: unknown): Promise<void> {
    let line: string;
    try {
      // JSON.stringify never emits a raw newline, so the serialized message is exactly one line.
      line = `${JSON.stringify(message)}\n`;
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const bytes = Buffer.byteLength(line);
    this.#queuedBytes += bytes;
    const next = this.#tail
      .then(() => this.#writeNow(line))
      .finally(() => {
        this.#queuedBytes -= bytes;
      });
    this.#tail = next.catch(() => {});
    return next;
  }

  /**
   * Ends the stream once the lines queued so far were written: a message sent just before the end
   * still reaches the reader.
   */
  end(): void {
    this.#tail = this.#tail.then(() => {
      this.#stream.end();
    });
  }

  /** Resolves when everything queued so far has been handed to the OS (or the stream broke). */
  async flushed(): Promise<void> {
    await this.#tail;
    await this.#lastFlush;
  }

  async #writeNow(line: string): Promise<void> {
    const stream = this.#stream;
    if (this.#error) throw this.#error;
    if (stream.destroyed || stream.writableEnded) throw new StreamClosedError("The output stream is closed");
    let accepted = false;
    this.#lastFlush = new Promise<void>((resolve) => {
      // The callback's error also reaches the 'error' listener; here it only ends the wait.
      accepted = stream.write(line, () => resolve());
    });
    if (accepted) return;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        stream.off("drain", done);
        stream.off("close", done);
        stream.off("error", done);
        // Closed or broken before the drain: the line never reached the reader.
        if (this.#error) reject(this.#error);
        else if (stream.destroyed) reject(new StreamClosedError("The output stream is closed"));
        else resolve();
      };
      stream.on("drain", done);
      stream.on("close", done);
      stream.on("error", done);
    });
  }
}
