import type { z } from "zod";
import type { DispatchContext, Dispatcher } from "../shared/dispatch.js";
import { messageOf } from "../shared/errors.js";
import { withLazySignal } from "../shared/lazy-signal.js";
import {
  ErrorCode,
  isCoreMethod,
  McpError,
  MetaKey,
  MODERN_PROTOCOL_VERSIONS,
  REMOVED_METHODS,
} from "../types/core.js";
import type {
  DetailedTask,
  DiscoverResult,
  Implementation,
  JSONRPCResponse,
  LoggingLevel,
  ProgressToken,
  ResultObject,
  ServerCapabilities,
} from "../types/index.js";
import { isRequestId } from "../types/record.js";
import { runChain } from "./chain.js";
import type { Logger, Middleware, RefusedRequest, ServerRequestContext, ServerTelemetry } from "./context.js";
import { deriveCapabilities } from "./discover.js";
import { isWellFormedRequest, validateEnvelope } from "./envelope.js";
import type { SharedTaskChange } from "./events.js";
import { HANDLER_METHODS, type RequestHandler, type ServerHandlers } from "./handlers.js";
import { LegacyService } from "./legacy/service.js";
import { consoleLogger } from "./logger.js";
import { streamAllows } from "./notify.js";
import type { ServerOptions } from "./options.js";
import {
  checkCacheHints,
  checkResult,
  type OutboundRules,
  stampResult,
  type TaskResultCheck,
} from "./outbound.js";
import { checkParams, normalizeRequestState, type Registration } from "./params.js";
import { type Announcement, coalesced, sharedOver } from "./sharing.js";
import { authenticatedPrincipal, type PrincipalBinder } from "./state/principal.js";
import { AUDIENCE, type Audience, listenSupport, SubscriptionHub } from "./subscriptions.js";
import { errorResponse, toWireError } from "./wire-error.js";

export type { ServerIdentity, ServerOptions } from "./options.js";

/**
 * The low-level MCP server: a table of handlers behind the 2026-07-28 validation ladder. One
 * instance serves every request of every connection; transports call `dispatch`.
 *
 * @example
 * const server = new Server("Provisioner", {
 *   onListTools: () => ({ tools: [provisionTool] }),
 *   onCallTool: (ctx, params) => ({ content: [{ type: "text", text: `hello ${params.name}` }] }),
 * });
 */
export class Server implements Dispatcher {
  readonly name: string;
  readonly version: string;
  readonly instructions: string | undefined;
  readonly logger: Logger;
  /** Runs around every handler, first element outermost. `RequestStateBoundary` goes here. */
  readonly middleware: Middleware[] = [];
  /** Versions served; a request at any other version gets -32022. */
  readonly supportedVersions: readonly string[] = MODERN_PROTOCOL_VERSIONS;
  /** The 2025-era face transports use for `initialize` sessions; undefined with `legacy: false`. */
  readonly legacy: LegacyService | undefined;
  /** The `telemetry` option: the HTTP endpoint reports its own refusals of requests to it too. */
  readonly telemetry: ServerTelemetry | undefined;
  /** The `principal` option: who a caller is (see `ServerOptions.principal`). */
  readonly principal: PrincipalBinder;

  readonly #handlers = new Map<string, Registration>();
  readonly #extraCapabilities: ServerCapabilities;
  /** What every outgoing result is checked and stamped with (a new object when tasks are accepted). */
  #rules: OutboundRules;
  readonly #listChanged: boolean;
  readonly #subscriptions: SubscriptionHub;
  #taskVisible: ((taskId: string, ctx: ServerRequestContext) => boolean) | undefined;

  constructor(name: string, options: ServerOptions = {}) {
    this.telemetry = options.telemetry;
    this.principal = options.principal ?? authenticatedPrincipal;
    if (options.telemetry) this.middleware.push(options.telemetry);
    this.name = name;
    this.version = options.version ?? "";
    this.instructions = options.instructions;
    this.logger = options.logger ?? consoleLogger;
    this.#extraCapabilities = options.capabilities ?? {};
    const cacheHints = checkCacheHints(options.cacheHints);
    const info: Implementation = { name, version: this.version };
    for (const key of ["title", "description", "websiteUrl", "icons"] as const) {
      if (options[key] !== undefined) Object.assign(info, { [key]: options[key] });
    }
    this.#rules = { serverInfo: info, cacheHints };
    this.legacy = options.legacy === false ? undefined : new LegacyService(this, options.legacy);
    for (const [option, method] of Object.entries(HANDLER_METHODS)) {
      const handler = options[option as keyof ServerHandlers];
      if (handler) this.setRequestHandler(method, handler as RequestHandler<never, unknown>);
    }
    this.setRequestHandler("server/discover", () => this.discover());
    this.#listChanged = options.listChanged === true;
    this.#subscriptions = new SubscriptionHub(
      this.principal,
      options.maxSubscriptions,
      options.maxSubscriptionsPerPrincipal,
    );
    if (this.#listChanged) this.#serveListen();
    [this.#share, this.#unsubscribe] = sharedOver(
      options.events,
      (event) => this.#deliver(event),
      this.logger,
    );
  }

  /** Announces a change: through the bus when there is one, else to this instance's streams. */
  readonly #share: (event: Announcement) => void;

  #unsubscribe: (() => void) | undefined;

  #deliver(event: Announcement): void {
    if (event.kind === "taskChanged") {
      this.#receiveTask?.(event);
      return;
    }
    this.#subscriptions.publish(event);
    if (event.kind === "resourceUpdated") this.legacy?.resourceUpdated(event.uri);
  }

  /** Where `taskChanged` events go: the task runner that shares tasks (see `shareTasks`). */
  #receiveTask: ((change: unknown) => void) | undefined;

  #serveListen(): void {
    this.setRequestHandler("subscriptions/listen", (ctx) =>
      this.#subscriptions.serve(ctx, listenSupport(this.capabilities, this.#taskVisible)),
    );
  }

  /**
   * Lets listen streams follow tasks (`notifications.taskIds`, the Tasks extension): serves
   * `subscriptions/listen` if it was not served yet. `visible` says whether the listen request's
   * caller may follow a task; publish changes with `notifyTaskChanged`. MCPServer calls this for
   * its task-capable tools.
   *
   * @example
   * server.serveTaskNotifications((taskId, ctx) => myTasks.ownedBy(taskId, ctx.authInfo?.subject));
   */
  serveTaskNotifications(visible: (taskId: string, ctx: ServerRequestContext) => boolean): void {
    this.#taskVisible = visible;
    if (!this.hasHandler("subscriptions/listen")) this.#serveListen();
  }

  /**
   * Lets handlers answer with a task handle (`resultType: "task"`), checked by `check` before it
   * goes out; until then a task is an unknown resultType (-32603). The task runner of
   * `roundtrip-mcp/tasks` installs its check.
   *
   * @example
   * server.acceptTaskResults(checkCreateTaskResult);
   */
  acceptTaskResults(check: TaskResultCheck): void {
    this.#rules = { ...this.#rules, checkTask: check };
  }

  /** Sends `notifications/tasks` to the streams that follow this task (the task is built only if any may). */
  notifyTaskChanged(taskId: string, snapshot: () => DetailedTask): void {
    if (this.#subscriptions.size === 0) return;
    this.#subscriptions.publish({ kind: "task", taskId, snapshot });
  }

  /**
   * Shares tasks with the fleet: every instance's `taskChanged` events (this one's included) go to
   * `receive`, unchecked, and the function returned announces a change of this instance's. Through
   * the `events` bus when there is one; else straight to `receive`. The task runner uses it with
   * `serverTasks({ shareOverEvents: true })`.
   *
   * @example
   * const announce = server.shareTasks((change) => follow(change));
   * announce({ taskId, principal, expiresAt: Date.now() + 60_000, task: record.snapshot() });
   */
  shareTasks(receive: (change: unknown) => void): (change: SharedTaskChange) => void {
    this.#receiveTask = receive;
    return (change) => this.#share({ kind: "taskChanged", ...change });
  }

  /** The identity stamped on every result's `_meta`. */
  get serverInfo(): Implementation {
    return this.#rules.serverInfo;
  }

  /** Capabilities as advertised by `server/discover`: derived from the registered handlers. */
  get capabilities(): ServerCapabilities {
    return deriveCapabilities(new Set(this.#handlers.keys()), this.#extraCapabilities, this.#listChanged);
  }

  /**
   * Tells every listen stream that asked for it that the tool list changed; with `visibleTo`, only
   * the streams whose caller may see the changed tool (a rule that throws counts as no, and is
   * logged; with an `events` bus, every stream: the rule does not travel over one). Announcements
   * go out in order once the current synchronous run ends, each said once: fifty registrations at
   * start make one, heard by whoever may see any of them.
   *
   * @example
   * server.notifyToolsListChanged((ctx) => ctx.authInfo?.scopes.includes("admin") === true);
   */
  notifyToolsListChanged(visibleTo?: Audience): void {
    this.#announce({ kind: "toolsListChanged", [AUDIENCE]: visibleTo });
  }

  /** Tells every listen stream that asked for it that the prompt list changed (see above). */
  notifyPromptsListChanged(visibleTo?: Audience): void {
    this.#announce({ kind: "promptsListChanged", [AUDIENCE]: visibleTo });
  }

  /** Tells every listen stream that asked for it that the resource list changed (see above). */
  notifyResourcesListChanged(): void {
    this.#announce({ kind: "resourcesListChanged" });
  }

  /** Tells every stream subscribed to `uri` (or a parent of it) that the resource changed (see above). */
  notifyResourceUpdated(uri: string): void {
    this.#announce({ kind: "resourceUpdated", uri });
  }

  /** Queues an announcement for the end of the current synchronous run, each said once. */
  readonly #announce = coalesced((event) => this.#share(event));

  /**
   * Ends every listen stream of this server gracefully, on every transport and endpoint (each
   * answers with its closing result). Closing one endpoint (`serveHttp`'s `close()`,
   * `closeHttpSessions`, `serveStdio`'s) ends only that endpoint's streams.
   *
   * @example
   * server.closeSubscriptions(); // before shutting the whole process down
   */
  closeSubscriptions(): void {
    this.#subscriptions.closeAll();
  }

  /**
   * Ends every listen stream and stops following the `events` bus: a server made per tenant or per
   * test leaves nothing subscribed behind. Its endpoints own the connections: close them first.
   *
   * @example
   * await endpoint.close(); server.close();
   */
  close(): void {
    this.closeSubscriptions();
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** True when a handler serves `method`. */
  hasHandler(method: string): boolean {
    return this.#handlers.has(method);
  }

  /**
   * Registers (or replaces) the handler of a method. Core methods get their params validated by
   * the spec schema; other methods by `params` when given.
   */
  setRequestHandler<P extends Record<string, unknown>>(
    method: string,
    handler: RequestHandler<P, unknown>,
    params?: z.ZodType<P>,
  ): void {
    this.#handlers.set(method, {
      params: isCoreMethod(method) ? undefined : (params as z.ZodType<Record<string, unknown>> | undefined),
      handler: handler as RequestHandler<Record<string, unknown>, unknown>,
    });
  }

  /** The `server/discover` result, built from the live handler table. */
  discover(): DiscoverResult {
    const result: DiscoverResult = {
      supportedVersions: [...this.supportedVersions],
      capabilities: this.capabilities,
    };
    if (this.instructions !== undefined) result.instructions = this.instructions;
    return result;
  }

  /**
   * Serves one JSON-RPC request: the validation ladder, the middleware chain, the handler, then the
   * outbound rules and stamps. Always resolves: with the response, or with `undefined` when the
   * request was cancelled (nothing more may be sent for it).
   */
  async dispatch(message: unknown, context: DispatchContext = {}): Promise<JSONRPCResponse | undefined> {
    if (!isWellFormedRequest(message)) {
      const id = (message as { id?: unknown } | null)?.id;
      return errorResponse(isRequestId(id) ? id : null, {
        code: ErrorCode.InvalidRequest,
        message: "Invalid Request",
      });
    }
    const request = message;
    const cancelled = context.cancelled ?? (() => context.signal?.aborted === true);
    let finished = false;
    let chained = false;
    try {
      const { meta } = validateEnvelope(request, this.supportedVersions);
      const registration = this.#handlers.get(request.method);
      if (!registration) {
        const why = REMOVED_METHODS.has(request.method) ? " (not part of protocol revision 2026-07-28)" : "";
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}${why}`);
      }
      const params = checkParams(
        request.method,
        normalizeRequestState(request.method, request.params ?? {}, this.logger),
        registration,
      );
      const notify = context.notify;
      // The signal is read lazily: most handlers never look at it, and building one costs more
      // than the lookup.
      const ctx: ServerRequestContext = withLazySignal<Omit<ServerRequestContext, "signal">>(
        {
          method: request.method,
          requestId: request.id,
          params,
          protocolVersion: meta[MetaKey.ProtocolVersion],
          clientCapabilities: meta[MetaKey.ClientCapabilities],
          clientInfo: meta[MetaKey.ClientInfo],
          logLevel: meta[MetaKey.LogLevel] as LoggingLevel | undefined,
          progressToken: meta[MetaKey.ProgressToken] as ProgressToken | undefined,
          authInfo: context.authInfo,
          http: context.http,
          transport: context.transport,
          logger: this.logger,
          notify: async (notification) => {
            if (finished || cancelled() || !notify) return;
            if (!streamAllows(notification, meta[MetaKey.LogLevel] as LoggingLevel | undefined)) return;
            await notify(notification);
          },
        },
        context,
      );
      const rules = this.#rules;
      // Checked as the handler returns it, inside the chain, so middleware (telemetry) sees an
      // invalid result fail; again here only if a middleware answered with another object.
      let checked: ResultObject | undefined;
      chained = true;
      const result = await runChain(this.middleware, ctx, registration, (value) => {
        checked = checkResult(request.method, value, ctx.clientCapabilities, rules);
        return checked;
      });
      if (result !== checked) checkResult(request.method, result, ctx.clientCapabilities, rules);
      const finalResult = stampResult(request.method, result, rules);
      if (cancelled()) return undefined;
      return { jsonrpc: "2.0", id: request.id, result: finalResult };
    } catch (error) {
      if (cancelled()) return undefined;
      const explicitStatus = error instanceof McpError ? error.httpStatus : undefined;
      const wire = toWireError(request.method, error, this.logger, request.params);
      if (!chained && this.telemetry?.refused) {
        this.reportRefused({
          method: request.method,
          served: this.#handlers.has(request.method),
          requestId: request.id,
          params: request.params ?? {},
          error: wire,
          http: context.http,
          transport: context.transport,
        });
      }
      return errorResponse(request.id, wire, explicitStatus);
    } finally {
      finished = true;
    }
  }

  /**
   * Tells the `telemetry` option of a request refused before the middleware chain (the legacy layer
   * reports its own refusals here). A hook that throws changes no answer: it is logged.
   *
   * @example
   * server.reportRefused({ method: "tools/call", served: true, requestId: 1, params: {}, error, http: undefined });
   */
  reportRefused(request: RefusedRequest): void {
    try {
      this.telemetry?.refused?.(request);
    } catch (failure) {
      // Telemetry never changes an answer.
      this.logger.error(`telemetry failed on a refused request: ${messageOf(failure)}`);
    }
  }

  /**
   * The era-neutral middle of `dispatch`, for the legacy (2025) layer: handler lookup (-32601),
   * `requestState` normalization, params validation (-32602), then the middleware chain around the
   * handler with the context `contextFor` builds, and `check` on the handler's result as it returns
   * (inside the chain). No envelope rule and no outbound stamp: the caller applies its own era's.
   * Modern requests never come through here.
   *
   * @example
   * const result = await server.runHandler("tools/call", params, (checked) => legacyContext(checked));
   */
  async runHandler(
    method: string,
    params: Record<string, unknown>,
    contextFor: (params: Record<string, unknown>) => ServerRequestContext,
    check?: (result: unknown) => ResultObject,
  ): Promise<ResultObject> {
    const registration = this.#handlers.get(method);
    if (!registration) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    const checked = checkParams(method, normalizeRequestState(method, params, this.logger), registration);
    return runChain(this.middleware, contextFor(checked), registration, check);
  }
}
