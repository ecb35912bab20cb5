/**
 * The 2025-11-25 Streamable HTTP client: every message its own POST (responses to the server's
 * requests included), the `Mcp-Session-Id` the server minted on `initialize`, the negotiated
 * `MCP-Protocol-Version`, server → client requests on a POST's SSE stream or on the GET stream,
 * and DELETE of the session on close.
 */
import { ConnectionClosedError, RoundtripError } from "../../shared/errors.js";
import { pause } from "../../shared/timers.js";
import type { MessageInfo, Transport, TransportNetwork } from "../../shared/transport.js";
import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from "../../types/core.js";
import type { JSONRPCMessage, RequestId } from "../../types/index.js";
import { isRecord } from "../../types/record.js";
import {
  connectionRefused,
  describe,
  essence,
  FetchReceived,
  isEventStream,
  isResponseTo,
} from "./answer.js";
import { credentialsFrom, reauthorized } from "./auth.js";
import type { StreamableHttpClientOptions } from "./client.js";
import { HttpStatusError, HttpTransportError, ResponseTooLargeError } from "./errors.js";
import {
  followGetStream,
  type GetStreamFollower,
  readResumable,
  type StreamRead,
} from "./legacy-get-stream.js";
import { LegacySessionState, type SessionRequest } from "./legacy-session-state.js";
import { type EventReadOptions, readJsonEvents } from "./legacy-stream.js";
import { httpNetwork } from "./network.js";

const SESSION_HEADER = "Mcp-Session-Id";
const VERSION_HEADER = "MCP-Protocol-Version";
/** How long the handshake waits for the server to answer the session's GET stream. */
const LISTEN_OPEN_WAIT_MS = 1_000;

let renewals = 0;

/**
 * Talks to a 2025-era Streamable HTTP endpoint. `StreamableHttpClientTransport` hands over to it
 * by itself when an `initialize` without the modern envelope goes out (`mode: "legacy"`, or the
 * `auto` fallback), so most code never names it.
 *
 * @example
 * const session = await ClientSession.connect(new LegacyHttpClientTransport("http://127.0.0.1:3000/mcp"));
 */
export class LegacyHttpClientTransport implements Transport {
  readonly url: URL;
  readonly network: TransportNetwork;
  onmessage?: (message: JSONRPCMessage, info?: MessageInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #options: StreamableHttpClientOptions;
  readonly #fetch: (input: URL, init: RequestInit) => Promise<Response>;
  readonly #inFlight = new Map<RequestId, AbortController>();
  readonly #background = new AbortController();
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  /** The `initialize` request as sent, to open a new session with when the server forgets this one. */
  #handshake: Record<string, unknown> | undefined;
  #renewing: Promise<void> | undefined;
  /** The log level and subscriptions the server accepted: what a new session is told again. */
  readonly #state = new LegacySessionState();
  #closed = false;

  constructor(url: URL | string, options: StreamableHttpClientOptions = {}) {
    this.url = new URL(url);
    this.network = httpNetwork(this.url);
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The session the server minted on `initialize` (undefined before). */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  async start(): Promise<void> {}

  /** POSTs one message: a request waits for its response; a notification or a response for 202. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new HttpTransportError("The HTTP transport is closed");
    // Mid-renewal there is no session id to send: the server would refuse the message with 400.
    if (this.#renewing !== undefined) await this.#renewing.catch(() => {});
    const record = message as Record<string, unknown>;
    const id = record.id as RequestId | undefined | null;
    if (typeof record.method !== "string" || id === undefined || id === null) {
      const response = await this.#fetchWith("POST", record, this.#background.signal).catch((error) => {
        // Cut short by close(): the error the connection fails its awaiting calls with.
        if (this.#closed) throw new ConnectionClosedError("The HTTP transport closed");
        // A network failure reads as the 2026 client's; our own errors (auth) pass as they are.
        throw error instanceof RoundtripError
          ? error
          : new HttpTransportError(`POST ${record.method ?? "response"} failed: ${describe(error)}`);
      });
      await response.body?.cancel().catch(() => {});
      if (!response.ok)
        throw new HttpStatusError(response.status, `HTTP ${response.status} for a posted message`);
      // The handshake is complete: open the session's stream for messages unrelated to any request.
      if (record.method === "notifications/initialized" && this.#sessionId !== undefined)
        await this.#listen();
      return;
    }
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    if (record.method === "initialize") this.#handshake = record;
    try {
      const session = this.#sessionId;
      let response = await this.#fetchWith("POST", record, controller.signal).catch((error) => {
        // Refused, it reached no server (one restarting, say): once more cannot run it twice.
        if (!connectionRefused(error) || controller.signal.aborted) throw error;
        return this.#fetchWith("POST", record, controller.signal);
      });
      if (response.status === 404 && session !== undefined && record.method !== "initialize") {
        // 2025-11-25: the server no longer knows the session, so it did not run the request. Open a
        // new session with the same initialize, then send the request again in it.
        await response.body?.cancel().catch(() => {});
        await this.#renewSession(session);
        response = await this.#fetchWith("POST", record, controller.signal);
      }
      await this.#read(response, record, id, controller.signal);
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof ResponseTooLargeError)
        throw new ResponseTooLargeError(`${record.method}: ${error.message}`);
      // Our own errors (an OAuthError of the 401 recovery, say) pass as they are, as on the 2026 client.
      throw error instanceof RoundtripError
        ? error
        : new HttpTransportError(`${record.method}: the POST failed (${describe(error)})`);
    } finally {
      if (this.#inFlight.get(id) === controller) this.#inFlight.delete(id);
    }
  }

  /** The 2025 way to cancel: stop reading, and tell the server with `notifications/cancelled`. */
  cancel(requestId: RequestId, reason?: string): void {
    this.#inFlight.get(requestId)?.abort();
    this.#inFlight.delete(requestId);
    const params = reason === undefined ? { requestId } : { requestId, reason };
    void this.send({ jsonrpc: "2.0", method: "notifications/cancelled", params }).catch(() => {});
  }

  /** Aborts every exchange and ends the session on the server (DELETE, best effort). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#inFlight.values()) controller.abort();
    this.#inFlight.clear();
    this.#background.abort();
    if (this.#sessionId !== undefined) {
      const ended = new AbortController();
      const timer = setTimeout(() => ended.abort(), 2_000);
      await this.#fetchWith("DELETE", undefined, ended.signal)
        .then((response) => response.body?.cancel())
        .catch(() => {})
        .finally(() => clearTimeout(timer));
    }
    this.onclose?.();
  }

  async #fetchWith(
    method: string,
    body: Record<string, unknown> | undefined,
    signal: AbortSignal,
    extra: Record<string, string> = {},
  ): Promise<Response> {
    const headers = new Headers(this.#options.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    headers.set("Accept", method === "GET" ? "text/event-stream" : "application/json, text/event-stream");
    if (body !== undefined) headers.set("Content-Type", "application/json");
    if (this.#sessionId !== undefined) headers.set(SESSION_HEADER, this.#sessionId);
    if (this.#protocolVersion !== undefined) headers.set(VERSION_HEADER, this.#protocolVersion);
    const auth = this.#options.authProvider;
    const init: RequestInit = { method, headers, signal };
    if (body !== undefined) init.body = JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      const credentials =
        auth === undefined ? undefined : await credentialsFrom(auth, { method, url: this.url });
      for (const [name, value] of credentials?.headers ?? []) headers.set(name, value);
      const response = await this.#fetch(this.url, init);
      if (response.status !== 401 && response.status !== 403) return response;
      const refusal = new HttpStatusError(
        response.status,
        `HTTP ${response.status} for ${method}`,
        response.headers.get("www-authenticate") ?? undefined,
        undefined,
        response.headers.get("dpop-nonce") ?? undefined,
      );
      // Ending the session is best effort: it never starts a sign-in.
      if (method === "DELETE" || !(await reauthorized(auth, refusal, this.url, attempt, credentials?.token)))
        return response;
      await response.body?.cancel().catch(() => {});
    }
  }

  /**
   * Opens a new session with the remembered `initialize` (its answer is not delivered: the session
   * already has one) and `notifications/initialized`; once for all the requests that met the 404.
   */
  #renewSession(expired: string): Promise<void> {
    if (this.#sessionId !== expired) return this.#renewing ?? Promise.resolve();
    this.#renewing ??= this.#openAgain().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  async #openAgain(): Promise<void> {
    const handshake = this.#handshake;
    const failed = (detail: string) =>
      new HttpStatusError(404, `HTTP 404: the session expired and a new one could not be opened (${detail})`);
    if (handshake === undefined) throw failed("no initialize to repeat");
    this.#sessionId = undefined;
    const id = `rt-reinit-${++renewals}`;
    const signal = this.#background.signal;
    const response = await this.#fetchWith("POST", { ...handshake, id }, signal);
    const answer = await this.#answerTo(response, id, signal);
    const session = response.headers.get(SESSION_HEADER);
    if (!response.ok || !isJSONRPCResultResponse(answer) || session === null) {
      throw failed(response.ok ? "no session in the answer" : `HTTP ${response.status}`);
    }
    this.#sessionId = session;
    this.#adopt(answer.result);
    const initialized = await this.#fetchWith(
      "POST",
      { jsonrpc: "2.0", method: "notifications/initialized" },
      signal,
    );
    await initialized.body?.cancel().catch(() => {});
    await this.#listen();
    // Before the requests that met the 404 go again: their logs then come at the user's level,
    // and what they change reaches the subscriptions.
    await Promise.all(this.#state.replay().map((request) => this.#restore(request, signal)));
  }

  /** Repeats one request of the old session's state on the new one; a refusal is reported, not thrown. */
  async #restore({ method, params }: SessionRequest, signal: AbortSignal): Promise<void> {
    const id = `rt-reinit-${++renewals}`;
    const answer = await this.#fetchWith("POST", { jsonrpc: "2.0", id, method, params }, signal)
      .then((response) => this.#answerTo(response, id, signal))
      .catch(() => undefined);
    if (!isJSONRPCResultResponse(answer) && !signal.aborted)
      this.onerror?.(new HttpTransportError(`${method} could not be repeated on the new session`));
  }

  /** A JSON body; undefined when it is not JSON or broke off. Past `maxResponseBytes` it throws. */
  async #json(response: Response): Promise<unknown> {
    try {
      return JSON.parse(await new FetchReceived(response).text(this.#options.maxResponseBytes));
    } catch (error) {
      if (error instanceof ResponseTooLargeError) throw error;
      return undefined;
    }
  }

  /** The response to `id` in a JSON or SSE answer, other messages delivered as they come. */
  async #answerTo(response: Response, id: string, signal: AbortSignal): Promise<unknown> {
    if (essence(response.headers.get("content-type")) !== "text/event-stream") return this.#json(response);
    let answer: unknown;
    await readJsonEvents(
      response,
      signal,
      (message) => {
        if (isRecord(message) && message.id === id && !("method" in message)) answer = message;
        else this.onmessage?.(message as JSONRPCMessage);
      },
      this.#reading(() => answer !== undefined),
    );
    return answer;
  }

  /** Reads a request's answer: JSON, or an SSE stream of messages ending with the response. */
  async #read(
    response: Response,
    record: Record<string, unknown>,
    id: RequestId,
    signal: AbortSignal,
  ): Promise<void> {
    const method = record.method as string;
    const type = essence(response.headers.get("content-type"));
    const opening = method === "initialize" && response.ok;
    if (opening) this.#sessionId = response.headers.get(SESSION_HEADER) ?? this.#sessionId;
    // What a result changes here: the negotiated version, and the state a new session is told again.
    const accepted = (result: unknown) => {
      if (opening) this.#adopt(result);
      this.#state.accepted(method, record.params);
    };
    if (type === "text/event-stream" && response.ok) {
      const answered = await readResumable(
        response,
        signal,
        (stream) => this.#readStream(stream, id, signal, accepted),
        (lastEventId) => this.#fetchWith("GET", undefined, signal, { "Last-Event-ID": lastEventId }),
      );
      if (!answered && !signal.aborted) {
        throw new HttpTransportError(`${method}: the event stream ended before the response`);
      }
      return;
    }
    let body: unknown;
    if (type === "application/json") body = await this.#json(response);
    else await response.body?.cancel().catch(() => {});
    if (isResponseTo(body, id) && response.status !== 401 && response.status !== 403) {
      if (isJSONRPCResultResponse(body)) accepted(body.result);
      this.onmessage?.({ ...body, id } as JSONRPCMessage, { relatedRequestId: id });
      return;
    }
    if (response.ok) {
      throw new HttpTransportError(
        `${method}: ${body === undefined ? "the server sent no readable JSON" : "the server's JSON answer is not the response to this request"}`,
      );
    }
    const session = response.status === 404 && this.#sessionId !== undefined ? " (the session expired)" : "";
    throw new HttpStatusError(
      response.status,
      `HTTP ${response.status} for ${method}${session}`,
      response.headers.get("www-authenticate") ?? undefined,
    );
  }

  /** Delivers every message of a request's stream; `answered` once the response arrived. */
  async #readStream(
    response: Response,
    id: RequestId,
    signal: AbortSignal,
    accepted: (result: unknown) => void,
  ): Promise<StreamRead> {
    let answered = false;
    const parser = await readJsonEvents(
      response,
      signal,
      (message) => {
        if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
          if ((message as { id?: unknown }).id !== id) return;
          answered = true;
          if (isJSONRPCResultResponse(message)) accepted(message.result);
        }
        this.onmessage?.(message as JSONRPCMessage, { relatedRequestId: id });
      },
      this.#reading(() => answered),
    );
    return { answered, lastEventId: parser?.lastEventId, retryMs: parser?.retryMs };
  }

  /** How this transport reads a stream: within `maxResponseBytes`, skipped events to `onerror`. */
  #reading(done?: () => boolean): EventReadOptions {
    return { maxBytes: this.#options.maxResponseBytes, warn: (error) => this.onerror?.(error), done };
  }

  /** Takes the negotiated version from the `initialize` result (sent on every later request). */
  #adopt(result: unknown): void {
    if (isRecord(result) && typeof result.protocolVersion === "string")
      this.#protocolVersion = result.protocolVersion;
  }

  /**
   * Opens the session's GET stream for server messages unrelated to any request (405: none is
   * offered), read on in the background and opened again when the server ends it. Resolves once
   * the server answered the GET, or after LISTEN_OPEN_WAIT_MS: a request sent before then could race
   * the GET, so a server would drop what it sends there for that request's side effects, or take the
   * fresh GET for a stream resumption.
   */
  async #listen(): Promise<void> {
    const signal = this.#background.signal;
    const session = this.#sessionId;
    const follower: GetStreamFollower = {
      open: (lastEventId) =>
        this.#fetchWith("GET", undefined, signal, lastEventId ? { "Last-Event-ID": lastEventId } : {}),
      read: (response) =>
        readJsonEvents(
          response,
          signal,
          (message) => this.onmessage?.(message as JSONRPCMessage),
          this.#reading(),
        ),
      forgotten: () => {
        if (session !== undefined) this.#renewSession(session).catch((error: Error) => this.onerror?.(error));
      },
      onerror: (error) => this.onerror?.(error),
    };
    const opened = this.#fetchWith("GET", undefined, signal).then(
      (response) => {
        if (!isEventStream(response)) {
          void response.body?.cancel().catch(() => {});
          return;
        }
        followGetStream(response, signal, follower).catch((error: unknown) => this.onerror?.(error as Error));
      },
      // No stream: requests related to a POST still arrive on that POST's stream.
      () => {},
    );
    const settled = new AbortController();
    await Promise.race([opened, pause(LISTEN_OPEN_WAIT_MS, settled.signal)]);
    settled.abort();
  }
}
