/**
 * Answering one request of a 2025 session over HTTP: JSON when the handler sends nothing before
 * its response, else an SSE stream that carries the request's notifications and its server →
 * client requests (the client POSTs its answers back), then the response.
 */
import type { LegacySession } from "../../server/legacy/session.js";
import type { AuthInfo } from "../../shared/dispatch.js";
import type { Reply } from "./body.js";
import { answerExchange } from "./exchange.js";
import type { Incoming } from "./incoming.js";

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
  request: Incoming,
  exchange: LegacyExchange,
): Promise<Reply> {
  const id = message.id;
  return answerExchange({
    request,
    keepAliveMs: exchange.keepAliveMs,
    id: typeof id === "string" || typeof id === "number" ? id : null,
    run: (send, cancellation) =>
      exchange.session.handle(message, {
        send,
        signal: cancellation.signal,
        authInfo: exchange.authInfo,
        http: request,
      }),
    statusOf: () => 200,
    failureStatus: 200,
    onFailure: (error) =>
      exchange.logger?.error(
        `[http] legacy dispatch failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
    onDone: exchange.onDone,
  });
}
