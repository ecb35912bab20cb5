/**
 * One HTTP request as the endpoint reads it. `createHttpHandler` wraps a web `Request`;
 * `serveHttp`/`toNodeListener` wrap `node:http`'s request directly (node-incoming.ts), so both run
 * the same validation ladder without a `Request` on the Node hot path.
 */
import { type BodyRead, readBodyWithLimit } from "./body.js";

/** What the endpoint reads of a request. */
export interface Incoming {
  readonly method: string;
  /** A header's value (any case of `name`), repeats combined as `Headers.get` combines them. */
  header(name: string): string | null;
  /** The host of the request URL, for a request without a `Host` header. */
  urlHost(): string | null;
  /** A query parameter of the request URL (the first, decoded), or null. */
  query(name: string): string | null;
  /**
   * The body as UTF-8 under a size limit, with `readBodyWithLimit`'s outcomes; synchronously when it
   * has all arrived already.
   */
  readBody(maxBytes: number): BodyRead | Promise<BodyRead>;
  /**
   * Calls `listener` once when the client goes away before the answer is complete (at once if it
   * already has). Returns the unsubscribe.
   */
  onGone(listener: () => void): () => void;
  /** The whole request as a web `Request` (`ctx.http`); built on first use where there is none. */
  request(): Request;
  /**
   * The request without its body (method, URL, headers, signal), for `verifyToken`: a verifier that
   * reads it cannot take the body from the endpoint.
   */
  bodiless(): Request;
}

const NOTHING = () => {};

/** A web `Request` as an `Incoming`. */
export class WebIncoming implements Incoming {
  readonly #request: Request;

  constructor(request: Request) {
    this.#request = request;
  }

  get method(): string {
    return this.#request.method;
  }

  header(name: string): string | null {
    return this.#request.headers.get(name);
  }

  urlHost(): string | null {
    try {
      return new URL(this.#request.url).host;
    } catch {
      return null;
    }
  }

  query(name: string): string | null {
    try {
      return new URL(this.#request.url).searchParams.get(name);
    } catch {
      return null;
    }
  }

  readBody(maxBytes: number): Promise<BodyRead> {
    return readBodyWithLimit(this.#request, maxBytes);
  }

  onGone(listener: () => void): () => void {
    const signal = this.#request.signal;
    if (signal.aborted) {
      listener();
      return NOTHING;
    }
    signal.addEventListener("abort", listener, { once: true });
    return () => signal.removeEventListener("abort", listener);
  }

  request(): Request {
    return this.#request;
  }

  bodiless(): Request {
    const request = this.#request;
    return new Request(request.url, {
      method: request.method,
      headers: request.headers,
      signal: request.signal,
    });
  }
}
