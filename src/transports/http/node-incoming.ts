/**
 * A `node:http` request as the endpoint's `Incoming`, without a `Request`: headers read from
 * `rawHeaders` (repeats combined as `Headers` combines them), the body collected into Buffers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type BodyRead, declaredLength, decodeBody, readBodyWithLimit } from "./body.js";
import { combineRawHeaders } from "./headers.js";
import type { Incoming } from "./incoming.js";
import { requestUrl, toBodilessRequest, toWebRequest } from "./node-adapter.js";
import { onConnectionGone } from "./node-gone.js";

/**
 * True when the request can take the direct path: a POST whose web form could be built. The rest
 * (other methods, and URLs or Hosts that `Request` may refuse) goes through `Request`, so every
 * answer stays what the web adapter gives.
 */
export function servesDirectly(req: IncomingMessage): boolean {
  if (req.method !== "POST") return false;
  const url = req.url;
  // "//x" and "/\x" read as a host, which the web adapter may fail to build.
  if (url === undefined || url.charCodeAt(0) !== 0x2f) return false;
  const second = url.charCodeAt(1);
  if (second === 0x2f || second === 0x5c) return false;
  // Credentials in the URL make `new Request` throw (400 on the web path). The URL takes the first
  // Host, as `req.headers.host` would (scanned here so Node need not build `req.headers`).
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === "host") return !(raw[i + 1] as string).includes("@");
  }
  return true;
}

/**
 * The body a framework's parser already read (Express's `express.json()` and friends leave it on
 * `req.body` and the stream drained), as bytes; undefined while the stream is still to be read.
 */
function alreadyRead(req: IncomingMessage): Buffer | undefined {
  if (!req.readableEnded) return undefined;
  const body = (req as IncomingMessage & { body?: unknown }).body;
  if (body === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(body)) return body;
  return Buffer.from(typeof body === "string" ? body : JSON.stringify(body), "utf8");
}

/** The web adapter's body stream holds this many chunks before it pauses the request. */
const QUEUED_CHUNKS = 16;

/**
 * The request behind a `ServerResponse`. It starts buffering the body at once, as the web adapter's
 * stream does, so the connection ends up in the same state whichever rung answers.
 */
export class NodeIncoming implements Incoming {
  readonly method: string;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  #headers: Map<string, string> | undefined;
  #request: Request | undefined;
  #chunks: Buffer[] = [];
  #received = 0;
  #ended = false;
  #failed = false;
  /** `readBody` is draining: chunks no longer pile up. */
  #reading = false;
  /** Settles a pending `readBody` (see `#drain`), with the limit it was given. */
  #answer: ((read: BodyRead) => void) | undefined;
  #limit = 0;

  readonly #onData = (chunk: Buffer) => this.#data(chunk);
  readonly #onEnd = () => this.#settle(false);
  readonly #onError = () => this.#settle(true);

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.#req = req;
    this.#res = res;
    this.method = req.method ?? "GET";
    const parsed = alreadyRead(req);
    if (parsed !== undefined) {
      this.#chunks = [parsed];
      this.#received = parsed.byteLength;
      this.#ended = true;
      return;
    }
    req.on("data", this.#onData);
    req.once("end", this.#onEnd);
    req.once("error", this.#onError);
  }

  header(name: string): string | null {
    if (this.#headers === undefined) this.#headers = combineRawHeaders(this.#req.rawHeaders);
    return this.#headers.get(name.toLowerCase()) ?? null;
  }

  urlHost(): string | null {
    return requestUrl(this.#req).host;
  }

  query(name: string): string | null {
    const url = this.#req.url ?? "";
    const start = url.indexOf("?");
    return start < 0 ? null : new URLSearchParams(url.slice(start + 1)).get(name);
  }

  readBody(maxBytes: number): BodyRead | Promise<BodyRead> {
    if (this.#request) return readBodyWithLimit(this.#request, maxBytes);
    const declared = declaredLength(this.header("content-length"));
    if (declared !== undefined && declared > maxBytes) return this.#stop(true);
    this.#reading = true;
    this.#req.resume();
    // A small body has usually all arrived by now: answer without a promise.
    return this.#settled(maxBytes) ? this.#outcome(maxBytes) : this.#drain(maxBytes);
  }

  /** One promise for the whole read, settled by `#poke` once reading is over. */
  #drain(maxBytes: number): Promise<BodyRead> {
    this.#limit = maxBytes;
    return new Promise<BodyRead>((resolve) => {
      this.#answer = resolve;
    });
  }

  #poke(): void {
    const answer = this.#answer;
    if (answer === undefined || !this.#settled(this.#limit)) return;
    this.#answer = undefined;
    answer(this.#outcome(this.#limit));
  }

  /** Whether reading is over: the body ended, failed, or went over the limit. */
  #settled(maxBytes: number): boolean {
    return this.#ended || this.#failed || this.#received > maxBytes;
  }

  #outcome(maxBytes: number): BodyRead {
    if (this.#received > maxBytes) return this.#stop(true);
    if (this.#failed) return this.#stop(false);
    return decodeBody(this.#chunks, this.#received);
  }

  onGone(listener: () => void): () => void {
    return onConnectionGone(this.#req, this.#res, listener);
  }

  bodiless(): Request {
    const controller = new AbortController();
    this.onGone(() => controller.abort());
    return toBodilessRequest(this.#req, controller.signal);
  }

  request(): Request {
    if (!this.#request) {
      const controller = new AbortController();
      this.onGone(() => controller.abort());
      // The web form takes over the body, starting with what was buffered so far.
      const req = this.#req;
      req.off("data", this.#onData);
      req.off("end", this.#onEnd);
      req.off("error", this.#onError);
      const state = this.#failed ? "failed" : this.#ended ? "ended" : "open";
      this.#request = toWebRequest(req, controller.signal, { chunks: this.#chunks, state });
      this.#chunks = [];
    }
    return this.#request;
  }

  #data(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#received += chunk.byteLength;
    if (this.#answer) this.#poke();
    else if (!this.#reading && this.#chunks.length >= QUEUED_CHUNKS) this.#req.pause();
  }

  #settle(failed: boolean): void {
    if (failed) this.#failed = true;
    else this.#ended = true;
    this.#poke();
  }

  /** Stops reading: the unread rest keeps the request incomplete, so the reply closes the connection. */
  #stop(tooLarge: boolean): BodyRead {
    this.#reading = false;
    this.#req.pause();
    this.#chunks = [];
    return { ok: false, tooLarge };
  }
}
