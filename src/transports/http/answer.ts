/**
 * Reading the answer to one client POST: a JSON body or an SSE stream, JSON-RPC errors at any
 * status, and the local failures (`HttpStatusError`, dropped exchanges) the transport reports.
 */
import type { MessageInfo } from "../../shared/transport.js";
import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from "../../types/core.js";
import type { ErrorObject, JSONRPCMessage, RequestId } from "../../types/index.js";
import { HttpStatusError, HttpTransportError, MAX_RESPONSE_BYTES, ResponseTooLargeError } from "./errors.js";
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
  /** True once the caller abandoned the exchange. */
  readonly cancelled: () => boolean;
  readonly deliver: (message: JSONRPCMessage, info: MessageInfo) => void;
  readonly warn: (error: Error) => void;
  /** The most a JSON body or one SSE event may hold (default `MAX_RESPONSE_BYTES`). */
  readonly maxBytes?: number;
}

/** A chunk reader over an answer's body. */
export interface BodyReader {
  read(): Promise<{ done: true; value?: Uint8Array } | { done: false; value: Uint8Array }>;
  /** Stops reading; a body not yet complete closes its connection. */
  cancel(): Promise<void>;
}

/**
 * One HTTP answer as `readAnswer` reads it: fetch's `Response`, or `node:http`'s response
 * (node-post.ts) with the same header, text and failure semantics.
 */
export interface Received {
  readonly status: number;
  /** A header's value, repeats combined as `Headers.get` combines them; `null` when absent. */
  header(name: string): string | null;
  /**
   * The body as text (UTF-8, a BOM dropped, bad bytes replaced); rejects with
   * `ResponseTooLargeError`, the body abandoned, past `maxBytes`.
   */
  text(maxBytes?: number): Promise<string>;
  /** The body chunk by chunk; `undefined` when there is none. */
  reader(): BodyReader | undefined;
  /** Drops the body unread. */
  discard(): Promise<void>;
}

/** One-shot decodes only, so one decoder serves every answer (UTF-8, BOM dropped, as `text()`). */
const utf8 = new TextDecoder();

/** A fetch `Response` as `Received`. */
export class FetchReceived implements Received {
  readonly #response: Response;

  constructor(response: Response) {
    this.#response = response;
  }

  get status(): number {
    return this.#response.status;
  }

  header(name: string): string | null {
    return this.#response.headers.get(name);
  }

  /** `Response.text()`'s result and failures, read with a reader loop (cheaper in Node 20). */
  async text(maxBytes = MAX_RESPONSE_BYTES): Promise<string> {
    const reader = this.#response.body?.getReader();
    if (!reader) return "";
    const chunks: Uint8Array[] = [];
    let length = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
      if (length > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
    }
    if (chunks.length === 1) return utf8.decode(chunks[0]);
    const bytes = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return utf8.decode(bytes);
  }

  reader(): BodyReader | undefined {
    return this.#response.body?.getReader();
  }

  async discard(): Promise<void> {
    await this.#response.body?.cancel().catch(() => {});
  }
}

/** The error for a body past `maxBytes`. */
export function tooLarge(maxBytes: number): ResponseTooLargeError {
  return new ResponseTooLargeError(`the response is larger than ${maxBytes} bytes`);
}

/**
 * True when fetch failed because the connection was refused: nothing was sent anywhere, so the
 * request may go again without any risk of running twice.
 */
export function connectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === "ECONNREFUSED";
}

/**
 * An error's message, for local error texts. fetch says only "fetch failed": what happened
 * (ECONNREFUSED, ENOTFOUND, a TLS error) is the system error in its `cause`, whose text names
 * host and port only (never the URL's path, query or user-info, nor headers).
 */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const code = cause?.code;
  if (typeof code !== "string") return error.message;
  // An AggregateError (both address families refused) has an empty message.
  const said = typeof cause?.message === "string" ? cause.message : "";
  return `${error.message}: ${said.includes(code) ? said : said ? `${said} (${code})` : code}`;
}

/** A `Content-Type`'s media type, lower-cased, without its parameters ("" when absent). */
export function essence(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** True for a successful answer that is an event stream to read. */
export function isEventStream(response: Response): boolean {
  return response.ok && essence(response.headers.get("content-type")) === "text/event-stream";
}

async function errorBody(response: Received, maxBytes: number | undefined): Promise<ErrorObject | undefined> {
  try {
    const body: unknown = JSON.parse(await response.text(maxBytes));
    return isJSONRPCErrorResponse(body) ? (body.error as ErrorObject) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a POST's JSON answer is the response to the request sent under `wireId`: under that id,
 * or an error under id null (a transport-level refusal, which on a one-request POST can only be ours).
 */
export function isResponseTo(body: unknown, wireId: RequestId): body is JSONRPCMessage {
  if (!isJSONRPCResultResponse(body) && !isJSONRPCErrorResponse(body)) return false;
  const answeredId = (body as { id?: RequestId | null }).id;
  return answeredId === wireId || (answeredId == null && "error" in body);
}

/** Delivers a response to the caller's id, whatever id went on the wire; false if it is none. */
function deliverResponse(body: unknown, ctx: AnswerContext): boolean {
  if (!isResponseTo(body, ctx.wireId)) return false;
  ctx.deliver({ ...body, id: ctx.id } as JSONRPCMessage, { relatedRequestId: ctx.id });
  return true;
}

/**
 * Reads a POST's answer. 401/403 (auth layers need the status and challenge) and error statuses
 * without a JSON-RPC error throw `HttpStatusError`; a JSON-RPC error at any other status is
 * delivered as the response. A body or stream that ends early is a dropped exchange.
 */
export async function readAnswer(response: Received, ctx: AnswerContext): Promise<Outcome> {
  const { method, cancelled } = ctx;
  const dropped = (why: string): Outcome => ({
    answered: false,
    error: new HttpTransportError(`${method}: ${why}`),
  });
  const status = response.status;
  const challenge = response.header("www-authenticate") ?? undefined;
  const type = essence(response.header("content-type"));
  if (status === 401 || status === 403 || (type !== "application/json" && status >= 400)) {
    const error = type === "application/json" ? await errorBody(response, ctx.maxBytes) : undefined;
    if (type !== "application/json") await response.discard();
    const detail = error ? `: ${error.message}` : "";
    const nonce = response.header("dpop-nonce") ?? undefined;
    throw new HttpStatusError(status, `HTTP ${status} for ${method}${detail}`, challenge, error, nonce);
  }
  if (type === "text/event-stream") return readStream(response, ctx, dropped);
  if (type !== "application/json") {
    await response.discard();
    return dropped(`unexpected HTTP ${status} answer without a JSON-RPC response`);
  }
  let text: string;
  try {
    text = await response.text(ctx.maxBytes);
  } catch (error) {
    if (error instanceof ResponseTooLargeError)
      throw new ResponseTooLargeError(`${method}: ${error.message}`);
    return cancelled() ? ANSWERED : dropped(`the response body broke off (${describe(error)})`);
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
  response: Received,
  ctx: AnswerContext,
  dropped: (why: string) => Outcome,
): Promise<Outcome> {
  const reader = response.reader();
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
  }, ctx.maxBytes);
  try {
    while (!answered) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(value);
    }
  } catch (error) {
    if (ctx.cancelled()) return ANSWERED;
    if (error instanceof ResponseTooLargeError) {
      await reader.cancel().catch(() => {});
      throw new ResponseTooLargeError(`${ctx.method}: ${error.message}`);
    }
    if (!answered) return dropped(`the event stream broke off before the response (${describe(error)})`);
  }
  // The response ends the exchange; anything after it on the stream is not ours to read.
  await reader.cancel().catch(() => {});
  if (answered || ctx.cancelled()) return ANSWERED;
  return dropped("the event stream ended before the response");
}
