/**
 * The 2025 session's GET stream, kept open. It is the only way a 2025 server tells the client of
 * list changes and resource updates, so when the server ends it (a restart, a proxy's idle timeout,
 * a token that expired) it is opened again after the stream's `retry`, resuming after its last
 * event id, as a browser's EventSource would.
 */
import { pause } from "../../shared/timers.js";
import { HttpTransportError } from "./errors.js";
import type { SseParser } from "./sse.js";

/** Failed attempts in a row before giving up, and the bounds of the wait between attempts. */
const MAX_FAILURES = 5;
const DEFAULT_WAIT_MS = 1_000;
const MIN_WAIT_MS = 100;
const MAX_WAIT_MS = 30_000;

/** What following the stream needs from the transport. */
export interface GetStreamFollower {
  /** Sends the GET of this session (with `Last-Event-ID` when given). */
  open(lastEventId: string | undefined): Promise<Response>;
  /** Reads one answered stream to its end, delivering its messages. */
  read(response: Response): Promise<SseParser | undefined>;
  /** True when `response` is an event stream to read. */
  isStream(response: Response): boolean;
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
    const wait = Math.min(Math.max(retryMs ?? DEFAULT_WAIT_MS, MIN_WAIT_MS), MAX_WAIT_MS);
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
    if (!follower.isStream(response)) {
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
