/**
 * Changes that every instance of a fleet should announce: a list changed, a resource was updated.
 * Without a bus they reach this instance's listen streams only; with one, every instance's.
 */
import { isRecord } from "../types/record.js";

/** A change worth announcing on listen streams, as it crosses instances (plain JSON). */
export type SharedServerEvent =
  | { readonly kind: "toolsListChanged" }
  | { readonly kind: "promptsListChanged" }
  | { readonly kind: "resourcesListChanged" }
  | { readonly kind: "resourceUpdated"; readonly uri: string };

/**
 * Carries `SharedServerEvent`s between the instances behind one endpoint, over your pub/sub
 * (Redis, NATS, Postgres LISTEN…). `publish` must reach every instance, the publishing one
 * included: it is the only way an instance hears its own changes once a bus is set.
 *
 * @example
 * const events: ServerEventBus = {
 *   publish: (event) => redis.publish("mcp-events", JSON.stringify(event)),
 *   subscribe: (listener) => onChannel("mcp-events", (text) => listener(JSON.parse(text))),
 * };
 * const mcp = new MCPServer("catalog", { listChanged: true, events });
 */
export interface ServerEventBus {
  publish(event: SharedServerEvent): void | Promise<void>;
  /** Delivers every instance's events to `listener`; returns the unsubscribe. */
  subscribe(listener: (event: SharedServerEvent) => void): () => void;
}

const LIST_KINDS: ReadonlySet<unknown> = new Set([
  "toolsListChanged",
  "promptsListChanged",
  "resourcesListChanged",
]);

/**
 * Whether something that came off a bus is an event this SDK announces (anything else is dropped:
 * a pub/sub channel is shared infrastructure).
 *
 * @example
 * isSharedServerEvent({ kind: "resourceUpdated", uri: "file:///a" }); // true
 */
export function isSharedServerEvent(value: unknown): value is SharedServerEvent {
  if (!isRecord(value)) return false;
  if (value.kind === "resourceUpdated") return typeof value.uri === "string";
  return LIST_KINDS.has(value.kind);
}
