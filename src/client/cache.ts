import { coversUri } from "../shared/subscription-filter.js";
import { CACHEABLE_METHODS, NotificationMethod } from "../types/core.js";
import type { CacheScope, JSONRPCNotification, ResultObject, SubscriptionFilter } from "../types/index.js";

/**
 * No entry lives longer than a day, whatever `ttlMs` says.
 *
 * @example
 * MAX_CACHE_TTL_MS; // 86_400_000
 */
export const MAX_CACHE_TTL_MS = 24 * 60 * 60 * 1000;

interface Entry {
  readonly value: ResultObject;
  readonly scope: CacheScope;
  readonly expiresAt: number;
  /** Length of its JSON text, counted against `maxBytes`. */
  readonly bytes: number;
}

/**
 * Options of a `ListCache`.
 *
 * @example
 * new ListCache({ now: () => fakeNow, maxEntries: 64 });
 */
export interface ListCacheOptions {
  /** Clock in milliseconds; injectable for expiry tests. Default `Date.now`. */
  now?: () => number;
  /** Cap on stored entries; the oldest goes first. Default 512; a positive integer. */
  maxEntries?: number;
  /**
   * Cap on the entries' total size, counted as the length of their JSON text; the oldest goes
   * first, and a larger result is not stored. Default 64 MiB; a positive integer.
   */
  maxBytes?: number;
}

/**
 * How one call uses the cache: serve and store, store without serving, or neither.
 *
 * @example
 * await client.listTools(undefined, { cacheMode: "refresh" });
 */
export type CacheMode = "use" | "refresh" | "bypass";

/**
 * The client's cache of cacheable results (`server/discover`, the four list methods and
 * `resources/read`), honouring the server's `ttlMs`: an entry is fresh while
 * `now < receivedAt + ttlMs`; a missing, zero or negative `ttlMs` is never stored. Keys are the
 * method plus the cursor or uri (none is `undefined`; `""` is a cursor like any other), inside a
 * partition: a `Client` uses its own partition, so neither `private` nor `public` entries ever
 * cross clients (sharing public entries would need a server identity the SDK cannot verify).
 * Served and stored values are deep copies.
 *
 * @example
 * const cache = new ListCache();
 * const client = await Client.connect(server, { cache });
 * await client.listTools(); // second call within ttlMs is served locally
 */
export class ListCache {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;
  #invalidations = 0;

  constructor(options: ListCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxEntries = positiveInteger("maxEntries", options.maxEntries ?? 512);
    this.#maxBytes = positiveInteger("maxBytes", options.maxBytes ?? 64 * 1024 * 1024);
  }

  /** Number of stored entries (fresh or stale). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * How many invalidations (notifications, `evictMethod`, `deletePartition`, `clear`) the cache has seen: read it
   * before a request and pass it to `set`.
   */
  get invalidations(): number {
    return this.#invalidations;
  }

  /** A fresh entry's value, or undefined. */
  get(partition: string, method: string, paramsKey?: string): ResultObject | undefined {
    const entry = this.#entries.get(cacheKey(partition, method, paramsKey));
    if (entry === undefined || this.#now() >= entry.expiresAt) return undefined;
    return copied(entry.value);
  }

  /** The scope the server gave a stored entry. */
  scopeOf(partition: string, method: string, paramsKey?: string): CacheScope | undefined {
    return this.#entries.get(cacheKey(partition, method, paramsKey))?.scope;
  }

  /**
   * Stores a complete result under its hints. A result that may not be cached (no positive
   * `ttlMs`, a method that is not cacheable, or one requested before an invalidation that came
   * since `invalidationsAtRequest`) instead removes what was there: it supersedes it. A first page
   * (no cursor) also drops the later pages cached for the method.
   *
   * @example
   * const since = cache.invalidations;
   * cache.set(partition, "tools/list", undefined, await fetchTools(), since);
   */
  set(
    partition: string,
    method: string,
    paramsKey: string | undefined,
    result: ResultObject,
    invalidationsAtRequest = this.#invalidations,
  ): void {
    const key = cacheKey(partition, method, paramsKey);
    // A first page starts a new listing: later pages cached from the old one would not match it.
    if (paramsKey === undefined) {
      const listing = key.slice(0, -"null]".length);
      for (const stored of [...this.#entries.keys()]) if (stored.startsWith(listing)) this.#drop(stored);
    }
    const ttl =
      typeof result.ttlMs === "number" && result.ttlMs > 0 ? Math.min(result.ttlMs, MAX_CACHE_TTL_MS) : 0;
    // A notification can overtake the answer to a request the server handled before the change.
    const overtaken = invalidationsAtRequest !== this.#invalidations;
    this.#drop(key);
    if (ttl === 0 || overtaken || !CACHEABLE_METHODS.has(method) || result.resultType === "input_required") {
      return;
    }
    const bytes = jsonLength(result);
    const value = bytes !== undefined && bytes <= this.#maxBytes ? copied(result) : undefined;
    if (bytes === undefined || value === undefined) return;
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size < this.#maxEntries && this.#bytes + bytes <= this.#maxBytes) break;
      this.#drop(oldest);
    }
    this.#bytes += bytes;
    this.#entries.set(key, {
      value,
      scope: result.cacheScope === "public" ? "public" : "private",
      expiresAt: this.#now() + ttl,
      bytes,
    });
  }

  /** Drops one stored entry, if there is one; not an invalidation (an answer in flight is still stored). */
  delete(partition: string, method: string, paramsKey?: string): void {
    this.#drop(cacheKey(partition, method, paramsKey));
  }

  /**
   * Drops every entry of one partition (a `Client` does on `close()` and after a new sign-in).
   * Counts as an invalidation: an answer requested before it is not stored.
   *
   * @example
   * cache.deletePartition(partition);
   */
  deletePartition(partition: string): void {
    this.#invalidations++;
    const prefix = `${JSON.stringify([partition]).slice(0, -1)},`;
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#drop(key);
  }

  /** Drops every entry of `method` (every cursor, every partition). */
  evictMethod(method: string): void {
    this.#invalidations++;
    for (const key of [...this.#entries.keys()]) {
      if ((JSON.parse(key) as string[])[1] === method) this.#drop(key);
    }
  }

  /** Applies a list-changed or updated notification: the entries it makes stale go at once. */
  evictFor(notification: JSONRPCNotification): void {
    switch (notification.method) {
      case NotificationMethod.ToolsListChanged:
        this.evictMethod("tools/list");
        break;
      case NotificationMethod.PromptsListChanged:
        this.evictMethod("prompts/list");
        break;
      case NotificationMethod.ResourcesListChanged:
        this.evictMethod("resources/list");
        this.evictMethod("resources/templates/list");
        break;
      case NotificationMethod.ResourcesUpdated: {
        const uri = notification.params?.uri;
        // It may name a subscribed URI for a change somewhere under it (a server catching up on a
        // reader that fell behind merges them so): which sub-resource changed is not said.
        if (typeof uri === "string") this.#dropReadsUnder([uri]);
        break;
      }
    }
  }

  /**
   * Drops everything a listen filter was keeping fresh: after a stream drop, whatever changed while
   * it was down never arrived. A resource subscription covers its sub-resources (spec §3.7), so
   * their reads go too.
   */
  evictSubscribed(filter: SubscriptionFilter): void {
    const changed = (method: string) => this.evictFor({ jsonrpc: "2.0", method });
    if (filter.toolsListChanged) changed(NotificationMethod.ToolsListChanged);
    if (filter.promptsListChanged) changed(NotificationMethod.PromptsListChanged);
    if (filter.resourcesListChanged) changed(NotificationMethod.ResourcesListChanged);
    // A hand-built filter may hold anything: only a string names a resource.
    const subscribed = (filter.resourceSubscriptions ?? []).filter((uri) => typeof uri === "string");
    if (subscribed.length > 0) this.#dropReadsUnder(subscribed);
  }

  /** Drops every entry of every partition; an invalidation. */
  clear(): void {
    this.#invalidations++;
    this.#entries.clear();
    this.#bytes = 0;
  }

  /** Drops the cached reads of these URIs and of their sub-resources; an invalidation. */
  #dropReadsUnder(uris: readonly string[]): void {
    this.#invalidations++;
    for (const key of [...this.#entries.keys()]) {
      const [, method, uri] = JSON.parse(key) as string[];
      if (method === "resources/read" && uri !== undefined && uris.some((under) => coversUri(under, uri)))
        this.#drop(key);
    }
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#bytes -= entry.bytes;
    this.#entries.delete(key);
  }
}

/** A size option: NaN or Infinity would never be reached, leaving the cache unbounded. */
function positiveInteger(name: string, value: number): number {
  if (!(Number.isInteger(value) && value > 0))
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * A JSON array, so no crafted cursor or uri can collide across field boundaries; no key is `null`
 * there, so the first page and the page of the cursor `""` stay apart.
 */
function cacheKey(partition: string, method: string, paramsKey: string | undefined): string {
  return JSON.stringify([partition, method, paramsKey]);
}

// A result nested past what JSON.stringify or structuredClone can walk (JSON.parse copes) is a
// server's answer all the same: it is used, just neither stored nor served from the cache.

function jsonLength(value: ResultObject): number | undefined {
  try {
    return JSON.stringify(value).length;
  } catch {
    return undefined;
  }
}

function copied(value: ResultObject): ResultObject | undefined {
  try {
    return structuredClone(value);
  } catch {
    return undefined;
  }
}
