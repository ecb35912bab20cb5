import type { AuthInfo, Dispatcher, HttpRequestView } from "../../shared/dispatch.js";
import { validJSONRPCRequest } from "../../types/core.js";
import type { ErrorObject, JSONRPCMessage, JSONRPCRequest } from "../../types/index.js";
import type { ServerRequestContext } from "../context.js";
import { DualEraConnection } from "./connection.js";
import { type LegacyOptions, type ResolvedLegacyOptions, resolveLegacyOptions } from "./options.js";
import type { LegacyCore } from "./serve.js";
import { LegacySession } from "./session.js";
import { reportLegacyRefusal } from "./telemetry.js";

/**
 * A server's 2025-era face: transports open one `LegacySession` per legacy connection (stdio) or
 * per `Mcp-Session-Id` (HTTP). Every `Server` and `MCPServer` has one (`server.legacy`) unless
 * built with `legacy: false`.
 *
 * @example
 * const session = server.legacy?.openSession();
 */
export class LegacyService {
  readonly options: ResolvedLegacyOptions;
  readonly #core: LegacyCore;
  readonly #sessions = new Set<LegacySession>();

  constructor(core: LegacyCore, options: LegacyOptions = {}) {
    this.#core = core;
    this.options = resolveLegacyOptions(options);
  }

  /**
   * Who sends this HTTP request, by the server's `principal` option: what a 2025 session or an
   * HTTP+SSE stream is bound to. A transport knows only the token and the request.
   *
   * @example
   * const owner = server.legacy?.principalOf(authInfo, http);
   */
  principalOf(authInfo: AuthInfo | undefined, http: HttpRequestView): string | undefined {
    return this.#core.principal({ authInfo, http } as ServerRequestContext);
  }

  /** A fresh session, waiting for its `initialize`. */
  openSession(): LegacySession {
    const session: LegacySession = new LegacySession(this.#core, this.options, () =>
      this.#sessions.delete(session),
    );
    this.#sessions.add(session);
    return session;
  }

  /**
   * Tells the server's telemetry of a 2025 message a transport refused with `error` before any
   * session saw it (an unknown `Mcp-Session-Id`, a missing one, an `Accept` without JSON and SSE).
   * Only a request is reported: a response or a notification has no span.
   *
   * @example
   * server.legacy?.reportRefused(message, { code: -32600, message: "Not Found" }, http, "2025-11-25");
   */
  reportRefused(
    message: unknown,
    error: ErrorObject | undefined,
    http: HttpRequestView | undefined,
    protocolVersion: string | undefined,
  ): void {
    if (error && validJSONRPCRequest(message)) {
      reportLegacyRefusal(this.#core, message as JSONRPCRequest, error, { http }, protocolVersion);
    }
  }

  /** Tells every session subscribed to `uri` (or a parent of it) that the resource changed. */
  resourceUpdated(uri: string): void {
    for (const session of this.#sessions) session.resourceUpdated(uri);
  }

  /**
   * The era lock of one message-pipe connection to `dispatcher` (this service's server), whose
   * messages for the client go to `write`.
   *
   * @example
   * const era = server.legacy?.connect(server, (message) => writeLine(message));
   */
  connect(dispatcher: Dispatcher, write: (message: JSONRPCMessage) => Promise<void>): DualEraConnection {
    return new DualEraConnection(dispatcher, this, write);
  }
}

/**
 * The legacy service of a dispatcher, when it has one (`Server`, `MCPServer`); transports use it
 * to serve 2025 clients next to modern ones.
 *
 * @example
 * const legacy = legacyServiceOf(dispatcher); // undefined for a plain Dispatcher
 */
export function legacyServiceOf(dispatcher: Dispatcher): LegacyService | undefined {
  const candidate = (dispatcher as Dispatcher & { legacy?: unknown }).legacy;
  return candidate instanceof LegacyService ? candidate : undefined;
}
