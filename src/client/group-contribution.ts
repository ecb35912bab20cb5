/**
 * How a group reads one member: its tools, prompts and resources, each under the group's name.
 */
import { ErrorCode, McpError } from "../types/core.js";
import type { Implementation, Prompt, Resource, Tool } from "../types/index.js";
import type { Client } from "./client.js";
import { listAll } from "./pages.js";

/**
 * The group's name for a server's tool, prompt or resource (default: its own name). Give servers
 * that share names distinct prefixes.
 *
 * @example
 * const componentNameHook: ComponentNameHook = (name, serverInfo) => `${serverInfo?.name}.${name}`;
 */
export type ComponentNameHook = (name: string, serverInfo: Implementation | undefined) => string;

/** The kinds of component a group aggregates. */
export type ComponentKind = "tools" | "prompts" | "resources";

/** The item of each kind. */
export interface Components {
  tools: Tool;
  prompts: Prompt;
  resources: Resource;
}

/** What one member contributed, under the group's names. */
export type Contribution = { readonly [K in ComponentKind]: Map<string, Components[K]> };

/** Every kind, in the order the group reads them. */
export const KINDS: readonly ComponentKind[] = ["tools", "prompts", "resources"];

/** What reading a member takes from the group's options. */
export interface ReadingRules {
  readonly nameOf: ComponentNameHook;
  readonly warn: (message: string) => void;
  readonly maxPages: number | undefined;
}

/**
 * A member's lists under the group's names. Joining, a list it cannot serve is skipped with a
 * warning (the member joins with the rest); refreshing, the failure is thrown.
 *
 * @example
 * const { tools } = await readContribution(client, client.serverInfo, false, rules);
 */
export async function readContribution(
  client: Client,
  serverInfo: Implementation | undefined,
  refresh: boolean,
  rules: ReadingRules,
): Promise<Contribution> {
  const capabilities = client.capabilities;
  const listOptions = { maxPages: rules.maxPages, ...(refresh ? { cacheMode: "refresh" as const } : {}) };
  const read = async <T extends { name: string }>(kind: ComponentKind, declared: unknown) => {
    const named = new Map<string, T>();
    if (declared === undefined) return named;
    let items: T[];
    try {
      items = (await listAll(client, kind, listOptions)) as unknown as T[];
    } catch (error) {
      // Asked for explicitly, a refresh fails as a whole and keeps the lists the group has.
      if (refresh) throw error;
      const server = serverInfo?.name ?? "a server";
      rules.warn(`${server}: could not read its ${kind} (${error instanceof Error ? error.message : error})`);
      return named;
    }
    for (const item of items) {
      const name = rules.nameOf(item.name, serverInfo);
      if (typeof name !== "string" || name === "") {
        throw new TypeError(
          `componentNameHook must return a non-empty string for ${JSON.stringify(item.name)}`,
        );
      }
      if (named.has(name)) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Two of this server's ${kind} are both named ${JSON.stringify(name)} in the group`,
        );
      }
      named.set(name, item);
    }
    return named;
  };
  const [tools, prompts, resources] = await Promise.all([
    read<Tool>("tools", capabilities.tools),
    read<Prompt>("prompts", capabilities.prompts),
    read<Resource>("resources", capabilities.resources),
  ]);
  return { tools, prompts, resources };
}
