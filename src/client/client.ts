import { ErrorCode, McpError, NotificationMethod, TASKS_EXTENSION } from "../types/core.js";
import type {
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  DiscoverResult,
  GetPromptResult,
  GetTaskResult,
  Implementation,
  InputResponses,
  JSONRPCNotification,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ReadResourceResult,
  ServerCapabilities,
  SubscriptionFilter,
} from "../types/index.js";
import { ListCache } from "./cache.js";
import { dispatchInputRequest, embeddedMeta } from "./callbacks.js";
import { callbacksOf, openSession } from "./connect.js";
import { DEFAULT_INPUT_REQUIRED_MAX_ROUNDS } from "./driver.js";
import { eraCacheKey, knownLegacy, recordEra, verdictRefuted } from "./era-cache.js";
import { scoped } from "./flow.js";
import { cachedRead, driveOptions, type FlowHost, runFlow } from "./flow-runner.js";
import { openLegacySubscription } from "./legacy-listen.js";
import type { ListenOptions, Subscription } from "./listen.js";
import type { ClientMode, NegotiatedEra } from "./negotiation.js";
import {
  type AutoCallOptions,
  type CachedCallOptions,
  type ClientOptions,
  checkOptions,
  checkRounds,
  checkTotal,
  type ReadResourceOptions,
  type WaitForTaskOptions,
} from "./options.js";
import { OutputSchemas } from "./output-schemas.js";
import { listAll } from "./pages.js";
import type { CallOptions, ClientSession } from "./session.js";
import type { ClientTarget } from "./targets.js";
import { driveTask } from "./tasks.js";

/**
 * The high-level client: connects to any target, settles the protocol era, and runs the
 * multi-round-trip loop for you — `callTool`, `getPrompt` and `readResource` answer each
 * `input_required` round with your callbacks and return the plain terminal result. With
 * `tasks: true`, a tool the server runs as a task is driven to its end the same way.
 *
 * @example
 * await using client = await Client.connect(server, {
 *   elicitation: async (ctx, params) => ({ action: "accept", content: { region: "eu-west-1" } }),
 * });
 * const result = await client.callTool("provision", { name: "orders" }); // plain CallToolResult
 * client.protocolVersion; // "2026-07-28"
 */
export class Client implements AsyncDisposable {
  /** The low-level session, for the manual loop (`allowInputRequired`). */
  readonly session: ClientSession;
  readonly #era: NegotiatedEra;
  readonly #cache: ListCache | undefined;
  /** What every flow of this client shares. */
  readonly #host: FlowHost;
  /** What `callTool` checks structured results against: the output schemas `listTools` saw. */
  readonly #outputSchemas = new OutputSchemas();

  private constructor(session: ClientSession, era: NegotiatedEra, options: ClientOptions) {
    this.session = session;
    this.#era = era;
    // A snapshot: later mutation of the options object does not change what answers the server.
    const callbacks = callbacksOf(options);
    const cache = options.cache ?? true;
    this.#cache = cache === true ? new ListCache() : cache === false ? undefined : cache;
    const partition = globalThis.crypto.randomUUID();
    let grant = session.authGrant;
    this.#host = {
      session,
      modern: era.era === "modern",
      cache: () => {
        // Private entries MUST NOT cross authorization contexts: a new sign-in may be another user.
        if (session.authGrant !== grant) {
          grant = session.authGrant;
          this.#cache?.deletePartition(partition);
        }
        return this.#cache;
      },
      partition,
      maxRounds: options.inputRequiredMaxRounds ?? DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
      maxTotalTimeoutMs: options.maxTotalTimeoutMs,
      stateOnlyBackoff: options.stateOnlyBackoff,
      onRound: options.onRound,
      dispatch: (key, request, signal) =>
        dispatchInputRequest(
          callbacks,
          { requestId: key, signal, meta: embeddedMeta(request), serverInfo: this.serverInfo },
          request,
        ),
      followTasks: era.era === "modern" && era.capabilities.extensions?.[TASKS_EXTENSION] !== undefined,
    };
    const previous = session.connection.onNotification;
    session.connection.onNotification = (notification) => {
      this.#heard(notification);
      previous?.(notification);
    };
  }

  /** What a server's change notice makes stale: cached results, and the tools' output schemas. */
  #heard(notification: JSONRPCNotification): void {
    this.#cache?.evictFor(notification);
    if (notification.method === NotificationMethod.ToolsListChanged) this.#outputSchemas.forget();
  }

  /**
   * Connects, then settles the era (`mode`, default `"auto"`). Bad options are refused before
   * anything is opened. With `"auto"`, a URL or command this process already found to be a 2025
   * server goes straight to the `initialize` handshake (over HTTP+SSE if that is where it was
   * found), and probes again if that fails
   * (`eraCache: false` always probes; `clearEraCache()` forgets every verdict).
   *
   * @example
   * const client = await Client.connect("http://127.0.0.1:8000/mcp", { elicitation });
   */
  static async connect(target: ClientTarget, options: ClientOptions = {}): Promise<Client> {
    const mode = checkOptions(options);
    const key = mode === "auto" && options.eraCache !== false ? eraCacheKey(target) : undefined;
    const open = async (as: ClientMode | "sse") => {
      const { session, era } = await openSession(target, as, options, key);
      return new Client(session, era, options);
    };
    const remembered = key === undefined ? undefined : knownLegacy(key);
    if (key !== undefined && remembered !== undefined) {
      try {
        return await open(remembered);
      } catch (error) {
        if (!verdictRefuted(error)) throw error;
        recordEra(key, "modern");
      }
    }
    return open(mode);
  }

  /** The negotiated protocol version, e.g. `"2026-07-28"`. */
  get protocolVersion(): string {
    return this.#era.protocolVersion;
  }

  /** `"modern"` (2026-07-28) or `"legacy"` (the 2025 handshake). */
  get era(): "modern" | "legacy" {
    return this.#era.era;
  }

  /** The server's identity: from discovery, else the latest serverInfo stamp seen. */
  get serverInfo(): Implementation | undefined {
    return this.#era.serverInfo ?? this.session.serverInfo;
  }

  /** The server's capabilities, as discovered (blank on a pin without `priorDiscover`). */
  get capabilities(): ServerCapabilities {
    return this.#era.capabilities;
  }

  /** The server's instructions for the model, as discovered (undefined when it gave none). */
  get instructions(): string | undefined {
    return this.#era.instructions;
  }

  /** The result cache, when enabled. */
  get cache(): ListCache | undefined {
    return this.#cache;
  }

  /** Closes the session and drops this client's cached results. */
  async close(): Promise<void> {
    try {
      await this.session.close();
    } finally {
      // A closed client answers nothing, not even from the cache (after close: no late answer lands).
      this.#cache?.deletePartition(this.#host.partition);
    }
  }

  /** `close()`, for `await using client = await Client.connect(...)`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * `tools/call` through the automatic loop: returns the terminal `CallToolResult`. Seed
   * `inputResponses`/`requestState` to resume a persisted flow. When the server runs the call as
   * a task (any leg may answer with one, with `tasks: true`), the task is driven to its end: see
   * `waitForTask`; `onTask` sees its id for persisting.
   *
   * @example
   * await client.callTool("provision", { name: "orders" }, { inputResponses, requestState });
   */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options: AutoCallOptions = {},
  ): Promise<CallToolResult> {
    let relisted = false;
    const flow = runFlow(this.#host, "tools/call", options, async (leg) => {
      try {
        return await this.session.callTool(name, args, leg);
      } catch (error) {
        // A -32020 on Mcp-Param-* means our copy of the tool's x-mcp-header list is stale: the
        // spec says re-fetch tools/list and retry. Safe: the server refused before any handler ran.
        if (relisted || !(error instanceof McpError) || error.code !== ErrorCode.HeaderMismatch) throw error;
        relisted = true;
        await this.#relistTools(leg.signal);
        return this.session.callTool(name, args, leg);
      }
    });
    // Every call's path: no extra promise unless some listed tool has an output schema.
    if (this.#outputSchemas.size === 0) return flow;
    return flow.then(async (result) => {
      await this.#outputSchemas.check(name, result);
      return result;
    });
  }

  async #relistTools(signal: AbortSignal | undefined): Promise<void> {
    // Bounded: a server whose cursors loop gets a ProtocolError, not an endless re-list.
    await listAll(this, "tools", { cacheMode: "refresh", signal });
  }

  /**
   * `prompts/get` through the automatic loop.
   *
   * @example
   * const prompt = await client.getPrompt("briefing");
   */
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options: AutoCallOptions = {},
  ): Promise<GetPromptResult> {
    return runFlow(this.#host, "prompts/get", options, (leg) => this.session.getPrompt(name, args, leg));
  }

  /**
   * `resources/read` through the automatic loop, served from the cache while fresh. Seeded reads
   * and reads that went through input rounds are never cached.
   *
   * @example
   * const { contents } = await client.readResource("x://reports/1");
   */
  readResource(uri: string, options: ReadResourceOptions = {}): Promise<ReadResourceResult> {
    return runFlow(this.#host, "resources/read", options, (leg) => this.session.readResource(uri, leg), uri);
  }

  /**
   * `tools/list` (cached while fresh). The output schemas it lists are what `callTool` checks
   * structured results against. @example const { tools } = await client.listTools();
   */
  listTools(cursor?: string, options: CachedCallOptions = {}): Promise<ListToolsResult> {
    return cachedRead(this.#host, "tools/list", cursor, options, async () => {
      const listed = await this.session.listTools(cursor, options);
      // A first page starts a new listing: schemas of tools it no longer names would pile up.
      if (cursor === undefined) this.#outputSchemas.forget();
      this.#outputSchemas.remember(listed.tools);
      return listed;
    });
  }

  /** `prompts/list` (cached while fresh). @example const { prompts } = await client.listPrompts(); */
  listPrompts(cursor?: string, options: CachedCallOptions = {}): Promise<ListPromptsResult> {
    return cachedRead(this.#host, "prompts/list", cursor, options, () =>
      this.session.listPrompts(cursor, options),
    );
  }

  /** `resources/list` (cached while fresh). @example const { resources } = await client.listResources(); */
  listResources(cursor?: string, options: CachedCallOptions = {}): Promise<ListResourcesResult> {
    return cachedRead(this.#host, "resources/list", cursor, options, () =>
      this.session.listResources(cursor, options),
    );
  }

  /** `resources/templates/list` (cached while fresh). @example await client.listResourceTemplates(); */
  listResourceTemplates(
    cursor?: string,
    options: CachedCallOptions = {},
  ): Promise<ListResourceTemplatesResult> {
    return cachedRead(this.#host, "resources/templates/list", cursor, options, () =>
      this.session.listResourceTemplates(cursor, options),
    );
  }

  /** `completion/complete`. @example await client.complete({ ref, argument: { name: "who", value: "a" } }); */
  complete(params: Omit<CompleteRequestParams, "_meta">, options?: CallOptions): Promise<CompleteResult> {
    return this.session.complete(params, options);
  }

  /**
   * Subscribes to list changes and resource updates (`subscriptions/listen`). Cached lists are
   * invalidated as their change notifications arrive, and all of them when a dropped stream is
   * re-opened (what changed meanwhile is unknown); see `ListenOptions` for the reconnection. On a
   * 2025 session the same subscription takes what that server can send: its unsolicited list
   * changes, and resource updates through `resources/subscribe`.
   *
   * @example
   * const sub = client.listen({ toolsListChanged: true }, () => console.log("tools changed"));
   * await sub.acknowledged;
   */
  listen(
    filter: SubscriptionFilter,
    onNotification: (notification: JSONRPCNotification) => void = () => {},
    options: ListenOptions = {},
  ): Subscription {
    /** What the open stream keeps fresh: its acknowledgement. */
    let keptFresh: SubscriptionFilter = {};
    // Each returns the caller's outcome, so that a promise it rejects is reported, not unhandled.
    const onReconnect = (acknowledged: SubscriptionFilter) => {
      // The changes lost are those the dropped stream would have told, even where the new one
      // agrees to less.
      this.#cache?.evictSubscribed(keptFresh);
      this.#cache?.evictSubscribed(acknowledged);
      if (keptFresh.toolsListChanged || acknowledged.toolsListChanged) this.#outputSchemas.forget();
      keptFresh = acknowledged;
      return options.onReconnect?.(acknowledged);
    };
    const listener = (notification: JSONRPCNotification) => {
      this.#heard(notification);
      return onNotification(notification);
    };
    if (this.#era.era === "legacy") {
      // No subscriptions/listen before 2026-07-28: the same subscription over what 2025 has. Its
      // notifications arrive unsolicited, which the constructor's hook already evicts the cache for.
      return openLegacySubscription(this.session, this.capabilities, filter, onNotification);
    }
    const subscription = this.session.listen(filter, listener, { ...options, onReconnect });
    // Settles as the first acknowledgement arrives, long before a drop can re-open the stream.
    subscription.acknowledged.then(
      (agreed) => {
        keptFresh = agreed;
      },
      () => {},
    );
    return subscription;
  }

  /** `server/discover` again (cached while fresh). @example const { capabilities } = await client.discover(); */
  discover(options: CachedCallOptions = {}): Promise<DiscoverResult> {
    return cachedRead(this.#host, "server/discover", undefined, options, () =>
      this.session.discover(options),
    );
  }

  /** `tasks/get`: a task's status and payload. @example const task = await client.getTask(savedTaskId); */
  getTask(taskId: string, options?: CallOptions): Promise<GetTaskResult> {
    return this.session.getTask(taskId, options);
  }

  /** `tasks/update`, for answering by hand. @example await client.updateTask(taskId, { q: answer }); */
  updateTask(taskId: string, inputResponses: InputResponses, options?: CallOptions): Promise<void> {
    return this.session.updateTask(taskId, inputResponses, options);
  }

  /** `tasks/cancel` (cooperative: the task ends `cancelled`). @example await client.cancelTask(taskId); */
  cancelTask(taskId: string, options?: CallOptions): Promise<void> {
    return this.session.cancelTask(taskId, options);
  }

  /**
   * Drives a task by id to its end, exactly as `callTool` drives the task it started: polls at the
   * server's pace, answers `input_required` with the callbacks, cancels the task when aborted or
   * out of budget, and returns the tool's `CallToolResult` (`failed` throws the `McpError`,
   * `cancelled` a `TaskCancelledError`). For resuming a persisted task, e.g. after a restart.
   *
   * @example
   * const result = await client.waitForTask(savedTaskId, { onTask: (task) => show(task.statusMessage) });
   */
  async waitForTask(taskId: string, options: WaitForTaskOptions = {}): Promise<CallToolResult> {
    checkRounds(options.inputRequiredMaxRounds);
    checkTotal(options.maxTotalTimeoutMs);
    const total = options.maxTotalTimeoutMs ?? this.#host.maxTotalTimeoutMs;
    return scoped(`task ${taskId}`, options.signal, total, (signal) =>
      driveTask(taskId, this.session, this.#host.dispatch, signal, driveOptions(this.#host, options)),
    );
  }
}
