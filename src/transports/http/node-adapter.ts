/**
 * The two directions between `node:http` and the web types: an IncomingMessage as a `Request`
 * (body streamed), and any endpoint reply written to a ServerResponse. A `PlainReply` is written
 * with the same calls, headers and bytes a `Response` holding it would produce.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isPlainReply, type PlainReply, type Reply } from "./body.js";
import { onConnectionGone } from "./node-gone.js";

const BODYLESS = new Set(["GET", "HEAD"]);

/** The request's URL as the web adapter builds it (a bad `Host` falls back to localhost). */
export function requestUrl(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  } catch {
    // A Host that is not a URL authority: keep it in the headers for the Host guard to refuse.
    return new URL(req.url?.startsWith("/") ? req.url : "/", "http://localhost");
  }
}

/** Body bytes an earlier reader took from the request before handing it over. */
export interface BodyPrefix {
  readonly chunks: readonly Buffer[];
  /** Whether the body had ended (the prefix is all of it) or failed by then. */
  readonly state: "open" | "ended" | "failed";
}

/**
 * The IncomingMessage as a `Request` whose body streams from `req` (after `prefix`, when another
 * reader started). Throws what `Headers`/`Request` throw for a request they cannot represent.
 */
export function toWebRequest(req: IncomingMessage, signal: AbortSignal, prefix?: BodyPrefix): Request {
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers: headersOf(req), signal };
  if (!BODYLESS.has(method)) {
    init.duplex = "half";
    init.body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          const enqueue = (chunk: Buffer) => {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          };
          for (const chunk of prefix?.chunks ?? []) enqueue(chunk);
          if (prefix?.state === "ended") return controller.close();
          if (prefix?.state === "failed") return controller.error(new Error("The request body failed"));
          req.on("data", enqueue);
          req.once("end", () => controller.close());
          req.once("error", (error) => controller.error(error));
        },
        pull() {
          req.resume();
        },
        cancel() {
          // The handler stopped reading (e.g. 413): stop buffering; the response closes the connection.
          req.pause();
        },
      },
      { highWaterMark: 16 },
    );
  }
  return new Request(requestUrl(req), init);
}

/**
 * The IncomingMessage as a `Request` without its body (method, URL, headers, signal): what
 * `verifyToken` sees, so the body stays on the endpoint's own fast read.
 */
export function toBodilessRequest(req: IncomingMessage, signal: AbortSignal): Request {
  return new Request(requestUrl(req), { method: req.method ?? "GET", headers: headersOf(req), signal });
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  }
  return headers;
}

/** Writes a reply: a `PlainReply` directly, a `Response` through its body stream. */
export function writeReply(reply: Reply, req: IncomingMessage, res: ServerResponse): Promise<void> | void {
  if (isPlainReply(reply)) return writePlainReply(reply, req, res);
  return writeWebResponse(reply, req, res);
}

/** The `Response` iteration order: lower-case names, sorted. */
function sortedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const names = Object.keys(headers);
  const out: Record<string, string> = {};
  if (names.length === 1) {
    const name = names[0] as string;
    out[name.toLowerCase()] = headers[name] as string;
    return out;
  }
  const lower = names.map((name) => [name.toLowerCase(), headers[name] as string] as const);
  lower.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, value] of lower) out[name] = value;
  return out;
}

function writePlainReply(reply: PlainReply, req: IncomingMessage, res: ServerResponse): void {
  const headers = sortedHeaders(reply.headers);
  // An unread body (413, early rejections) must not be drained: close the connection instead.
  if (!req.complete) headers.connection = "close";
  if (reply.body !== null) headers["content-length"] = String(Buffer.byteLength(reply.body));
  res.writeHead(reply.status, headers);
  res.end(reply.body ?? undefined);
}

/** Writes a `Response`: bounded bodies in one write, event streams as they come. */
export async function writeWebResponse(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  if (!req.complete) headers.connection = "close";
  if (response.statusText) res.statusMessage = response.statusText;
  const type = response.headers.get("content-type") ?? "";
  if (response.body === null || type.startsWith("application/json")) {
    // Bounded bodies go out in one write with a Content-Length (no chunked framing, one packet).
    const data = response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
    if (data) headers["content-length"] = String(data.byteLength);
    res.writeHead(response.status, headers);
    res.end(data);
    return;
  }
  res.writeHead(response.status, headers);
  // Event streams must reach the client now, not with the first event.
  if (type.startsWith("text/event-stream")) res.flushHeaders();
  const reader = response.body.getReader();
  let leave!: () => void;
  const left = new Promise<void>((resolve) => {
    leave = resolve;
  });
  const stopListening = onConnectionGone(req, res, () => {
    leave();
    void reader.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // A response queued behind another on a dropped connection never drains: leaving ends the wait.
      if (!res.write(value)) await Promise.race([new Promise((resolve) => res.once("drain", resolve)), left]);
      if (res.destroyed) break;
    }
  } catch {
    // The stream failed or was cancelled because the client left: nothing more to send.
  } finally {
    stopListening();
    res.end();
  }
}
