/**
 * The Streamable HTTP client transport (2026-07-28): one POST per message, JSON or SSE answers,
 * cancellation by closing the stream, and one retry when a read-only request's stream drops or a
 * connection is refused (nothing was sent, so even tools/call is safe to re-send).
 */

import { Cancellation } from "../../shared/cancellation.js";
import { ConnectionClosedError } from "../../shared/errors.js";
import type { MessageInfo, Transport, TransportNetwork } from "../../shared/transport.js";
import type { JSONRPCMessage, RequestId } from "../../types/index.js";
import {
  ANSWERED,
  connectionRefused,
  describe,
  FetchReceived,
  type Outcome,
  type Received,
  readAnswer,
} from "./answer.js";
import { type AuthProviderOption, credentialsFrom, type HttpCredentials, reauthorized } from "./auth.js";
import { HttpStatusError, HttpTransportError } from "./errors.js";
import { envelopeVersionOf, standardHeadersFor } from "./headers.js";
import { LegacyHttpClientTransport } from "./legacy-client.js";
import { httpNetwork } from "./network.js";
import { directPostAvailable, type HeaderPlan, prepareDirect, webHeaders } from "./node-post.js";
import {
  filterToolsWithValidHeaders,
  type ParamHeader,
  paramHeadersFor,
  validateXMcpHeaders,
} from "./x-mcp-header.js";

/**
 * Options of `StreamableHttpClientTransport`.
 *
 * @example
 * const options: StreamableHttpClientOptions = { authProvider: () => tokens.current, headers: { "x-tenant": "acme" } };
 */
export interface StreamableHttpClientOptions {
  /** Extra headers on every POST (the MCP headers always win). */
  headers?: HeadersInit;
  /**
   * The `fetch` to use, e.g. an in-process handler. Default: the global one; on Node, while
   * neither it nor undici's global dispatcher is replaced, POSTs go through `node:http(s)`
   * directly, with the same requests and answers, at a fraction of the cost.
   */
  fetch?: (input: URL, init: RequestInit) => Promise<Response>;
  /**
   * The bearer token for each POST (`Authorization: Bearer …`; never logged): a function, or an
   * `HttpAuthProvider` that can also re-authorize when the server answers 401/403 (e.g.
   * `OAuthClientProvider` from `roundtrip-mcp/oauth`), after which the message is sent again.
   */
  authProvider?: AuthProviderOption;
  /** The `x-mcp-header` declarations of a tool, to mirror its arguments into `Mcp-Param-*`. */
  paramHeaders?: (toolName: string) => readonly ParamHeader[] | undefined;
  /**
   * The most one answer may hold: a JSON body, or one SSE event (default 32 MiB, as stdio bounds
   * a line). Past it the request fails with `ResponseTooLargeError` instead of buffering on.
   */
  maxResponseBytes?: number;
}

/**
 * Requests re-issued once (with a new id) when their stream drops before the response: they
 * read, never act. A `tools/call` is re-issued only for a listed tool the server marked read-only
 * or idempotent; `subscriptions/listen` is re-opened by the client's listen, never here.
 */
const RETRY_SAFE: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
]);

let retryCounter = 0;

/** What the transport reads of a listed tool. */
type ListedTool = {
  name: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean };
};

/**
 * Talks to a Streamable HTTP endpoint. Local failures (network, dropped stream, non-MCP error
 * statuses, 401/403) reject `send` with `HttpTransportError`/`HttpStatusError`, which
 * `JsonRpcConnection` turns into the call's rejection; JSON-RPC errors from the server, whatever
 * their HTTP status, are delivered as responses.
 *
 * @example
 * const session = await ClientSession.connect(new StreamableHttpClientTransport(new URL("http://127.0.0.1:3000/mcp")));
 * const { tools } = await session.listTools();
 */
export class StreamableHttpClientTransport implements Transport {
  readonly url: URL;
  readonly network: TransportNetwork;
  /** A custom source of `x-mcp-header` declarations; by default those given to `rememberTools`. */
  paramHeaders: ((toolName: string) => readonly ParamHeader[] | undefined) | undefined;
  onmessage?: (message: JSONRPCMessage, info?: MessageInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #options: StreamableHttpClientOptions;
  readonly #fetch: (input: URL, init: RequestInit) => Promise<Response>;
  readonly #mayPostDirectly: boolean;
  readonly #inFlight = new Map<RequestId, Cancellation>();
  readonly #notifying = new Set<Cancellation>();
  readonly #toolHeaders = new Map<string, readonly ParamHeader[]>();
  /** Listed tools whose annotations say running them twice does no harm. */
  readonly #reissuable = new Set<string>();
  #closed = false;
  /** Set once an `initialize` without the envelope went out: the 2025 wire from then on. */
  #legacy: LegacyHttpClientTransport | undefined;

  constructor(url: URL | string, options: StreamableHttpClientOptions = {}) {
    this.url = new URL(url);
    this.network = httpNetwork(this.url);
    const max = options.maxResponseBytes;
    if (max !== undefined && !(Number.isInteger(max) && max > 0)) {
      throw new RangeError(`maxResponseBytes must be a positive integer, got ${max}`);
    }
    this.#options = options;
    this.paramHeaders = options.paramHeaders;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#mayPostDirectly = options.fetch === undefined;
  }

  async start(): Promise<void> {}

  /** POSTs one message; settles when its exchange is over (see the class notes for failures). */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new HttpTransportError("The HTTP transport is closed");
    const record = message as Record<string, unknown>;
    if (this.#legacy === undefined && record.method === "initialize" && !envelopeVersionOf(record.params)) {
      this.#legacy = this.#enterLegacy();
    }
    if (this.#legacy) return this.#legacy.send(message);
    if (typeof record.method !== "string") {
      throw new HttpTransportError("Only requests and notifications are POSTed over Streamable HTTP");
    }
    const id = record.id as RequestId | undefined | null;
    const cancellation = new Cancellation();
    if (id === undefined || id === null) {
      this.#notifying.add(cancellation);
      return this.#authorizedNotify(record, cancellation).finally(() => this.#notifying.delete(cancellation));
    }
    this.#inFlight.set(id, cancellation);
    try {
      let outcome = await this.#exchange(record, id, cancellation);
      const retryable = !outcome.answered && (outcome.neverSent === true || this.#reissues(record));
      if (!outcome.answered && !cancellation.cancelled() && retryable) {
        // No resumability in 2026-07-28: the lost request is re-issued as a new one, with a new id.
        outcome = await this.#exchange({ ...record, id: `rt-retry-${++retryCounter}` }, id, cancellation);
      }
      if (!outcome.answered && !cancellation.cancelled()) throw outcome.error;
    } finally {
      if (this.#inFlight.get(id) === cancellation) this.#inFlight.delete(id);
    }
  }

  /**
   * Learns the `x-mcp-header` declarations of listed tools (pages merge), so later `tools/call`s
   * mirror their arguments into `Mcp-Param-*`. Call it with the tools kept by
   * `filterToolsWithValidHeaders`. A `paramHeaders` function, when set, is used instead.
   *
   * @example
   * const { tools } = await session.listTools();
   * transport.rememberTools(filterToolsWithValidHeaders(tools, console.warn));
   */
  rememberTools(tools: readonly ListedTool[]): void {
    for (const tool of tools) {
      const checked = validateXMcpHeaders(tool.inputSchema);
      if (checked.ok && checked.headers.length > 0) this.#toolHeaders.set(tool.name, checked.headers);
      else this.#toolHeaders.delete(tool.name);
      const hints = tool.annotations;
      if (hints?.readOnlyHint === true || hints?.idempotentHint === true) this.#reissuable.add(tool.name);
      else this.#reissuable.delete(tool.name);
    }
  }

  /**
   * Whether a request whose stream dropped is re-issued (the spec asks for it; a tool the server
   * did not mark read-only or idempotent could run twice, so it is not).
   */
  #reissues(record: Record<string, unknown>): boolean {
    if (record.method !== "tools/call") return RETRY_SAFE.has(record.method as string);
    const name = (record.params as { name?: unknown } | undefined)?.name;
    return typeof name === "string" && this.#reissuable.has(name);
  }

  /**
   * What an HTTP client MUST do with a `tools/list` page: drop the tools whose `x-mcp-header`
   * declarations break the spec (warning once each), and remember the rest for `Mcp-Param-*`.
   *
   * @example
   * const tools = transport.filterListedTools((await session.listTools()).tools, console.warn);
   */
  filterListedTools<T extends ListedTool>(tools: readonly T[], warn: (message: string) => void): T[] {
    if (this.#legacy) return [...tools]; // x-mcp-header is a 2026 header rule
    const kept = filterToolsWithValidHeaders(tools, warn);
    this.rememberTools(kept);
    return kept;
  }

  /**
   * Closing the POST's stream is the cancellation over HTTP: no notification is sent (a 2025
   * session sends `notifications/cancelled` instead).
   */
  cancel(requestId: RequestId, reason?: string): void {
    if (this.#legacy) {
      this.#legacy.cancel(requestId, reason);
      return;
    }
    this.#inFlight.get(requestId)?.cancel();
    this.#inFlight.delete(requestId);
  }

  /** Aborts every exchange in flight. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const cancellation of [...this.#inFlight.values(), ...this.#notifying]) cancellation.cancel();
    this.#inFlight.clear();
    this.#notifying.clear();
    await this.#legacy?.close();
    this.onclose?.();
  }

  /** The 2025 Streamable HTTP client on the same URL and options (sessions, GET stream, DELETE). */
  #enterLegacy(): LegacyHttpClientTransport {
    const legacy = new LegacyHttpClientTransport(this.url, { ...this.#options, fetch: this.#fetch });
    legacy.onmessage = (message, info) => this.onmessage?.(message, info);
    legacy.onerror = (error) => this.onerror?.(error);
    return legacy;
  }

  /** The headers of one POST, as operations on `options.headers` (see `HeaderPlan`). */
  #headers(message: Record<string, unknown>, credentials: HttpCredentials | undefined): HeaderPlan {
    const init = this.#options.headers;
    const set: [string, string][] = [
      ["Content-Type", "application/json"],
      ["Accept", "application/json, text/event-stream"],
    ];
    for (const [name, value] of Object.entries(standardHeadersFor(message))) set.push([name, value]);
    const params = message.params as Record<string, unknown> | undefined;
    if (message.method === "tools/call" && typeof params?.name === "string") {
      const lookup = this.paramHeaders;
      const declared = (lookup ? lookup(params.name) : this.#toolHeaders.get(params.name)) ?? [];
      for (const [name, value] of Object.entries(paramHeadersFor(declared, params.arguments))) {
        set.push([name, value]);
      }
    }
    if (credentials !== undefined) for (const [name, value] of credentials.headers) set.push([name, value]);
    return { init, set };
  }

  /**
   * Sends one POST. Throws, before anything is sent, what building its headers or body throws;
   * rejects with what fetch rejects with when the exchange fails.
   */
  #request(
    message: Record<string, unknown>,
    cancellation: Cancellation,
    credentials: HttpCredentials | undefined,
  ): () => Promise<Received> {
    return this.#sender(message, this.#headers(message, credentials), cancellation);
  }

  #sender(
    message: Record<string, unknown>,
    plan: HeaderPlan,
    cancellation: Cancellation,
  ): () => Promise<Received> {
    const body = JSON.stringify(message);
    const direct =
      this.#mayPostDirectly && directPostAvailable() ? prepareDirect(this.url, plan, body) : undefined;
    if (direct) return () => direct.send(cancellation);
    const init = { method: "POST", headers: webHeaders(plan), body, signal: cancellation.signal };
    return async () => new FetchReceived(await this.#fetch(this.url, init));
  }

  /** The auth provider's current `authGrant`: a `Client` drops its private cache when it changes. */
  authGrant(): unknown {
    const auth = this.#options.authProvider;
    return typeof auth === "object" ? auth.authGrant : undefined;
  }

  /** One request's exchange: a plain POST, or one the auth provider may re-authorize. */
  #exchange(message: Record<string, unknown>, id: RequestId, cancellation: Cancellation): Promise<Outcome> {
    const auth = this.#options.authProvider;
    return auth === undefined
      ? this.#post(message, id, cancellation, undefined)
      : this.#authorizedPost(message, id, cancellation, auth);
  }

  /**
   * A POST with the provider's token: a 401/403 hands the refusal to its `unauthorized`, and the
   * same message goes out again while that answers true (bounded). Nothing was processed on a
   * refusal, so the same id is safe to reuse.
   */
  async #authorizedPost(
    message: Record<string, unknown>,
    id: RequestId,
    cancellation: Cancellation,
    auth: AuthProviderOption,
  ): Promise<Outcome> {
    for (let attempt = 1; ; attempt++) {
      const credentials = await credentialsFrom(auth, { method: "POST", url: this.url });
      try {
        return await this.#post(message, id, cancellation, credentials);
      } catch (error) {
        if (!(await reauthorized(auth, error, this.url, attempt, credentials.token))) throw error;
      }
    }
  }

  async #authorizedNotify(message: Record<string, unknown>, cancellation: Cancellation): Promise<void> {
    const auth = this.#options.authProvider;
    for (let attempt = 1; ; attempt++) {
      const credentials =
        auth === undefined ? undefined : await credentialsFrom(auth, { method: "POST", url: this.url });
      try {
        return await this.#notify(message, cancellation, credentials);
      } catch (error) {
        if (!(await reauthorized(auth, error, this.url, attempt, credentials?.token))) throw error;
      }
    }
  }

  async #notify(
    message: Record<string, unknown>,
    cancellation: Cancellation,
    credentials: HttpCredentials | undefined,
  ): Promise<void> {
    const send = this.#request(message, cancellation, credentials);
    let response: Received;
    try {
      response = await send();
    } catch (error) {
      // Only close() cancels a notification: the error the connection fails its awaiting calls with.
      if (cancellation.cancelled()) throw new ConnectionClosedError("The HTTP transport closed");
      throw new HttpTransportError(`POST ${String(message.method)} failed: ${describe(error)}`);
    }
    await response.discard();
    if (response.status < 200 || response.status > 299)
      throw new HttpStatusError(
        response.status,
        `HTTP ${response.status} for ${String(message.method)}`,
        response.header("www-authenticate") ?? undefined,
        undefined,
        response.header("dpop-nonce") ?? undefined,
      );
  }

  /** One POST: `answered` once a response for `id` was delivered; a dropped exchange otherwise. */
  async #post(
    message: Record<string, unknown>,
    id: RequestId,
    cancellation: Cancellation,
    credentials: HttpCredentials | undefined,
  ): Promise<Outcome> {
    const method = String(message.method);
    const send = this.#request(message, cancellation, credentials);
    let response: Received;
    try {
      response = await send();
    } catch (error) {
      if (cancellation.cancelled()) return ANSWERED;
      return {
        answered: false,
        error: new HttpTransportError(`${method}: the POST failed (${describe(error)})`),
        neverSent: connectionRefused(error),
      };
    }
    return readAnswer(response, {
      method,
      wireId: message.id as RequestId,
      id,
      cancelled: cancellation.cancelled,
      deliver: (answer, info) => this.onmessage?.(answer, info),
      warn: (error) => this.onerror?.(error),
      maxBytes: this.#options.maxResponseBytes,
    });
  }
}
