/**
 * Reading the answer to one client POST: a JSON body or an SSE stream, JSON-RPC errors at any
 * status, and the local failures (`HttpStatusError`, dropped exchanges) the transport reports.
 */
import type { MessageInfo } from "../../shared/transport.js";
import {
  type ErrorObject,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "../../types/index.js";
import { HttpStatusError, HttpTransportError } from "./errors.js";
import { SseParser } from "./sse.js";

/** How one POST ended: its response was delivered, or it dropped without one (maybe retryable). */
export type Outcome =
  | { answered: true }
  | {
      answered: false;
      error: HttpTransportError;
      /** The connection was refused: the request provably reached no server, so any method may be re-sent. */
      neverSent?: boolean;
    };
/** The exchange is over (answered, or abandoned by the caller: nothing more to report). */
export const ANSWERED: Outcome = { answered: true };

/** Where one POST's answer goes. */
export interface AnswerContext {
  readonly method: string;
  /** The id on the wire (a retry's own id). */
  readonly wireId: RequestId;
  /** The caller's id: every delivered message is related to it. */
  readonly id: RequestId;
  readonly signal: AbortSignal;
  readonly deliver: (message: JSONRPCMessage, info: MessageInfo) => void;
  readonly warn: (error: Error) => void;
}

/** An error's message, for local error texts. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function essence(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

async function errorBody(response: Response): Promise<ErrorObject | undefined> {
  try {
    const body: unknown = await response.json();
    return isJSONRPCErrorResponse(body) ? (body.error as ErrorObject) : undefined;
  } catch {
    return undefined;
  }
}

/** Delivers a response to the caller's id, whatever id went on the wire; false if it is none. */
function deliverResponse(body: unknown, ctx: AnswerContext): boolean {
  if (!isJSONRPCResultResponse(body) && !isJSONRPCErrorResponse(body)) return false;
  const answeredId = (body as { id?: RequestId | null }).id;
  // A transport-level error carries id null: on a one-request POST it can only be ours.
  if (answeredId !== ctx.wireId && !(answeredId == null && "error" in body)) return false;
  ctx.deliver({ ...body, id: ctx.id } as JSONRPCMessage, { relatedRequestId: ctx.id });
  return true;
}

/**
 * Reads a POST's answer. 401/403 (auth layers need the status and challenge) and error statuses
 * without a JSON-RPC error throw `HttpStatusError`; a JSON-RPC error at any other status is
 * delivered as the response. A body or stream that ends early is a dropped exchange.
 */
export async function readAnswer(response: Response, ctx: AnswerContext): Promise<Outcome> {
  const { method, signal } = ctx;
  const dropped = (why: string): Outcome => ({
    answered: false,
    error: new HttpTransportError(`${method}: ${why}`),
  });
  const status = response.status;
  const challenge = response.headers.get("www-authenticate") ?? undefined;
  const type = essence(response.headers.get("content-type"));
  if (status === 401 || status === 403 || (type !== "application/json" && status >= 400)) {
    const error = type === "application/json" ? await errorBody(response) : undefined;
    if (type !== "application/json") await response.body?.cancel().catch(() => {});
    const detail = error ? `: ${error.message}` : "";
    throw new HttpStatusError(status, `HTTP ${status} for ${method}${detail}`, challenge, error);
  }
  if (type === "text/event-stream") return readStream(response, ctx, dropped);
  if (type !== "application/json") {
    await response.body?.cancel().catch(() => {});
    return dropped(`unexpected HTTP ${status} answer without a JSON-RPC response`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return signal.aborted ? ANSWERED : dropped(`the response body broke off (${describe(error)})`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    if (status >= 400) throw new HttpStatusError(status, `HTTP ${status} for ${method}`, challenge);
    throw new HttpTransportError(`${method}: the server sent malformed JSON`);
  }
  if (deliverResponse(body, ctx)) return ANSWERED;
  if (status >= 400) throw new HttpStatusError(status, `HTTP ${status} for ${method}`, challenge);
  throw new HttpTransportError(`${method}: the server's JSON answer is not the response to this request`);
}

async function readStream(
  response: Response,
  ctx: AnswerContext,
  dropped: (why: string) => Outcome,
): Promise<Outcome> {
  const reader = response.body?.getReader();
  if (!reader) return dropped("the event stream had no body");
  let answered = false;
  const parser = new SseParser((event) => {
    if (answered) return;
    let message: unknown;
    try {
      message = JSON.parse(event.data);
    } catch {
      ctx.warn(new HttpTransportError("Ignored an SSE event that is not JSON"));
      return;
    }
    const record = message as Record<string, unknown> | null;
    if (typeof record?.method === "string" && !("id" in record)) {
      ctx.deliver(record as JSONRPCMessage, { relatedRequestId: ctx.id });
    } else if (deliverResponse(message, ctx)) {
      answered = true;
    } else {
      // Server → client requests are forbidden in 2026-07-28; anything else is noise.
      ctx.warn(
        new HttpTransportError("Ignored an SSE event that is neither a notification nor our response"),
      );
    }
  });
  try {
    while (!answered) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(value);
    }
  } catch (error) {
    if (ctx.signal.aborted) return ANSWERED;
    if (!answered) return dropped(`the event stream broke off before the response (${describe(error)})`);
  }
  // The response ends the exchange; anything after it on the stream is not ours to read.
  await reader.cancel().catch(() => {});
  if (answered || ctx.signal.aborted) return ANSWERED;
  return dropped("the event stream ended before the response");
}
