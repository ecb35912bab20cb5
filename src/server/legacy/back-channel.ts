/**
 * The 2025 back-channel: real server → client requests (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`) sent on a legacy session, related to the request being
 * served, and matched to the client's responses by id. Modern requests never carry one.
 */
import { RequestAbortedError, RequestTimeoutError } from "../../shared/errors.js";
import { timerDelay } from "../../shared/timers.js";
import { LegacyMethod, McpError, NotificationMethod } from "../../types/core.js";
import type { InputRequest, JSONRPCMessage, RequestId, ResultObject } from "../../types/index.js";
import type { ServerRequestContext } from "../context.js";

/** Where a legacy request's context keeps its back-channel (copied by `{ ...ctx }`). */
export const BACK_CHANNEL: unique symbol = Symbol("roundtrip.legacyBackChannel");

/**
 * Asks the client something in the middle of a 2025-era request.
 *
 * @example
 * const channel = backChannelOf(ctx);
 * if (channel) await channel.ask({ method: "roots/list", params: {} }, { signal: ctx.signal });
 */
export interface BackChannel {
  /** The negotiated handshake-era version of the session. */
  readonly protocolVersion: string;
  /** Sends one request to the client and resolves with its result (rejects with its error). */
  ask(request: InputRequest, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ResultObject>;
}

/**
 * The back-channel of a request context: present only while serving a 2025 session.
 *
 * @example
 * if (backChannelOf(ctx) === undefined) return inputRequiredResult; // modern: return, never call back
 */
export function backChannelOf(ctx: ServerRequestContext): BackChannel | undefined {
  return (ctx as ServerRequestContext & { [BACK_CHANNEL]?: BackChannel })[BACK_CHANNEL];
}

interface Pending {
  readonly resolve: (result: ResultObject) => void;
  readonly reject: (error: Error) => void;
}

/**
 * A session's outstanding server → client requests: fresh ids, timeouts, cancellation, and the
 * responses the client sends back.
 */
export class Outbox {
  readonly #pending = new Map<RequestId, Pending>();
  #next = 1;
  /** Why the client can no longer answer, once `closeAll` said so. */
  #ended: string | undefined;

  /** Requests still waiting for their answer. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Sends `request` through `send` and waits for the client's answer. A URL elicitation gets the
   * `elicitationId` the 2025 wire requires, and `notifications/elicitation/complete` once accepted.
   * On timeout or abort the client is told with `notifications/cancelled`.
   */
  ask(
    send: (message: JSONRPCMessage) => Promise<void>,
    request: InputRequest,
    protocolVersion: string,
    options: {
      signal?: AbortSignal;
      /**
       * The asking request's own signal, heard beside `signal`: its cancellation ends the question
       * whatever signal it was asked under (two listeners: `AbortSignal.any` costs a third of a flow).
       */
      requestSignal?: AbortSignal;
      timeoutMs: number;
      /** Where `notifications/cancelled` goes: it must reach the client even once the request was cancelled. */
      cancelVia?: (message: JSONRPCMessage) => Promise<void>;
    },
  ): Promise<ResultObject> {
    const { signal, timeoutMs } = options;
    const requestSignal = options.requestSignal === signal ? undefined : options.requestSignal;
    const cancelVia = options.cancelVia ?? send;
    if (signal?.aborted || requestSignal?.aborted) {
      return Promise.reject(new RequestAbortedError(`${request.method} was aborted`));
    }
    // Asked after the client's input ended: nothing could ever answer, so fail as closeAll did.
    if (this.#ended !== undefined) return Promise.reject(new RequestAbortedError(this.#ended));
    const id = this.#next++;
    const params = wireParams(request, protocolVersion);
    return new Promise<ResultObject>((resolve, reject) => {
      const cleanup = () => {
        this.#pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        requestSignal?.removeEventListener("abort", onAbort);
      };
      const abandon = (error: Error, reason: string) => {
        cleanup();
        const cancelled = { requestId: id, reason };
        const notice = { jsonrpc: "2.0" as const, method: NotificationMethod.Cancelled, params: cancelled };
        void cancelVia(notice).catch(() => {});
        reject(error);
      };
      const onAbort = () => abandon(new RequestAbortedError(`${request.method} was aborted`), "aborted");
      const timer = setTimeout(
        () =>
          abandon(
            new RequestTimeoutError(`no answer to ${request.method} within ${timeoutMs} ms`),
            "timeout",
          ),
        timerDelay(timeoutMs),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      requestSignal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (result) => {
          cleanup();
          const elicitationId = params.mode === "url" ? params.elicitationId : undefined;
          if (typeof elicitationId === "string" && result.action === "accept") {
            const complete = { jsonrpc: "2.0" as const, method: LegacyMethod.ElicitationComplete };
            void send({ ...complete, params: { elicitationId } }).catch(() => {});
          }
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      send({ jsonrpc: "2.0", id, method: request.method, params }).catch((error: unknown) => {
        this.#pending.get(id)?.reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  /** Routes a client response to its request; false when nothing waits for that id. */
  receive(message: Record<string, unknown>): boolean {
    const id = message.id;
    if (typeof id !== "string" && typeof id !== "number") return false;
    const pending = this.#pending.get(id);
    if (!pending) return false;
    const error = message.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (typeof error === "object" && error !== null) {
      const code = typeof error.code === "number" ? error.code : -32603;
      const text = typeof error.message === "string" ? error.message : "Unknown error";
      pending.reject(new McpError(code, text, error.data));
    } else if (
      typeof message.result === "object" &&
      message.result !== null &&
      !Array.isArray(message.result)
    ) {
      pending.resolve(message.result as ResultObject);
    } else {
      pending.reject(new McpError(-32603, "Malformed response: no result object"));
    }
    return true;
  }

  /** Fails every outstanding request, and every later one (the session or the client's input ended). */
  closeAll(reason: string): void {
    this.#ended ??= reason;
    for (const pending of [...this.#pending.values()]) pending.reject(new RequestAbortedError(reason));
    this.#pending.clear();
  }
}

/** The params as the negotiated 2025 revision spells them. */
function wireParams(request: InputRequest, protocolVersion: string): Record<string, unknown> {
  const params: Record<string, unknown> = { ...(request.params ?? {}) };
  if (request.method !== "elicitation/create") return params;
  if (params.mode === "url") {
    // The 2025 wire requires an id for URL elicitations; 2026 dropped it, so we mint one.
    params.elicitationId = globalThis.crypto.randomUUID();
  } else if (protocolVersion < "2025-11-25") {
    // Before 2025-11-25 there were no modes: a form elicitation is just message + schema.
    delete params.mode;
  }
  return params;
}
