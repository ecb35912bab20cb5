/**
 * The HTTP+SSE transport of protocol revision 2024-11-05: deprecated, still served by older
 * servers. A GET opens an event stream whose first `endpoint` event names where to POST messages;
 * every response and every server request comes back on that stream.
 */
import { ConnectionClosedError, RoundtripError } from "../../shared/errors.js";
import { timerDelay } from "../../shared/timers.js";
import type { MessageInfo, Transport, TransportNetwork } from "../../shared/transport.js";
import type { JSONRPCMessage } from "../../types/index.js";
import { type AuthProviderOption, credentialsFrom } from "./auth.js";
import { HttpStatusError, HttpTransportError } from "./errors.js";
import { httpNetwork } from "./network.js";
import { SseParser } from "./sse.js";

/**
 * Options of {@link SseClientTransport}.
 *
 * @example
 * const options: SseClientOptions = { authProvider: () => process.env.TOKEN, endpointTimeoutMs: 5_000 };
 */
export interface SseClientOptions {
  /** Extra headers on the GET and every POST. */
  headers?: HeadersInit;
  /** The `fetch` to use (default: the global one). */
  fetch?: (input: URL, init: RequestInit) => Promise<Response>;
  /** The bearer token for each request (`Authorization: Bearer …`; never logged). */
  authProvider?: AuthProviderOption;
  /** How long the GET may take, answer and `endpoint` event included, to name the POST endpoint (default 10 s). */
  endpointTimeoutMs?: number;
  /** The most one SSE event may hold (default 32 MiB); past it the stream is closed. */
  maxResponseBytes?: number;
}

const DEFAULT_ENDPOINT_TIMEOUT_MS = 10_000;

function isMessage(value: unknown): value is JSONRPCMessage {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "jsonrpc" in value;
}

/**
 * A client transport for HTTP+SSE servers (2024-11-05). `Client.connect(url)` falls back to it by
 * itself when a URL answers neither the 2026-07-28 wire nor a 2025 `initialize` POST; construct it
 * directly to skip those attempts. The POST endpoint must be on the stream's own origin: a server
 * cannot send the client's messages, and its token, elsewhere.
 *
 * @example
 * const client = await Client.connect(new SseClientTransport("http://127.0.0.1:3001/sse"), { mode: "legacy" });
 */
export class SseClientTransport implements Transport {
  readonly url: URL;
  readonly network: TransportNetwork;
  onmessage?: (message: JSONRPCMessage, info?: MessageInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #options: SseClientOptions;
  readonly #fetch: (input: URL, init: RequestInit) => Promise<Response>;
  readonly #stream = new AbortController();
  #endpoint: URL | undefined;
  #closed = false;

  constructor(url: URL | string, options: SseClientOptions = {}) {
    this.url = new URL(url);
    this.network = httpNetwork(this.url);
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The POST endpoint the stream named (undefined before `start`). */
  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  /**
   * Opens the stream and waits for its `endpoint` event, within `endpointTimeoutMs` from the GET:
   * a server that never answers the GET names no endpoint either.
   */
  async start(): Promise<void> {
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        this.#stream.abort();
      },
      timerDelay(this.#options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS),
    );
    try {
      await this.#open();
    } catch (error) {
      await this.close();
      throw timedOut ? new HttpTransportError("The HTTP+SSE stream named no endpoint in time") : error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The GET, then its stream read on until the `endpoint` event names where to POST. */
  async #open(): Promise<void> {
    const response = await this.#fetch(this.url, {
      method: "GET",
      headers: await this.#headers("GET", this.url, { accept: "text/event-stream" }),
      signal: this.#stream.signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new HttpStatusError(response.status, `GET ${this.url.pathname} answered HTTP ${response.status}`);
    }
    if (!response.headers.get("content-type")?.startsWith("text/event-stream") || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw new HttpTransportError("The HTTP+SSE stream did not answer with text/event-stream");
    }
    const reader = response.body.getReader();
    await new Promise<URL>((resolve, reject) => {
      const parser = new SseParser((event) => {
        if (event.event === "endpoint" && this.#endpoint === undefined) {
          try {
            this.#endpoint = this.#sameOrigin(event.data);
            resolve(this.#endpoint);
          } catch (error) {
            reject(error);
          }
        } else if (event.event === "message") {
          this.#deliver(event.data);
        }
      }, this.#options.maxResponseBytes);
      void this.#read(reader, parser, reject);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const endpoint = this.#endpoint;
    if (endpoint === undefined || this.#closed)
      throw new HttpTransportError("The HTTP+SSE transport is not open");
    let response: Response;
    try {
      // The stream's signal: close() aborts the POSTs in flight with it.
      response = await this.#fetch(endpoint, {
        method: "POST",
        headers: await this.#headers("POST", endpoint, { "content-type": "application/json" }),
        body: JSON.stringify(message),
        signal: this.#stream.signal,
      });
    } catch (error) {
      if (this.#closed) throw new ConnectionClosedError("The HTTP+SSE transport closed");
      throw error;
    }
    // The answer travels on the stream; the POST only says whether the message was taken.
    await response.body?.cancel().catch(() => {});
    if (!response.ok) {
      throw new HttpStatusError(
        response.status,
        `POST ${endpoint.pathname} answered HTTP ${response.status}`,
      );
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stream.abort();
    this.onclose?.();
  }

  /** The endpoint, resolved against the stream's URL; refused unless on the same origin. */
  #sameOrigin(data: string): URL {
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.url);
    } catch {
      throw new HttpTransportError("The HTTP+SSE stream named an endpoint that is not a URL");
    }
    if (endpoint.origin !== this.url.origin) {
      throw new HttpTransportError(
        `The HTTP+SSE stream named an endpoint on another origin (${endpoint.origin}); refused`,
      );
    }
    return endpoint;
  }

  #deliver(data: string): void {
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      this.onerror?.(new RoundtripError("The HTTP+SSE stream carried a message that is not JSON"));
      return;
    }
    if (!isMessage(message)) {
      this.onerror?.(
        new RoundtripError("The HTTP+SSE stream carried something that is not a JSON-RPC message"),
      );
      return;
    }
    this.onmessage?.(message);
  }

  async #read(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    parser: SseParser,
    failed: (error: Error) => void,
  ): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(value);
      }
      failed(new HttpTransportError("The HTTP+SSE stream ended"));
    } catch (error) {
      failed(error instanceof Error ? error : new HttpTransportError(String(error)));
    }
    // The stream is the only way answers arrive: when it ends, so does the transport.
    await this.close();
  }

  /**
   * One request's headers. The provider is asked per request, as the Streamable HTTP transport asks
   * it: an OAuth provider then presents a token only to the resource it was issued for, and signs
   * a DPoP proof for this method and URL.
   */
  async #headers(method: string, url: URL, base: Record<string, string>): Promise<Headers> {
    const headers = new Headers(this.#options.headers);
    for (const [name, value] of Object.entries(base)) headers.set(name, value);
    if (this.#options.authProvider !== undefined) {
      const credentials = await credentialsFrom(this.#options.authProvider, { method, url });
      for (const [name, value] of credentials.headers) headers.set(name, value);
    }
    return headers;
  }
}
