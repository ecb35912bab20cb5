/**
 * Changes that every instance of a fleet should announce: a list changed, a resource was updated,
 * a shared task changed. Without a bus they reach this instance's listen streams only; with one,
 * every instance's.
 */
import type { DetailedTask } from "../types/index.js";
import { isRecord } from "../types/record.js";

/**
 * A task's change as it crosses instances (`serverTasks({ shareOverEvents: true })`), so a listen
 * stream on any instance can follow it.
 */
export interface SharedTaskChange {
  readonly taskId: string;
  /** Who may follow it: its creator's principal; absent on an unauthenticated transport. */
  readonly principal?: string;
  /** The scopes a follower's token must hold: those required of the creating call; absent for none. */
  readonly requiredScopes?: readonly string[];
  /** When it stops being readable, in ms since the epoch. */
  readonly expiresAt: number;
  /** The task as `tasks/get` shows it, result included. */
  readonly task: DetailedTask;
}

/** A change worth announcing on listen streams, as it crosses instances (plain JSON). */
export type SharedServerEvent =
  | { readonly kind: "toolsListChanged" }
  | { readonly kind: "promptsListChanged" }
  | { readonly kind: "resourcesListChanged" }
  | { readonly kind: "resourceUpdated"; readonly uri: string }
  | ({ readonly kind: "taskChanged" } & SharedTaskChange);

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
  // The task runner that shares tasks checks the rest (see `isSharedTaskChange`).
  if (value.kind === "taskChanged") return typeof value.taskId === "string";
  return LIST_KINDS.has(value.kind);
}
