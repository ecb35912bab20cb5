/**
 * Reading and negotiating a POST: media types, the bounded body read, and the JSON-RPC error
 * responses the transport itself produces (before any dispatch).
 */
import { ErrorCode, type RequestId } from "../../types/index.js";

/**
 * Default `maxBodyBytes`: 4 MiB, as the official SDK.
 *
 * @example
 * createHttpHandler(server, { maxBodyBytes: 4 * DEFAULT_MAX_BODY_BYTES }); // large tool arguments
 */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

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

/** True when the `Content-Type` essence is `application/json` (parameters such as charset allowed). */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  const [essence = ""] = header.split(";");
  return essence.trim().toLowerCase() === "application/json";
}

/**
 * True when `Accept` admits both `application/json` and `text/event-stream` (wildcards count;
 * `q=0` excludes). A missing header admits everything (RFC 9110 §12.5.1).
 */
export function acceptsJsonAndEventStream(header: string | null): boolean {
  if (header === null || header.trim() === "") return true;
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

/** The outcome of a bounded body read. */
export type BodyRead = { ok: true; text: string } | { ok: false; tooLarge: boolean };

/**
 * Reads the request body as UTF-8, failing as soon as it passes `maxBytes` (never buffering more),
 * and up front when `Content-Length` already says so. Invalid UTF-8 and read failures (a client
 * that went away) come back as `{ ok: false, tooLarge: false }`.
 */
export async function readBodyWithLimit(request: Request, maxBytes: number): Promise<BodyRead> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return { ok: false, tooLarge: true };
  }
  if (request.body === null) return { ok: true, text: "" };
  // A body some middleware already consumed cannot be read again.
  if (request.bodyUsed) return { ok: false, tooLarge: false };
  const reader = request.body.getReader();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let received = 0;
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await reader.cancel().catch(() => {});
        return { ok: false, tooLarge: true };
      }
      text += decoder.decode(value, { stream: true });
    }
    return { ok: true, text: text + decoder.decode() };
  } catch {
    await reader.cancel().catch(() => {});
    return { ok: false, tooLarge: false };
  }
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
    const id = (message as { id?: unknown } | null)?.id;
    const safeId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
    return JSON.stringify({
      jsonrpc: "2.0",
      id: safeId,
      error: { code: ErrorCode.InternalError, message: "Internal error" },
    });
  }
}

/** A JSON body response. */
export function jsonResponse(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(serializeMessage(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
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
  headers: Record<string, string> = {},
): Response {
  return jsonResponse({ jsonrpc: "2.0", id, error: { code, message } }, status, headers);
}

/** 400 with -32020 naming the header at fault. */
export function headerMismatch(id: RequestId, message: string): Response {
  return errorResponse(400, id, ErrorCode.HeaderMismatch, message);
}
