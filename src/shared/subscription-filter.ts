/**
 * What a `subscriptions/listen` filter covers: the URI and task-id rules both ends share, and the
 * client's check of what it is sent (spec §3.3: a server MUST NOT send a notification type the
 * client did not ask for). The server decides what to send in its own subscriptions code.
 */

import type { SubscriptionFilter } from "../types/index.js";
import { NotificationMethod } from "../types/method-table.js";
import { TASK_STATUS_NOTIFICATION } from "../types/tasks.js";

/**
 * True when `uri` is the subscribed URI or a sub-resource of it.
 *
 * @example
 * coversUri("file:///logs", "file:///logs/today.txt"); // true
 */
export function coversUri(subscribed: string, uri: string): boolean {
  // No `${subscribed}/` per comparison: every update meets every subscribed URI of every stream.
  return (
    uri.startsWith(subscribed) &&
    (uri.length === subscribed.length ||
      subscribed.endsWith("/") ||
      uri.charCodeAt(subscribed.length) === 0x2f)
  );
}

/** The filter's task ids that are strings (a hand-built filter may hold anything). */
export function taskIdsOf(filter: SubscriptionFilter): string[] {
  const ids = filter.taskIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}

/** The filter entries whose notifications this SDK knows (the core's, and the Tasks extension's). */
const KNOWN_ENTRIES: ReadonlySet<string> = new Set([
  "toolsListChanged",
  "promptsListChanged",
  "resourcesListChanged",
  "resourceSubscriptions",
  "taskIds",
]);

/**
 * Whether `filter` asked for this notification. A method of no known entry was asked for only if
 * the filter sets an entry this SDK does not know: an extension's, whose methods are its own to
 * judge; otherwise the server sent what nobody asked for (spec §3.3: it MUST NOT).
 *
 * @example
 * filterCovers({ toolsListChanged: true }, "notifications/prompts/list_changed", {}); // false
 * filterCovers({ toolsListChanged: true }, "notifications/example/custom", {}); // false
 */
export function filterCovers(filter: SubscriptionFilter, method: string, params: unknown): boolean {
  const fields = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
  switch (method) {
    case NotificationMethod.ToolsListChanged:
      return filter.toolsListChanged === true;
    case NotificationMethod.PromptsListChanged:
      return filter.promptsListChanged === true;
    case NotificationMethod.ResourcesListChanged:
      return filter.resourcesListChanged === true;
    case NotificationMethod.ResourcesUpdated: {
      const uri = fields.uri;
      return typeof uri === "string" && (filter.resourceSubscriptions ?? []).some((s) => coversUri(s, uri));
    }
    case TASK_STATUS_NOTIFICATION:
      return typeof fields.taskId === "string" && taskIdsOf(filter).includes(fields.taskId);
    default:
      return Object.entries(filter).some(
        ([key, value]) => !KNOWN_ENTRIES.has(key) && value !== false && value !== undefined,
      );
  }
}
