/**
 * The 2025 client's GET streams. The session's stream is kept open: it is the only way a 2025
 * server tells the client of list changes and resource updates, so when the server ends it (a
 * restart, a proxy's idle timeout, a token that expired) it is opened again after the stream's
 * `retry`, resuming after its last event id, as a browser's EventSource would. A request's stream
 * that ended before its response is resumed with a GET too (SEP-1699).
 */
import { pause } from "../../shared/timers.js";
import { isEventStream } from "./answer.js";
import { HttpTransportError } from "./errors.js";
import type { SseParser } from "./sse.js";

/** Resumptions of one request's stream, and the wait when a stream set no `retry`, with its cap. */
const MAX_RESUMPTIONS = 5;
const DEFAULT_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
/** The session's stream: failed attempts in a row before giving up, and the shortest wait. */
const MAX_FAILURES = 5;
const MIN_WAIT_MS = 100;

/** What reading one of a request's streams found. */
export interface StreamRead {
  /** The response to the request arrived. */
  readonly answered: boolean;
  readonly lastEventId: string | undefined;
  readonly retryMs: number | undefined;
}

/**
 * Reads a request's stream and, while it ends before the response and has set an event id,
 * resumes it with `resume(lastEventId)` after the `retry` it asked for (capped), at most
 * `MAX_RESUMPTIONS` times. True once the response arrived.
 *
 * @example
 * const answered = await readResumable(response, signal, readOne, (id) => get({ "Last-Event-ID": id }));
 */
export async function readResumable(
  first: Response,
  signal: AbortSignal,
  read: (response: Response) => Promise<StreamRead>,
  resume: (lastEventId: string) => Promise<Response>,
): Promise<boolean> {
  let last = await read(first);
  for (let attempt = 0; !last.answered && last.lastEventId !== undefined && !signal.aborted; attempt++) {
    if (attempt >= MAX_RESUMPTIONS) break;
    // A server-chosen wait, but never an unbounded one.
    await pause(Math.min(last.retryMs ?? DEFAULT_RETRY_MS, MAX_RETRY_MS), signal);
    if (signal.aborted) break;
    const again = await resume(last.lastEventId);
    if (!isEventStream(again)) {
      await again.body?.cancel().catch(() => {});
      break;
    }
    const next = await read(again);
    last = {
      answered: next.answered,
      lastEventId: next.lastEventId ?? last.lastEventId,
      retryMs: next.retryMs ?? last.retryMs,
    };
  }
  return last.answered;
}

/** What following the session's stream needs from the transport. */
export interface GetStreamFollower {
  /** Sends the GET of this session (with `Last-Event-ID` when given). */
  open(lastEventId: string | undefined): Promise<Response>;
  /** Reads one answered stream to its end, delivering its messages. */
  read(response: Response): Promise<SseParser | undefined>;
  /** The server answered 404: it forgot the session. */
  forgotten(): void;
  onerror(error: Error): void;
}

/**
 * Reads `first` and every stream opened after it, until `signal` aborts, the server refuses the
 * stream (404 goes to `forgotten`, anything else to `onerror`), or `MAX_FAILURES` attempts in a row
 * fail to reach it.
 *
 * @example
 * void followGetStream(response, background.signal, follower);
 */
export async function followGetStream(
  first: Response,
  signal: AbortSignal,
  follower: GetStreamFollower,
): Promise<void> {
  let response = first;
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  for (;;) {
    const parser = await follower.read(response);
    lastEventId = parser?.lastEventId ?? lastEventId;
    retryMs = parser?.retryMs ?? retryMs;
    const wait = Math.min(Math.max(retryMs ?? DEFAULT_RETRY_MS, MIN_WAIT_MS), MAX_RETRY_MS);
    for (let failures = 0; ; ) {
      await pause(wait, signal);
      if (signal.aborted) return;
      try {
        response = await follower.open(lastEventId);
        break;
      } catch (error) {
        if (signal.aborted) return;
        if (++failures === MAX_FAILURES) return follower.onerror(reopenFailed(String(error)));
      }
    }
    if (!isEventStream(response)) {
      await response.body?.cancel().catch(() => {});
      if (response.status === 404) follower.forgotten();
      else follower.onerror(reopenFailed(`HTTP ${response.status}`));
      return;
    }
  }
}

function reopenFailed(detail: string): HttpTransportError {
  return new HttpTransportError(`The session's GET stream could not be opened again: ${detail}`);
}
