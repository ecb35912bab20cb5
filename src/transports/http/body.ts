/**
 * Reading and negotiating a POST: media types, the bounded body read, and the JSON-RPC error
 * responses the transport itself produces (before any dispatch).
 */
import { ErrorCode } from "../../types/core.js";
import type { ErrorObject, RequestId } from "../../types/index.js";
import { requestIdOf } from "../../types/record.js";

/**
 * Default `maxBodyBytes`: 4 MiB, as the official SDK.
 *
 * @example
 * createHttpHandler(server, { maxBodyBytes: 4 * DEFAULT_MAX_BODY_BYTES }); // large tool arguments
 */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The `maxBodyBytes` option, checked: NaN (a `Number(env)` left unset) compares false with every
 * size and would lift the limit altogether, so anything but a positive integer is refused.
 */
export function maxBodyBytesOf(option: number | undefined): number {
  const max = option ?? DEFAULT_MAX_BODY_BYTES;
  if (!(Number.isInteger(max) && max > 0)) {
    throw new RangeError(`maxBodyBytes must be a positive integer, got ${max}`);
  }
  return max;
}

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

function parseMediaRanges(header: string): MediaRange[] {
  return header.split(",").flatMap((part) => {
    const [essence = "", ...parameters] = part.split(";");
    const [type, subtype] = essence.trim().toLowerCase().split("/");
    if (!type || !subtype) return [];
    let q = 1;
    for (const parameter of parameters) {
      const [key, value] = parameter.split("=").map((s) => s.trim());
      if (key?.toLowerCase() === "q" && value !== undefined) q = Number(value);
    }
    return [{ type, subtype, q: Number.isFinite(q) ? q : 0 }];
  });
}

/**
 * True without a `Content-Encoding` (or with `identity`): bodies are read as sent, and a gzip body
 * read as text would be answered "not valid JSON", which says nothing of the cause.
 */
export function isIdentityEncoding(header: string | null): boolean {
  return header === null || /^\s*(identity)?\s*$/i.test(header);
}

/** True when the `Content-Type` essence is `application/json` (parameters such as charset allowed). */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  const [essence = ""] = header.split(";");
  return essence.trim().toLowerCase() === "application/json";
}

function admitsBoth(header: string): boolean {
  const ranges = parseMediaRanges(header);
  const admits = (type: string, subtype: string) => {
    // The most specific matching range decides (RFC 9110 §12.5.1).
    const matches = ranges.filter(
      (r) => (r.type === type || r.type === "*") && (r.subtype === subtype || r.subtype === "*"),
    );
    if (matches.length === 0) return false;
    const specificity = (r: MediaRange) => (r.type === "*" ? 0 : r.subtype === "*" ? 1 : 2);
    const best = matches.reduce((a, b) => (specificity(b) > specificity(a) ? b : a));
    return best.q > 0;
  };
  return admits("application", "json") && admits("text", "event-stream");
}

/** A client sends the same `Accept` on every POST: the last verdict is kept (the check is pure). */
let lastAccept = "";
let lastAccepted = true;

/**
 * True when `Accept` admits both `application/json` and `text/event-stream` (wildcards count;
 * `q=0` excludes). A missing header admits everything (RFC 9110 §12.5.1).
 */
export function acceptsJsonAndEventStream(header: string | null): boolean {
  if (header === null) return true;
  if (header !== lastAccept) {
    lastAccepted = header.trim() === "" || admitsBoth(header);
    lastAccept = header;
  }
  return lastAccepted;
}

/** The outcome of a bounded body read. */
/** An `Accept` that allows an event stream (absent and empty allow anything). */
function acceptsEventStream(header: string | null): boolean {
  return header === null || header.trim() === "" || /text\/event-stream|text\/\*|\*\/\*/i.test(header);
}

/**
 * The 406 for a GET whose `Accept` rules out the event stream it would open, or undefined.
 *
 * @example
 * const refused = refuseNonEventStream(request.header("accept")); if (refused) return refused;
 */
export function refuseNonEventStream(accept: string | null): PlainReply | undefined {
  if (acceptsEventStream(accept)) return undefined;
  return errorResponse(
    406,
    null,
    ErrorCode.InvalidRequest,
    "Not Acceptable: Accept must allow text/event-stream",
  );
}

export type BodyRead = { ok: true; text: string } | { ok: false; tooLarge: boolean };

/** One-shot decodes only (never `stream: true`), so one decoder serves every request. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict UTF-8 (a leading BOM dropped, as the web platform does) of a whole body. */
export function decodeBody(chunks: readonly Uint8Array[], length: number): BodyRead {
  let bytes: Uint8Array;
  if (chunks.length === 1) bytes = chunks[0] as Uint8Array;
  else {
    bytes = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  try {
    return { ok: true, text: chunks.length === 0 ? "" : utf8.decode(bytes) };
  } catch {
    return { ok: false, tooLarge: false };
  }
}

/** A `Content-Length` value as a number, when it is one. */
export function declaredLength(header: string | null | undefined): number | undefined {
  if (header === null || header === undefined) return undefined;
  const trimmed = header.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}

/**
 * Reads the request body as UTF-8, failing as soon as it passes `maxBytes` (never buffering more),
 * and up front when `Content-Length` already says so. Invalid UTF-8 and read failures (a client
 * that went away) come back as `{ ok: false, tooLarge: false }`.
 */
export async function readBodyWithLimit(request: Request, maxBytes: number): Promise<BodyRead> {
  const declared = declaredLength(request.headers.get("content-length"));
  if (declared !== undefined && declared > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return { ok: false, tooLarge: true };
  }
  if (request.body === null) return { ok: true, text: "" };
  // A body some middleware already consumed cannot be read again.
  if (request.bodyUsed) return { ok: false, tooLarge: false };
  // A reader loop, not arrayBuffer(): in Node 20 the loop is the faster of the two.
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await reader.cancel().catch(() => {});
        return { ok: false, tooLarge: true };
      }
      chunks.push(value);
    }
  } catch {
    await reader.cancel().catch(() => {});
    return { ok: false, tooLarge: false };
  }
  return decodeBody(chunks, received);
}

/**
 * A JSON-RPC message as JSON. A message that cannot be serialized (a BigInt or a cycle in a
 * handler's result) becomes a -32603 error for the same id instead of an exception that would
 * leave the request unanswered.
 */
export function serializeMessage(message: unknown): string {
  try {
    return JSON.stringify(message);
  } catch {
    return JSON.stringify({
      jsonrpc: "2.0",
      id: requestIdOf(message),
      error: { code: ErrorCode.InternalError, message: "Internal error" },
    });
  }
}

/**
 * An answer the transport composes itself: a status, headers and a JSON text or no body. The web
 * handler turns it into a `Response`; `serveHttp` writes it to `node:http` without one, with the
 * same header names (lower-cased, in `Headers` order) and bytes.
 */
export interface PlainReply {
  readonly plain: true;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  /** The JSON-RPC error `body` carries, when the transport refused the message itself (telemetry). */
  readonly error?: ErrorObject;
}

/** What the endpoint answers: a plain reply, or a `Response` (event streams). */
export type Reply = PlainReply | Response;

/** True for a `PlainReply` (a brand, not `instanceof Response`, which differs across realms). */
export function isPlainReply(reply: Reply): reply is PlainReply {
  return (reply as Partial<PlainReply>).plain === true;
}

/** The reply as a web `Response`. */
export function toResponse(reply: Reply): Response {
  if (!isPlainReply(reply)) return reply;
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

const JSON_ONLY: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json" });

/** A JSON body reply. */
export function jsonResponse(body: unknown, status: number, headers?: Record<string, string>): PlainReply {
  return {
    plain: true,
    status,
    headers: headers ? { "content-type": "application/json", ...headers } : JSON_ONLY,
    body: serializeMessage(body),
  };
}

/** A reply without a body (202 for notifications and responses the server accepted). */
export function emptyReply(status: number): PlainReply {
  return { plain: true, status, headers: {}, body: null };
}

/**
 * A JSON-RPC error the transport answers by itself. Messages are fixed strings: they never echo
 * header values, tokens or body content.
 */
export function errorResponse(
  status: number,
  id: RequestId | null,
  code: number,
  message: string,
  headers?: Record<string, string>,
): PlainReply {
  const error = { code, message };
  return { ...jsonResponse({ jsonrpc: "2.0", id, error }, status, headers), error };
}

/** 400 with -32020 naming the header at fault. */
export function headerMismatch(id: RequestId, message: string): PlainReply {
  return errorResponse(400, id, ErrorCode.HeaderMismatch, message);
}
