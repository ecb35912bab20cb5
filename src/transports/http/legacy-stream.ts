/** Reading the event streams of a 2025-era server: a POST's answer, its resumption, the GET stream. */
import { HttpTransportError, ResponseTooLargeError } from "./errors.js";
import { SseParser } from "./sse.js";

/** How a read is bounded and where what it skips is reported. */
export interface EventReadOptions {
  /** The bound on one event, in bytes (`maxResponseBytes`). */
  maxBytes: number | undefined;
  /** Told of an event that is not JSON (it is skipped). */
  warn: (error: Error) => void;
  /** Checked after each chunk: true stops the read (the response arrived). */
  done?: () => boolean;
}

/**
 * Delivers the JSON message of each event of `response` until the stream ends, `done()` holds or
 * `signal` aborts. A stream that breaks off ends the read quietly, since the caller decides from
 * what was delivered; an event past the bound throws `ResponseTooLargeError`, since resuming would
 * only bring the same event again.
 *
 * @returns The parser, which knows the stream's last event id and `retry`; undefined without a body.
 */
export async function readJsonEvents(
  response: Response,
  signal: AbortSignal,
  deliver: (message: unknown) => void,
  { maxBytes, warn, done = () => false }: EventReadOptions,
): Promise<SseParser | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const parser = new SseParser((event) => {
    if (event.data === "") return;
    try {
      deliver(JSON.parse(event.data));
    } catch {
      warn(new HttpTransportError("Ignored an SSE event that is not JSON"));
    }
  }, maxBytes);
  try {
    while (!done() && !signal.aborted) {
      const { done: ended, value } = await reader.read();
      if (ended) break;
      parser.push(value);
    }
  } catch (error) {
    if (error instanceof ResponseTooLargeError) throw error;
  } finally {
    await reader.cancel().catch(() => {});
  }
  return parser;
}
