import { type DispatchContext, type Dispatcher, PARAM_HEADER_MISMATCH } from "../../shared/dispatch.js";
import { ErrorCode, LATEST_PROTOCOL_VERSION, McpError } from "../../types/core.js";
import type {
  CallToolRequestParams,
  CompleteRequestParams,
  CompleteResult,
  ContentBlock,
  InputRequiredResult,
  JSONRPCResponse,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "../../types/index.js";
import { deriveContext, type ServerRequestContext, type ServerTelemetry } from "../context.js";
import type { LegacyService } from "../legacy/service.js";
import { consoleLogger } from "../logger.js";
import { Server } from "../server.js";
import { RequestStateBoundary } from "../state/boundary.js";
import { RequestStateSecurity } from "../state/policy.js";
import type { TaskRunner } from "../tasks/runner.js";
import { Context } from "./context.js";
import type { MCPServerOptions } from "./options.js";
import { type ArgumentCompleter, type PromptConfig, PromptRegistry, type PromptReturn } from "./prompts.js";
import { schemaProperties, withResolvers } from "./resolvers/consumer.js";
import type { AnyResolver, ResolvedValues } from "./resolvers/resolver.js";
import { ResourceRegistry, type ResourceReturn, type ResourceTemplateConfig } from "./resources.js";
import type { ToolReturn } from "./results.js";
import type { InferSchema, SchemaLike } from "./schema.js";
import { type ToolConfig, ToolRegistry } from "./tools.js";
import { UriTemplate } from "./uri-template.js";
import { audienceOf } from "./visibility.js";

export type { MCPServerOptions } from "./options.js";

/** Arguments a handler receives for a given schema (no schema: an empty object). */
export type InferArguments<S> = S extends SchemaLike ? InferSchema<S> : Record<string, never>;

type Awaitable<T> = T | Promise<T>;

/** A tool body: validated arguments and the context. */
export type ToolHandler<S> = (args: InferArguments<S>, ctx: Context) => Awaitable<ToolReturn>;

/** What a tool with resolvers may return: anything but an `InputRequiredResult` (its resolvers own the flow). */
export type ResolvedToolReturn =
  | string
  | ContentBlock
  | ContentBlock[]
  | (Record<string, unknown> & { resultType?: "complete" })
  | unknown[]
  | number
  | boolean
  | null
  | undefined;

/** A tool body with resolvers: validated arguments, the resolved values, and the context. */
export type ResolvedToolHandler<S, M> = (
  args: InferArguments<S>,
  resolved: ResolvedValues<M>,
  ctx: Context,
) => Awaitable<ResolvedToolReturn>;
/** A prompt body: validated arguments and the context. */
export type PromptHandler<S> = (args: InferArguments<S>, ctx: Context) => Awaitable<PromptReturn>;
/** A resource body: the template variables (empty for a static resource), the context and the URI read. */
export type ResourceHandler = (
  variables: Record<string, string>,
  ctx: Context,
  uri: string,
) => Awaitable<ResourceReturn | InputRequiredResult>;

// The name is sealed into every requestState as its audience, so that another service sharing the
// key cannot replay this server's state: an empty one would make that claim meaningless.
const UNNAMED_AUDIENCE_ERROR =
  "An MCPServer with requestStateSecurity needs a real name or an explicit " +
  "RequestStateSecurity({ audience }): its sealed audience";

/** Each list is one page with no `nextCursor`, so any cursor sent is one never issued (-32602). */
function onePage<T>(ctx: ServerRequestContext, list: () => T): T {
  if (ctx.params.cursor !== undefined) throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
  return list();
}

/**
 * The high-level server: tools, prompts, resources and templates that can ask the user mid-call,
 * with `requestState` sealed by default. One instance serves every request of every connection.
 *
 * @example
 * const mcp = new MCPServer("fleet");
 * mcp.tool("greet", { input: z.object({ name: z.string() }) }, ({ name }) => `Hello, ${name}!`);
 */
export class MCPServer implements Dispatcher {
  readonly name: string;
  /** The low-level server underneath (middleware, custom handlers). */
  readonly server: Server;
  readonly #tools: ToolRegistry;
  readonly #prompts = new PromptRegistry();
  readonly #resources = new ResourceRegistry();
  readonly #taskRunner: TaskRunner | undefined;
  #tasks: TaskRunner | undefined;

  constructor(name: string, options: MCPServerOptions = {}) {
    const explicit = options.requestStateSecurity;
    if (explicit && name === "" && explicit.audience === undefined) throw new Error(UNNAMED_AUDIENCE_ERROR);
    this.name = name;
    const logger = options.logger ?? consoleLogger;
    this.server = new Server(name, {
      version: options.version,
      title: options.title,
      description: options.description,
      websiteUrl: options.websiteUrl,
      icons: options.icons,
      instructions: options.instructions,
      logger,
      capabilities: { logging: {}, ...options.capabilities },
      cacheHints: options.cacheHints,
      listChanged: options.listChanged,
      maxSubscriptions: options.maxSubscriptions,
      maxSubscriptionsPerPrincipal: options.maxSubscriptionsPerPrincipal,
      events: options.events,
      telemetry: options.telemetry,
      // Tasks and 2025 sessions belong to the caller its request states belong to.
      principal: explicit?.bindPrincipal ?? undefined,
      legacy:
        options.legacy === false
          ? false
          : { ...options.legacy, shim: options.legacyShim ?? options.legacy?.shim },
    });
    this.#tools = new ToolRegistry(logger);
    this.#taskRunner = options.tasks;
    const security = explicit ?? RequestStateSecurity.ephemeral();
    this.server.middleware.push(
      new RequestStateBoundary(security, { defaultAudience: name === "" ? "mcp-server" : name }),
    );
  }

  /** The server's version, as sent in `serverInfo` (`options.version`, default `""`). */
  get version(): string {
    return this.server.version;
  }

  /** The `telemetry` option (see `Server.telemetry`). */
  get telemetry(): ServerTelemetry | undefined {
    return this.server.telemetry;
  }

  /** The 2025-era face (`initialize` sessions, the back-channel) transports use; see `Server.legacy`. */
  get legacy(): LegacyService | undefined {
    return this.server.legacy;
  }

  /** Serves one JSON-RPC request (what transports call). */
  dispatch(message: unknown, context?: DispatchContext): Promise<JSONRPCResponse | undefined> {
    return this.server.dispatch(message, context);
  }

  /**
   * Registers a tool. The handler gets validated arguments and a `Context`; it returns text,
   * content, structured data (with `output`), a `CallToolResult`, or an `InputRequiredResult`.
   * With `resolve`, the SDK asks what the resolvers need and the handler gets their values second.
   *
   * @example
   * mcp.tool("add", { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
   * mcp.tool("provision", { input: z.object({ name: z.string() }), resolve: { region: askRegion } },
   *   ({ name }, { region }) => `Provisioned ${name} in ${region.region}.`);
   */
  tool<
    S extends SchemaLike | undefined = undefined,
    M extends Record<string, AnyResolver> = Record<string, AnyResolver>,
  >(name: string, config: ToolConfig<S> & { resolve: M }, handler: ResolvedToolHandler<S, M>): Tool;
  tool<S extends SchemaLike | undefined = undefined>(
    name: string,
    config: ToolConfig<S>,
    handler: ToolHandler<S>,
  ): Tool;
  tool(
    name: string,
    config: ToolConfig & { resolve?: Record<string, AnyResolver> },
    handler: (...args: never[]) => Awaitable<unknown>,
  ): Tool {
    const body = handler as (
      args: Record<string, unknown>,
      second: unknown,
      third?: unknown,
    ) => Awaitable<unknown>;
    const resolve = config.resolve;
    const definition = this.#tools.add(name, config, (inputSchema) => {
      if (resolve === undefined) return async (args, ctx) => body(args, ctx) as ToolReturn;
      const run = withResolvers(`Tool ${name}`, resolve, schemaProperties(inputSchema), body);
      return async (args, ctx) => (await run(args, ctx)) as ToolReturn;
    });
    if (config.task !== undefined) {
      try {
        this.#enableTasks(name);
      } catch (error) {
        // A refused registration leaves nothing behind: listed, the tool would run inline.
        this.#tools.remove(name);
        throw error;
      }
    }
    this.server.notifyToolsListChanged(audienceOf(config.visible, `tool ${name}`));
    if (!this.server.hasHandler("tools/call")) {
      this.server.setRequestHandler("tools/list", (ctx) => onePage(ctx, () => this.#tools.list(ctx)));
      this.server.setRequestHandler("tools/call", (ctx, params) => this.#callTool(ctx, params as never));
    }
    return definition;
  }

  #callTool(ctx: ServerRequestContext, params: CallToolRequestParams): Promise<unknown> {
    const tool = this.#tools.find(params.name, ctx);
    // Raised only now that the caller may see the tool (see PARAM_HEADER_MISMATCH).
    const mismatch = ctx.http?.[PARAM_HEADER_MISMATCH];
    if (mismatch) throw mismatch;
    if (!tool.task || !this.#tasks) return this.#tools.call(tool, params, this.#context(ctx));
    return this.#tasks.call(tool.task, ctx, (entry, entryCtx) =>
      this.#tools.call(tool, entry as CallToolRequestParams, this.#context(entryCtx)),
    );
  }

  #enableTasks(tool: string): void {
    if (this.#tasks) return;
    const runner = this.#taskRunner;
    if (!runner) {
      throw new Error(
        `Tool ${JSON.stringify(tool)} declares task support, but this MCPServer runs no tasks: pass ` +
          "`tasks: serverTasks()` from roundtrip-mcp/tasks",
      );
    }
    runner.install(this.server);
    this.#tasks = runner;
  }

  /**
   * Registers a prompt. The handler returns text, messages, a `GetPromptResult`, or an
   * `InputRequiredResult` (and reads the retry's answers from `ctx.inputResponses`).
   */
  prompt<S extends SchemaLike | undefined = undefined>(
    name: string,
    config: PromptConfig & { arguments?: S },
    handler: PromptHandler<S>,
  ): Prompt {
    const definition = this.#prompts.add(name, config, async (args, ctx) =>
      handler(args as InferArguments<S>, ctx),
    );
    this.server.notifyPromptsListChanged(audienceOf(config.visible, `prompt ${name}`));
    if (!this.server.hasHandler("prompts/get")) {
      this.server.setRequestHandler("prompts/list", (ctx) => onePage(ctx, () => this.#prompts.list(ctx)));
      this.server.setRequestHandler("prompts/get", (ctx, params) =>
        this.#prompts.get(params as never, this.#context(ctx)),
      );
    }
    if (config.complete) this.#enableCompletion();
    return definition;
  }

  /**
   * Registers a static resource (`"file:///notes.txt"`) or a template (`"users://{id}"`, RFC 6570
   * levels 1–3). Only templates may answer `input_required`.
   */
  resource(
    uri: string,
    config: ResourceTemplateConfig,
    handler: ResourceHandler,
  ): Resource | ResourceTemplate {
    const isTemplate = UriTemplate.isTemplate(uri);
    const definition = isTemplate
      ? this.#resources.addTemplate(uri, config, async (variables, ctx, read) =>
          handler(variables, ctx, read),
        )
      : this.#resources.addStatic(uri, config, async (read, ctx) => handler({}, ctx, read));
    this.server.notifyResourcesListChanged();
    if (!this.server.hasHandler("resources/read")) {
      this.server.setRequestHandler("resources/list", (ctx) =>
        onePage(ctx, async () => ({ resources: await this.#resources.list() })),
      );
      this.server.setRequestHandler("resources/read", (ctx, params) =>
        this.#resources.read((params as { uri: string }).uri, this.#context(ctx)),
      );
    }
    // Part of the resources capability: a server with no template answers an empty list.
    if (!this.server.hasHandler("resources/templates/list")) {
      this.server.setRequestHandler("resources/templates/list", (ctx) =>
        onePage(ctx, () => ({ resourceTemplates: this.#resources.listTemplates() })),
      );
    }
    if (config.complete) this.#enableCompletion();
    return definition;
  }

  /**
   * Unregisters a tool: it leaves `tools/list`, later calls answer as for an unknown tool (calls
   * already running finish), and listen streams hear `tools/list_changed`. Register it again to
   * change it. Returns false, and tells nobody, when there was no such tool.
   *
   * @example
   * if (!featureFlags.exports) mcp.removeTool("export");
   */
  removeTool(name: string): boolean {
    const removed = this.#tools.remove(name);
    if (removed) this.server.notifyToolsListChanged(audienceOf(removed.visible, `tool ${name}`));
    return removed !== undefined;
  }

  /**
   * Unregisters a prompt, like `removeTool` (listen streams hear `prompts/list_changed`).
   *
   * @example
   * mcp.removePrompt("briefing");
   */
  removePrompt(name: string): boolean {
    const removed = this.#prompts.remove(name);
    if (removed) this.server.notifyPromptsListChanged(audienceOf(removed.visible, `prompt ${name}`));
    return removed !== undefined;
  }

  /**
   * Unregisters a static resource (by its URI) or a template (by its URI template), like
   * `removeTool` (listen streams hear `resources/list_changed`).
   *
   * @example
   * mcp.removeResource("users://{id}");
   */
  removeResource(uri: string): boolean {
    const removed = this.#resources.remove(uri);
    if (removed) this.server.notifyResourcesListChanged();
    return removed;
  }

  /**
   * Reads one of this server's resources as a nested first-round request and returns the union,
   * so a handler can forward a template's `InputRequiredResult`.
   */
  readResource(
    uri: string,
    ctx?: Context | ServerRequestContext,
  ): Promise<ReadResourceResult | InputRequiredResult> {
    const outer = ctx instanceof Context ? ctx.request : ctx;
    return this.#readNested(uri, outer ?? this.#detachedRequest(uri));
  }

  /** The advertised input schema of a tool (for the HTTP `x-mcp-header` checks). */
  toolInputSchema(name: string): Record<string, unknown> | undefined {
    return this.#tools.inputSchema(name);
  }

  #context(request: ServerRequestContext): Context {
    return new Context(request, (uri, outer) => this.#readNested(uri, outer));
  }

  #readNested(uri: string, outer: ServerRequestContext): Promise<ReadResourceResult | InputRequiredResult> {
    // The nested read is round one: it must never consume answers meant for the outer handler.
    const nested = deriveContext(outer, {
      method: "resources/read",
      params: { _meta: outer.params._meta, uri },
    });
    return this.#resources.read(uri, this.#context(nested));
  }

  #detachedRequest(uri: string): ServerRequestContext {
    return {
      method: "resources/read",
      requestId: 0,
      params: { uri },
      protocolVersion: LATEST_PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: undefined,
      logLevel: undefined,
      progressToken: undefined,
      authInfo: undefined,
      signal: new AbortController().signal,
      logger: this.server.logger,
      notify: async () => {},
    };
  }

  #enableCompletion(): void {
    if (this.server.hasHandler("completion/complete")) return;
    this.server.setRequestHandler("completion/complete", (ctx, params) =>
      this.#complete(params as CompleteRequestParams, ctx),
    );
  }

  async #complete(params: CompleteRequestParams, ctx: ServerRequestContext): Promise<CompleteResult> {
    const completer: ArgumentCompleter | undefined | null =
      params.ref.type === "ref/prompt"
        ? this.#prompts.completer(params.ref.name, params.argument.name, ctx)
        : this.#resources.completer(params.ref.uri, params.argument.name);
    if (completer === null) {
      const what =
        params.ref.type === "ref/prompt"
          ? `prompt: ${params.ref.name}`
          : `resource template: ${params.ref.uri}`;
      throw new McpError(ErrorCode.InvalidParams, `Unknown ${what}`);
    }
    if (!completer) return { completion: { values: [] } };
    const values = await completer(params.argument.value, { arguments: params.context?.arguments ?? {} });
    return {
      completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 },
    };
  }
}
