/**
 * Every page of a list, for callers that want the whole list rather than one page and its cursor.
 */
import { ProtocolError } from "../shared/errors.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "../types/index.js";
import type { Client } from "./client.js";
import type { CachedCallOptions } from "./options.js";

/** What each list holds. */
interface ListItems {
  tools: Tool;
  prompts: Prompt;
  resources: Resource;
  resourceTemplates: ResourceTemplate;
}

/** Options of `listAll`: those of each page's request, and a bound on the number of pages. */
export interface ListAllOptions extends CachedCallOptions {
  /** Pages read at most before giving up with a `ProtocolError` (default 1 000; a positive integer). */
  maxPages?: number;
}

function page<K extends keyof ListItems>(
  client: Client,
  kind: K,
  cursor: string | undefined,
  options: CachedCallOptions,
): Promise<{ items: ListItems[K][]; nextCursor?: string | undefined }> {
  const read = async <R extends { nextCursor?: string | undefined }>(
    request: Promise<R>,
    items: (result: R) => unknown[],
  ) => {
    const result = await request;
    return { items: items(result) as ListItems[K][], nextCursor: result.nextCursor };
  };
  switch (kind) {
    case "tools":
      return read(client.listTools(cursor, options), (r) => r.tools);
    case "prompts":
      return read(client.listPrompts(cursor, options), (r) => r.prompts);
    case "resources":
      return read(client.listResources(cursor, options), (r) => r.resources);
    default:
      return read(client.listResourceTemplates(cursor, options), (r) => r.resourceTemplates);
  }
}

/**
 * Refuses a page bound that is not a positive integer: anything else never equals a page count,
 * and the bound would never be reached.
 */
export function checkMaxPages(maxPages: number): void {
  if (!(Number.isInteger(maxPages) && maxPages > 0)) {
    throw new RangeError(`maxPages must be a positive integer, got ${maxPages}`);
  }
}

/**
 * Reads a list to its end, following `nextCursor`. A server that repeats a cursor, or that has
 * more than `maxPages` pages, gets a `ProtocolError` rather than an endless loop.
 *
 * @example
 * const tools = await listAll(client, "tools"); // Tool[], every page
 */
export async function listAll<K extends keyof ListItems>(
  client: Client,
  kind: K,
  options: ListAllOptions = {},
): Promise<ListItems[K][]> {
  const { maxPages = 1_000, ...pageOptions } = options;
  checkMaxPages(maxPages);
  const items: ListItems[K][] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages === maxPages) throw new ProtocolError(`${kind}: more than ${maxPages} pages`);
    const next = await page(client, kind, cursor, pageOptions);
    // One by one: a spread passes the page as arguments, which overflow the stack past ~120,000.
    for (const item of next.items) items.push(item);
    cursor = next.nextCursor;
    if (cursor === undefined) return items;
    if (seen.has(cursor))
      throw new ProtocolError(`${kind}: the server repeated the cursor ${JSON.stringify(cursor)}`);
    seen.add(cursor);
  }
}
