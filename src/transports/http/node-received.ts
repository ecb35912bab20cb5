/**
 * A `node:http` response as `Received`, read the way fetch reads one: headers combined as
 * `Headers` combines them, the body decoded per `Content-Encoding` as undici decodes it, text as
 * UTF-8 with a BOM dropped, and a body that breaks off failing with fetch's `TypeError: terminated`.
 */
import type { IncomingMessage } from "node:http";
import type { Readable, Transform } from "node:stream";
import type * as Zlib from "node:zlib";
import { type BodyReader, type Received, tooLarge } from "./answer.js";
import { MAX_RESPONSE_BYTES } from "./errors.js";

/** The `node:` modules a response needs (passed in: this file has no static `node:` imports). */
export interface DecodeModules {
  readonly zlib: typeof Zlib;
  readonly stream: typeof import("node:stream");
}

/** Statuses whose `Response` has a null body. */
const NULL_BODY = new Set([101, 204, 205, 304]);
const MAX_CODINGS = 5;

/** One-shot decodes only, so one decoder serves every response. */
const utf8 = new TextDecoder();

function terminated(cause: unknown): TypeError {
  return new TypeError("terminated", { cause });
}

/** undici's cause for a connection that ended mid-body (a reset included), so messages match fetch's. */
function otherSideClosed(): Error {
  return Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
}

/** undici's `deflate`: zlib-wrapped or raw, told apart by the first byte. */
function inflater(modules: DecodeModules, options: Zlib.ZlibOptions): Transform {
  let inner: Transform | undefined;
  return new modules.stream.Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (!inner) {
        if (chunk.length === 0) return callback();
        const created =
          ((chunk[0] as number) & 15) === 8
            ? modules.zlib.createInflate(options)
            : modules.zlib.createInflateRaw(options);
        inner = created;
        created.on("data", (data: Buffer) => this.push(data));
        created.on("end", () => this.push(null));
        created.on("error", (error) => this.destroy(error));
      }
      inner.write(chunk, callback);
    },
    final(callback) {
      inner?.end();
      inner = undefined;
      callback();
    },
  });
}

/** The decoded body stream, as undici builds it; throws when there are too many codings. */
function decodedBody(res: IncomingMessage, header: string | undefined, modules: DecodeModules): Readable {
  const codings = header ? header.toLowerCase().split(",") : [];
  if (codings.length > MAX_CODINGS) {
    throw new Error(
      `too many content-encodings in response: ${codings.length}, maximum allowed is ${MAX_CODINGS}`,
    );
  }
  const { zlib } = modules;
  const sync = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const decoders: Transform[] = [];
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = (codings[i] as string).trim();
    if (coding === "x-gzip" || coding === "gzip") decoders.push(zlib.createGunzip(sync));
    else if (coding === "deflate") decoders.push(inflater(modules, sync));
    else if (coding === "br") {
      const flush = zlib.constants.BROTLI_OPERATION_FLUSH;
      decoders.push(zlib.createBrotliDecompress({ flush, finishFlush: flush }));
    } else {
      decoders.length = 0;
      break;
    }
  }
  if (decoders.length === 0) return res;
  const streams: Readable[] = [res, ...decoders];
  return (modules.stream.pipeline as (...streams: unknown[]) => Readable)(...streams, () => {});
}

const IGNORE = () => {};

/** A response of the direct path. */
export class NodeReceived implements Received {
  readonly status: number;
  readonly #res: IncomingMessage;
  /** `null` for the statuses fetch gives no body. */
  readonly #body: Readable | null;
  readonly #headers: Map<string, string>;

  /**
   * `headers` are the response's, combined (`combineRawHeaders`). Throws when the body cannot be
   * decoded as fetch would (the caller reports it as fetch's failure).
   */
  constructor(res: IncomingMessage, headers: Map<string, string>, method: string, modules: DecodeModules) {
    this.#res = res;
    this.#headers = headers;
    this.status = res.statusCode ?? 0;
    // An error with nobody reading yet must not go unhandled; readers look at the stream's state.
    res.on("error", IGNORE);
    if (method === "HEAD" || NULL_BODY.has(this.status)) {
      this.#body = null;
      res.resume();
      return;
    }
    this.#body = decodedBody(res, headers.get("content-encoding"), modules);
    if (this.#body !== res) this.#body.on("error", IGNORE);
  }

  header(name: string): string | null {
    return this.#headers.get(name.toLowerCase()) ?? null;
  }

  text(maxBytes = MAX_RESPONSE_BYTES): Promise<string> {
    const body = this.#body;
    if (!body) return Promise.resolve("");
    return new Promise((resolve, reject) => {
      const broken = failureOf(body);
      if (broken) return reject(broken);
      const chunks: Buffer[] = [];
      let length = 0;
      body.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
        if (length > maxBytes) {
          reject(tooLarge(maxBytes));
          body.destroy();
        }
      });
      body.once("end", () => {
        resolve(utf8.decode(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length)));
      });
      body.once("close", () => {
        if (!body.readableEnded) reject(failureOf(body) ?? terminated(otherSideClosed()));
      });
    });
  }

  reader(): BodyReader | undefined {
    const body = this.#body;
    if (!body) return undefined;
    const queue: Buffer[] = [];
    let waiting: ((chunk: Buffer | null) => void) | undefined;
    const deliver = (chunk: Buffer | null) => {
      const wake = waiting;
      waiting = undefined;
      wake?.(chunk);
    };
    body.on("data", (chunk: Buffer) => {
      if (waiting) deliver(chunk);
      else {
        queue.push(chunk);
        body.pause();
      }
    });
    body.once("end", () => deliver(null));
    body.once("close", () => deliver(null));
    body.pause();
    return {
      read: async () => {
        let chunk = queue.shift();
        if (chunk === undefined) {
          if (body.readableEnded) return { done: true };
          const broken = failureOf(body);
          if (broken) throw broken;
          chunk =
            (await new Promise<Buffer | null>((resolve) => {
              waiting = resolve;
              body.resume();
            })) ?? undefined;
        } else if (queue.length === 0) body.resume();
        if (chunk !== undefined) return { done: false, value: chunk };
        if (body.readableEnded) return { done: true };
        throw failureOf(body) ?? terminated(otherSideClosed());
      },
      cancel: async () => this.#drop(),
    };
  }

  async discard(): Promise<void> {
    this.#drop();
  }

  /** A body already complete is read off so the connection is reused; otherwise it is closed. */
  #drop(): void {
    const body = this.#body;
    if (body && this.#res.complete && !body.destroyed) {
      body.removeAllListeners("data");
      body.resume();
    } else this.#res.destroy();
  }
}

/** Why a body stream can no longer be read, as fetch reports it (`undefined` while it can). */
function failureOf(body: Readable): TypeError | undefined {
  const errored = body.errored as NodeJS.ErrnoException | null;
  if (errored) return terminated(errored.code === "ECONNRESET" ? otherSideClosed() : errored);
  if (body.destroyed && !body.readableEnded) return terminated(otherSideClosed());
  return undefined;
}
