/**
 * Answering one request of a 2025 session over HTTP: JSON when the handler sends nothing before
 * its response, else an SSE stream that carries the request's notifications and its server →
 * client requests (the client POSTs its answers back), then the response.
 */
import type { LegacySession } from "../../server/legacy/session.js";
import type { AuthInfo } from "../../shared/dispatch.js";
import { ErrorCode, type JSONRPCMessage, type JSONRPCResponse } from "../../types/index.js";
import { jsonResponse } from "./body.js";
import { SSE_HEADERS, SseStream } from "./sse.js";

/** What `respondLegacy` needs besides the request. */
export interface LegacyExchange {
  readonly session: LegacySession;
  readonly authInfo: AuthInfo | undefined;
  readonly keepAliveMs: number;
  readonly logger?: { error(message: string): void };
  /** Called once, when the exchange is over (the response sent or the client gone). */
  readonly onDone: () => void;
}

/**
 * Serves `message` on `exchange.session`. The 2025 spec says a dropped connection is not a
 * cancellation, but without resumability nothing computed afterwards can be delivered: a client
 * that goes away aborts the request, as on the modern path.
 */
export function respondLegacy(
  message: Record<string, unknown>,
  request: Request,
  exchange: LegacyExchange,
): Promise<Response> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (request.signal.aborted) abort();
  else request.signal.addEventListener("abort", abort, { once: true });
  let stream: SseStream | undefined;
  let done = false;
  return new Promise<Response>((resolve) => {
    const send = async (out: JSONRPCMessage) => {
      if (done || controller.signal.aborted) return;
      if (!stream) {
        stream = new SseStream({ keepAliveMs: exchange.keepAliveMs, onCancel: abort });
        resolve(new Response(stream.readable, { status: 200, headers: SSE_HEADERS }));
      }
      await stream.write(out);
    };
    const finish = (response: JSONRPCResponse | undefined) => {
      if (done) return;
      done = true;
      request.signal.removeEventListener("abort", abort);
      exchange.onDone();
      if (stream) {
        stream.end(controller.signal.aborted ? undefined : response);
        return;
      }
      resolve(response ? jsonResponse(response, 200) : new Response(null, { status: 202 }));
    };
    Promise.resolve()
      .then(() =>
        exchange.session.handle(message, { send, signal: controller.signal, authInfo: exchange.authInfo }),
      )
      .then(finish, (error: unknown) => {
        exchange.logger?.error(
          `[http] legacy dispatch failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        const id = message.id;
        const validId = typeof id === "string" || typeof id === "number" ? id : null;
        finish({
          jsonrpc: "2.0",
          id: validId,
          error: { code: ErrorCode.InternalError, message: "Internal error" },
        });
      });
  });
}
