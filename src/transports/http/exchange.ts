import { Cancellation } from "../../shared/cancellation.js";
import { ErrorCode } from "../../types/core.js";
import type { JSONRPCMessage, JSONRPCResponse, RequestId } from "../../types/index.js";
import { jsonResponse, type Reply } from "./body.js";
import type { Incoming } from "./incoming.js";
import { SSE_HEADERS, SseStream } from "./sse.js";

/** One request/response exchange over a POST, for either era. */
export interface Exchange {
  /** Where the client going away is heard. */
  readonly request: Pick<Incoming, "onGone">;
  readonly keepAliveMs: number;
  /** The request's id, for the error sent when `run` itself fails. */
  readonly id: RequestId | null;
  /**
   * Serves the message: `send` puts anything before the response on the stream; `cancellation`
   * fires when the client goes away (its signal is built only if read).
   */
  readonly run: (
    send: (message: JSONRPCMessage) => Promise<void>,
    cancellation: Cancellation,
  ) => Promise<JSONRPCResponse | undefined>;
  /** The status of a JSON answer. */
  readonly statusOf: (response: JSONRPCResponse) => number;
  /** The status of the error sent when `run` fails. */
  readonly failureStatus: number;
  readonly onFailure: (error: unknown) => void;
  /** Called once, when the exchange is over (the response sent or the client gone). */
  readonly onDone?: () => void;
  /** How the answer is framed (default `"auto"`; see `ResponseMode`). */
  readonly mode?: ResponseMode;
}

/**
 * How a request's answer is framed. `"auto"`: JSON, or an SSE stream opened by the first message
 * sent before the response. `"json"`: always JSON; what is sent before the response (progress,
 * logs) is dropped. `"sse"`: a stream opened as soon as the answer is not immediate, so keep-alive
 * comments flow through idle proxies during a long call; an answer that is at once ready still
 * streams, except an error with its own HTTP status, which stays JSON.
 */
export type ResponseMode = "auto" | "json" | "sse";

/**
 * Answers as `exchange.mode` says: by default with JSON when nothing is sent before the response,
 * else with an SSE stream opened at the first message (status 200, whatever the final response
 * says). A client that goes away (the request's signal, or the stream cancelled) aborts `run`'s
 * signal, and nothing more is sent.
 */
export function answerExchange(exchange: Exchange): Promise<Reply> {
  const cancellation = new Cancellation();
  const abort = cancellation.cancel;
  const stopListening = exchange.request.onGone(abort);
  const mode = exchange.mode ?? "auto";
  let stream: SseStream | undefined;
  let done = false;
  return new Promise<Reply>((resolve) => {
    const open = (): SseStream => {
      if (!stream) {
        stream = new SseStream({ keepAliveMs: exchange.keepAliveMs, onCancel: abort });
        resolve(new Response(stream.readable, { status: 200, headers: SSE_HEADERS }));
      }
      return stream;
    };
    // One timer turn lets a quick refusal keep its HTTP status before the stream commits to 200.
    const early =
      mode === "sse"
        ? setTimeout(() => {
            if (!done && !cancellation.cancelled()) open();
          }, 0)
        : undefined;
    const send = async (message: JSONRPCMessage) => {
      if (done || cancellation.cancelled() || mode === "json") return;
      await open().write(message);
    };
    const finish = (response: JSONRPCResponse | undefined, status: number) => {
      if (done) return;
      done = true;
      clearTimeout(early);
      stopListening();
      exchange.onDone?.();
      // No response (a cancelled request): a POSTed request still gets a stream, which ends empty.
      if (!stream && (!response || (mode === "sse" && status === 200 && !cancellation.cancelled()))) open();
      if (stream) {
        stream.end(cancellation.cancelled() ? undefined : response);
        return;
      }
      resolve(jsonResponse(response as JSONRPCResponse, status));
    };
    let running: Promise<JSONRPCResponse | undefined>;
    try {
      running = exchange.run(send, cancellation);
    } catch (error) {
      // A `run` that throws synchronously is answered like one that rejects.
      running = Promise.reject(error);
    }
    running.then(
      (response) => finish(response, response ? exchange.statusOf(response) : 200),
      (error: unknown) => {
        exchange.onFailure(error);
        const failure: JSONRPCResponse = {
          jsonrpc: "2.0",
          id: exchange.id,
          error: { code: ErrorCode.InternalError, message: "Internal error" },
        };
        finish(failure, exchange.failureStatus);
      },
    );
  });
}
