/**
 * One client over several servers: their tools, prompts and resources in one namespace, each call
 * routed to the server that listed the name, through that server's own `Client` (its era, its
 * callbacks, its automatic multi-round-trip loop).
 */
import { ConnectionClosedError } from "../shared/errors.js";
import { ErrorCode, McpError } from "../types/core.js";
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  InputRequiredResult,
  Prompt,
  Resource,
  Tool,
} from "../types/index.js";
import { Client } from "./client.js";
import {
  type ComponentKind,
  type ComponentNameHook,
  type Components,
  type Contribution,
  KINDS,
  type ReadingRules,
  readContribution,
} from "./group-contribution.js";
import { warningSink } from "./notification-routing.js";
import type { AutoCallOptions, ClientOptions } from "./options.js";
import { checkMaxPages } from "./pages.js";
import type { InputCallOptions } from "./session-options.js";
import type { ClientTarget } from "./targets.js";

/**
 * Options of a `ClientSessionGroup`.
 *
 * @example
 * new ClientSessionGroup({ componentNameHook: (name, info) => `${info?.name}.${name}`, onWarning: log });
 */
export interface ClientSessionGroupOptions {
  /** Renames each component as it joins the group; see `ComponentNameHook`. */
  componentNameHook?: ComponentNameHook;
  /** Warnings (default stderr): unreadable lists, and those of `connect`'s clients without their own. */
  onWarning?: (message: string) => void;
  /** Pages read at most per list of one member (default 1 000, as `listAll`; a positive integer). */
  maxPages?: number;
}

/** A component under its group name, with the member that listed it. */
interface Entry<T> {
  readonly item: T;
  readonly client: Client;
}

interface Member {
  /** Opened by the group (`connect`), so closed by it too. */
  readonly owned: boolean;
  /** What the name hook is given for this member's components, on joining and on every refresh. */
  readonly serverInfo: Implementation | undefined;
  contribution: Contribution;
}

/**
 * Several servers as one: `connect` (or `add`) each, then call any tool or prompt by its group
 * name. A name two servers share is refused when the second joins, so pass a `componentNameHook`
 * to prefix them. Lists are read when a server joins; `refresh` re-reads one server's after its
 * `list_changed`.
 *
 * @example
 * await using group = new ClientSessionGroup({ componentNameHook: (name, info) => `${info?.name}.${name}` });
 * await group.connect("http://127.0.0.1:8000/mcp", { elicitation });
 * await group.connect({ command: "node", args: ["billing.js"] });
 * const result = await group.callTool("fleet.provision", { name: "orders" });
 */
export class ClientSessionGroup implements AsyncDisposable {
  readonly #members = new Map<Client, Member>();
  readonly #entries: { readonly [K in ComponentKind]: Map<string, Entry<Components[K]>> } = {
    tools: new Map(),
    prompts: new Map(),
    resources: new Map(),
  };
  readonly #reading: ReadingRules;
  /** Counts close() calls: a join that began before one must not commit after it. */
  #closes = 0;

  constructor(options: ClientSessionGroupOptions = {}) {
    // Refused here: met at each join, it would only be a warning, and every member would join empty.
    if (options.maxPages !== undefined) checkMaxPages(options.maxPages);
    this.#reading = {
      nameOf: options.componentNameHook ?? ((name) => name),
      warn: warningSink(options.onWarning),
      maxPages: options.maxPages,
    };
  }

  /** The members, in the order they joined. */
  get clients(): Client[] {
    return [...this.#members.keys()];
  }

  /** Every member's tools, by group name (each `Tool` keeps its server's own `name`). */
  get tools(): ReadonlyMap<string, Tool> {
    return this.#items("tools");
  }

  /** Every member's prompts, by group name. */
  get prompts(): ReadonlyMap<string, Prompt> {
    return this.#items("prompts");
  }

  /** Every member's resources, by group name (read one with `clientFor("resources", name)`). */
  get resources(): ReadonlyMap<string, Resource> {
    return this.#items("resources");
  }

  /**
   * Connects to a server (as `Client.connect`) and adds it. The group owns that client: it is
   * closed by `disconnect` and `close`, and at once if its names collide with the group's.
   *
   * @example
   * const billing = await group.connect({ command: "node", args: ["billing.js"] }, { elicitation });
   */
  async connect(target: ClientTarget, options?: ClientOptions): Promise<Client> {
    const closes = this.#closes;
    // The group's sink unless the caller gave this client its own.
    const client = await Client.connect(target, {
      ...options,
      onWarning: options?.onWarning ?? this.#reading.warn,
    });
    try {
      await this.#join(client, true, client.serverInfo, closes);
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
    return client;
  }

  /**
   * Adds a client you connected yourself. The group never closes it: `disconnect` only takes its
   * components out. A name collision refuses it (McpError -32602) and leaves the group as it was.
   * `serverInfo` is what `componentNameHook` is given for its components (default: what the server
   * said of itself).
   *
   * @example
   * await group.add(await Client.connect(server), { name: "billing", version: "1" });
   */
  async add(client: Client, serverInfo: Implementation | undefined = client.serverInfo): Promise<Client> {
    await this.#join(client, false, serverInfo, this.#closes);
    return client;
  }

  /**
   * Re-reads one member's lists (after its server announced `list_changed`) and replaces what it
   * contributed. A list that cannot be read, or a collision with another member, fails the refresh
   * and keeps the old lists.
   *
   * @example
   * await group.refresh(billing);
   */
  async refresh(client: Client): Promise<void> {
    const member = this.#member(client);
    const contribution = await readContribution(client, member.serverInfo, true, this.#reading);
    if (this.#members.get(client) !== member) return; // disconnected meanwhile
    this.#check(contribution, client);
    this.#withdraw(client, member.contribution);
    this.#commit(client, contribution);
    member.contribution = contribution;
  }

  /**
   * Takes a member's components out of the group, and closes the client if the group opened it.
   * A client that is not a member gets McpError -32602.
   *
   * @example
   * await group.disconnect(billing);
   */
  async disconnect(client: Client): Promise<void> {
    const member = this.#member(client);
    this.#members.delete(client);
    this.#withdraw(client, member.contribution);
    if (member.owned) await client.close();
  }

  /** The member that listed `name` as one of its `kind`, if any. */
  clientFor(kind: ComponentKind, name: string): Client | undefined {
    return this.#entries[kind].get(name)?.client;
  }

  /**
   * Calls a tool by its group name on the server that listed it. By default through that
   * member's automatic loop (its callbacks answer each round; the plain result comes back). With
   * `allowInputRequired: true`, one leg of the manual loop: the `InputRequiredResult` is returned,
   * and you retry with `inputResponses` and `requestState` through the group again.
   *
   * @example
   * const step = await group.callTool("fleet.provision", { name: "orders" }, { allowInputRequired: true });
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: InputCallOptions & { allowInputRequired: true },
  ): Promise<CallToolResult | InputRequiredResult>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: AutoCallOptions & { allowInputRequired?: false },
  ): Promise<CallToolResult>;
  async callTool(
    name: string,
    args?: Record<string, unknown>,
    options: (AutoCallOptions | InputCallOptions) & { allowInputRequired?: boolean } = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    const { client, item } = this.#route("tools", "tool", name);
    if (options.allowInputRequired === true) {
      return client.session.callTool(item.name, args, { ...options, allowInputRequired: true });
    }
    return client.callTool(item.name, args, options as AutoCallOptions);
  }

  /**
   * Gets a prompt by its group name from the server that listed it; `allowInputRequired` as for
   * `callTool`.
   *
   * @example
   * const prompt = await group.getPrompt("docs.briefing", { topic: "fleet" });
   */
  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    options: InputCallOptions & { allowInputRequired: true },
  ): Promise<GetPromptResult | InputRequiredResult>;
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: AutoCallOptions & { allowInputRequired?: false },
  ): Promise<GetPromptResult>;
  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options: (AutoCallOptions | InputCallOptions) & { allowInputRequired?: boolean } = {},
  ): Promise<GetPromptResult | InputRequiredResult> {
    const { client, item } = this.#route("prompts", "prompt", name);
    if (options.allowInputRequired === true) {
      return client.session.getPrompt(item.name, args, { ...options, allowInputRequired: true });
    }
    return client.getPrompt(item.name, args, options as AutoCallOptions);
  }

  /**
   * Closes every client the group opened and empties it; clients added with `add` stay open. A
   * `connect` or `add` still in flight fails with ConnectionClosedError (a client it opened is closed).
   */
  async close(): Promise<void> {
    this.#closes++;
    const owned = [...this.#members].filter(([, member]) => member.owned).map(([client]) => client);
    this.#members.clear();
    for (const kind of KINDS) this.#entries[kind].clear();
    const closing = await Promise.allSettled(owned.map((client) => client.close()));
    const failed = closing.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** `close()`, for `await using group = new ClientSessionGroup()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #join(
    client: Client,
    owned: boolean,
    serverInfo: Implementation | undefined,
    closes: number,
  ): Promise<void> {
    if (this.#members.has(client)) {
      throw new McpError(ErrorCode.InvalidParams, "This client is already a member of the group");
    }
    const contribution = await readContribution(client, serverInfo, false, this.#reading);
    // Checked and committed with no await in between, so members joining at once cannot both
    // take a name, and a group closed meanwhile stays empty.
    if (this.#closes !== closes) throw new ConnectionClosedError("The group was closed while connecting");
    if (this.#members.has(client)) {
      throw new McpError(ErrorCode.InvalidParams, "This client is already a member of the group");
    }
    this.#check(contribution, undefined);
    this.#commit(client, contribution);
    this.#members.set(client, { owned, serverInfo, contribution });
  }

  /** Refuses names another member already holds (`self` may keep its own, on refresh). */
  #check(contribution: Contribution, self: Client | undefined): void {
    for (const kind of KINDS) {
      const taken = [...contribution[kind].keys()].filter((name) => {
        const owner = this.#entries[kind].get(name)?.client;
        return owner !== undefined && owner !== self;
      });
      if (taken.length > 0) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Already in the group's ${kind}: ${taken.map((name) => JSON.stringify(name)).join(", ")} ` +
            "(a componentNameHook can give each server's names a prefix)",
        );
      }
    }
  }

  #commit(client: Client, contribution: Contribution): void {
    for (const kind of KINDS) {
      const entries = this.#entries[kind] as Map<string, Entry<unknown>>;
      for (const [name, item] of contribution[kind]) entries.set(name, { item, client });
    }
  }

  #withdraw(client: Client, contribution: Contribution): void {
    for (const kind of KINDS) {
      for (const name of contribution[kind].keys()) {
        if (this.#entries[kind].get(name)?.client === client) this.#entries[kind].delete(name);
      }
    }
  }

  /** A snapshot, so the group's own tables cannot be changed from outside. */
  #items<K extends ComponentKind>(kind: K): Map<string, Components[K]> {
    const entries = this.#entries[kind] as Map<string, Entry<Components[K]>>;
    return new Map([...entries].map(([name, entry]) => [name, entry.item]));
  }

  #member(client: Client): Member {
    const member = this.#members.get(client);
    if (!member) {
      throw new McpError(
        ErrorCode.InvalidParams,
        "This client is not a member of the group (or already left it)",
      );
    }
    return member;
  }

  #route<K extends "tools" | "prompts">(kind: K, label: string, name: string): Entry<Components[K]> {
    const entry = (this.#entries[kind] as Map<string, Entry<Components[K]>>).get(name);
    if (entry === undefined)
      throw new McpError(ErrorCode.InvalidParams, `Unknown ${label} in the group: ${name}`);
    return entry;
  }
}
