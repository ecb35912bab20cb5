import { JsonRpcConnection } from "../shared/connection.js";
import { RoundtripError } from "../shared/errors.js";
import type { Transport } from "../shared/transport.js";
import {
  LATEST_PROTOCOL_VERSION,
  MetaKey,
  NotificationMethod,
  TASKS_EXTENSION,
  TaskMethod,
  validImplementation,
} from "../types/core.js";
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteRequestParams,
  CompleteResult,
  CreateTaskResult,
  DiscoverResult,
  GetPromptResult,
  GetTaskResult,
  Implementation,
  InputRequiredResult,
  InputResponses,
  JSONRPCNotification,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LoggingLevel,
  LoggingMessageNotificationParams,
  ReadResourceResult,
  ResultObject,
  SubscriptionFilter,
} from "../types/index.js";
import { buildEnvelope, PlainEnvelope } from "./envelope.js";
import { observeRequest } from "./instrument-guard.js";
import { type ListenOptions, openSubscription, type Subscription } from "./listen.js";
import {
  guarded,
  notificationRouter,
  reportTransportError,
  sessionWarnings,
  warningSink,
} from "./notification-routing.js";
import { checkResult } from "./result-check.js";
import {
  type CallOptions,
  type ClientSessionOptions,
  type InputCallOptions,
  type NoTask,
  type NotOpted,
  type Opted,
  type ToolCallOptions,
  withInput,
} from "./session-options.js";

export type {
  CallOptions,
  ClientSessionOptions,
  InputCallOptions,
  RequestInstrument,
  RequestObservation,
  RequestSession,
  ToolCallOptions,
} from "./session-options.js";

/** The SDK's own identity, sent as `clientInfo` unless the caller names itself. */
export const DEFAULT_CLIENT_INFO: Implementation = Object.freeze({
  name: "roundtrip-client",
  version: "0.1.0",
});

let progressCounter = 0;

/**
 * The low-level client: one typed method per request, the `_meta` envelope on every request, and
 * the manual multi-round-trip loop (`allowInputRequired`). `Client` builds on it.
 *
 * @example
 * const session = await ClientSession.connect(new MemoryTransport(server));
 * let result = await session.callTool("provision", { name: "orders" }, { allowInputRequired: true });
 */
export class ClientSession {
  readonly connection: JsonRpcConnection;
  readonly clientInfo: Implementation;
  capabilities: ClientCapabilities;
  protocolVersion: string;
  logLevel: LoggingLevel | undefined;
  readonly #plainEnvelope = new PlainEnvelope();
  /** `"legacy"` once the 2025 `initialize` handshake ran: requests then carry no envelope. */
  era: "modern" | "legacy" = "modern";
  /** Each request's timeout unless its call says otherwise (default 60 s). */
  readonly timeoutMs: number;
  readonly #onLog: ((params: LoggingMessageNotificationParams) => void) | undefined;
  readonly #requestMeta: ClientSessionOptions["requestMeta"];
  readonly #instrument: ClientSessionOptions["instrument"];
  readonly #transport: Transport;
  readonly #warn: (message: string) => void;
  #serverInfo: Implementation | undefined;
  /** What a request with listeners leaves to the session: read at call time, as hooks wrap it. */
  readonly #unclaimed = (notification: JSONRPCNotification) => this.connection.onNotification?.(notification);

  constructor(transport: Transport, options: ClientSessionOptions = {}) {
    this.connection = new JsonRpcConnection(transport);
    this.#transport = transport;
    this.#warn = warningSink(options.onWarning);
    sessionWarnings.set(this, this.#warn);
    this.clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.capabilities = options.capabilities ?? {};
    this.protocolVersion = options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    this.logLevel = options.logLevel;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.#onLog = options.onLog;
    this.#requestMeta = options.requestMeta;
    this.#instrument = options.instrument;
    this.connection.onNotification = (notification) => this.#routeStray(notification);
    this.connection.onError = (error) => reportTransportError(this.#warn, error);
  }

  /** Creates a session and starts its transport. */
  static async connect(transport: Transport, options: ClientSessionOptions = {}): Promise<ClientSession> {
    const session = new ClientSession(transport, options);
    await session.connection.start();
    return session;
  }

  /** The transport's current authorization grant (see `Transport.authGrant`), if it has one. */
  get authGrant(): unknown {
    return this.#transport.authGrant?.();
  }

  /** The server's identity, from the serverInfo stamp of the last result that carried one. */
  get serverInfo(): Implementation | undefined {
    return this.#serverInfo;
  }

  /** Closes the transport; calls still pending reject with `ConnectionClosedError`. */
  async close(): Promise<void> {
    await this.connection.close();
  }

  /** The `_meta` envelope every request carries. */
  envelope(extra?: Record<string, unknown>, progressToken?: string): Record<string, unknown> {
    if (this.era === "legacy") {
      // After the 2025 handshake: the session established all of this once; only the client's own keys go.
      return progressToken === undefined
        ? { ...extra }
        : { ...extra, [MetaKey.ProgressToken]: progressToken };
    }
    if (extra === undefined && progressToken === undefined) return this.#plainEnvelope.of(this);
    return buildEnvelope(this, extra, progressToken);
  }

  /**
   * Sends any request with the envelope, and checks the result: a missing `resultType` reads as
   * complete, an unknown one is a `ProtocolError`, `input_required` only on the three carriers, a
   * task only on `tools/call` when the session declares the Tasks extension.
   */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    options: ToolCallOptions = {},
  ): Promise<ResultObject> {
    const progressToken = options.onProgress ? `rt-progress-${++progressCounter}` : undefined;
    // Object.assign then a set: on Node 20 a spread with extra keys costs ten times more.
    const wireParams: Record<string, unknown> = Object.assign({}, params);
    const id = this.connection.newId();
    // Without an instrument no argument is evaluated: no object per request.
    const observed =
      this.#instrument &&
      observeRequest(this.#instrument, this.#warn, method, params, id, {
        protocolVersion: this.protocolVersion,
        network: this.#transport.network,
      });
    let checked: ResultObject;
    try {
      const computed = this.#requestMeta?.(method);
      const extra =
        computed === undefined && observed?.meta === undefined
          ? options.meta
          : Object.assign({}, computed, observed?.meta, options.meta);
      wireParams._meta = this.envelope(extra, progressToken);
      const result = await this.connection.request(
        method,
        wireParams,
        {
          signal: options.signal,
          timeoutMs: options.timeoutMs ?? this.timeoutMs,
          resetTimeoutOnProgress: options.resetTimeoutOnProgress,
          maxTimeoutMs: options.maxTimeoutMs,
          endsOnPeerCancel: method === "subscriptions/listen",
          onNotification: notificationRouter(
            options.onProgress,
            options.onLog ?? this.#onLog,
            options.onNotification,
            this.#warn,
            this.#unclaimed,
          ),
        },
        id,
      );
      this.#noteServerInfo(result);
      checked = checkResult(method, result, options, this.era === "modern" ? this.capabilities : undefined);
    } catch (error) {
      observed?.end({ error });
      throw error;
    }
    observed?.end({ result: checked });
    return checked;
  }

  /** `server/discover`: versions, capabilities and instructions of the server. */
  async discover(options?: CallOptions): Promise<DiscoverResult> {
    return (await this.request("server/discover", {}, options)) as DiscoverResult;
  }

  /** `tools/list`: one page of tools, from `cursor` (the previous page's `nextCursor`) on. */
  async listTools(cursor?: string, options?: CallOptions): Promise<ListToolsResult> {
    const params = cursor === undefined ? {} : { cursor };
    const result = (await this.request("tools/list", params, options)) as ListToolsResult;
    const tools = this.#transport.filterListedTools?.(result.tools, this.#warn);
    return tools === undefined ? result : { ...result, tools };
  }

  /**
   * `tools/call`. With `allowInputRequired`, an `InputRequiredResult` is returned instead of thrown;
   * with `allowTask` (and the extension declared), a `CreateTaskResult`.
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: Opted & { allowTask: true },
  ): Promise<CallToolResult | InputRequiredResult | CreateTaskResult>;
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: NotOpted & { allowTask: true },
  ): Promise<CallToolResult | CreateTaskResult>;
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: Opted & NoTask,
  ): Promise<CallToolResult | InputRequiredResult>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: NotOpted & NoTask,
  ): Promise<CallToolResult>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options: ToolCallOptions = {},
  ): Promise<CallToolResult | InputRequiredResult | CreateTaskResult> {
    const params: Record<string, unknown> = { name };
    if (args !== undefined) params.arguments = args;
    return this.#seeded("tools/call", withInput(params, options), options) as Promise<CallToolResult>;
  }

  /** `prompts/list`: one page of prompts, from `cursor` (the previous page's `nextCursor`) on. */
  async listPrompts(cursor?: string, options?: CallOptions): Promise<ListPromptsResult> {
    return (await this.request(
      "prompts/list",
      cursor === undefined ? {} : { cursor },
      options,
    )) as ListPromptsResult;
  }

  /** `prompts/get`. With `allowInputRequired`, an `InputRequiredResult` is returned instead of thrown. */
  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    options: Opted,
  ): Promise<GetPromptResult | InputRequiredResult>;
  getPrompt(name: string, args?: Record<string, string>, options?: NotOpted): Promise<GetPromptResult>;
  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options: InputCallOptions = {},
  ): Promise<GetPromptResult | InputRequiredResult> {
    const params: Record<string, unknown> = { name };
    if (args !== undefined) params.arguments = args;
    return (await this.#seeded("prompts/get", withInput(params, options), options)) as GetPromptResult;
  }

  /** `resources/list`: one page of resources, from `cursor` (the previous page's `nextCursor`) on. */
  async listResources(cursor?: string, options?: CallOptions): Promise<ListResourcesResult> {
    return (await this.request(
      "resources/list",
      cursor === undefined ? {} : { cursor },
      options,
    )) as ListResourcesResult;
  }

  /** `resources/templates/list`: one page of resource templates, from `cursor` on. */
  async listResourceTemplates(cursor?: string, options?: CallOptions): Promise<ListResourceTemplatesResult> {
    const params = cursor === undefined ? {} : { cursor };
    return (await this.request("resources/templates/list", params, options)) as ListResourceTemplatesResult;
  }

  /** `resources/read`. With `allowInputRequired`, an `InputRequiredResult` is returned instead of thrown. */
  readResource(uri: string, options: Opted): Promise<ReadResourceResult | InputRequiredResult>;
  readResource(uri: string, options?: NotOpted): Promise<ReadResourceResult>;
  async readResource(
    uri: string,
    options: InputCallOptions = {},
  ): Promise<ReadResourceResult | InputRequiredResult> {
    const params = withInput({ uri }, options);
    return (await this.#seeded("resources/read", params, options)) as ReadResourceResult;
  }

  /**
   * Opens a `subscriptions/listen` stream: `onNotification` receives the list-changed and
   * resource-updated notifications the server agreed to send.
   *
   * @example
   * const sub = session.listen({ toolsListChanged: true }, () => refreshTools());
   * console.log(await sub.acknowledged); // { toolsListChanged: true }
   */
  listen(
    filter: SubscriptionFilter,
    onNotification: (notification: JSONRPCNotification) => void,
    options?: ListenOptions,
  ): Subscription {
    return openSubscription(this, filter, onNotification, options);
  }

  /** `completion/complete` for a prompt argument or a template variable. */
  async complete(
    params: Omit<CompleteRequestParams, "_meta">,
    options?: CallOptions,
  ): Promise<CompleteResult> {
    return (await this.request("completion/complete", params, options)) as CompleteResult;
  }

  /**
   * `tasks/get`: the task's status with its payload (`inputRequests`, `result` or `error`).
   *
   * @example
   * const task = await session.getTask(handle.taskId);
   */
  async getTask(taskId: string, options?: CallOptions): Promise<GetTaskResult> {
    return (await this.#taskRequest(TaskMethod.Get, { taskId }, options)) as unknown as GetTaskResult;
  }

  /**
   * `tasks/update`: answers some or all of an `input_required` task's requests, under their keys
   * (a key is answered at most once over the task's lifetime).
   *
   * @example
   * await session.updateTask(taskId, { region: { action: "accept", content: { region: "eu" } } });
   */
  async updateTask(taskId: string, inputResponses: InputResponses, options?: CallOptions): Promise<void> {
    await this.#taskRequest(TaskMethod.Update, { taskId, inputResponses }, options);
  }

  /**
   * `tasks/cancel`: asks the server to stop the task (cooperative: poll until it reads `cancelled`).
   *
   * @example
   * await session.cancelTask(taskId);
   */
  async cancelTask(taskId: string, options?: CallOptions): Promise<void> {
    await this.#taskRequest(TaskMethod.Cancel, { taskId }, options);
  }

  /** A request that may carry a retry's `inputResponses`/`requestState`: 2026-07-28 only. */
  #seeded(method: string, params: Record<string, unknown>, options: CallOptions): Promise<ResultObject> {
    if (this.era === "legacy" && (params.inputResponses !== undefined || params.requestState !== undefined)) {
      return Promise.reject(
        new RoundtripError(
          `${method} cannot carry inputResponses or requestState: they belong to the multi-round-trip ` +
            `requests of protocol 2026-07-28, and this session speaks ${this.protocolVersion}`,
        ),
      );
    }
    return this.request(method, params, options);
  }

  #taskRequest(
    method: string,
    params: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<ResultObject> {
    if (this.era === "legacy") {
      throw new RoundtripError(
        `${method} belongs to the ${TASKS_EXTENSION} extension of protocol 2026-07-28; this session ` +
          `speaks ${this.protocolVersion}, which has no tasks`,
      );
    }
    return this.request(method, params, options);
  }

  #noteServerInfo(result: ResultObject): void {
    const meta = result._meta as Record<string, unknown> | undefined;
    const serverInfo = meta?.[MetaKey.ServerInfo];
    if (validImplementation(serverInfo)) this.#serverInfo = serverInfo as Implementation;
  }

  #routeStray(notification: JSONRPCNotification): void {
    if (notification.method === NotificationMethod.Message) {
      guarded(notification, this.#warn, this.#onLog, notification.params as LoggingMessageNotificationParams);
    }
  }
}
