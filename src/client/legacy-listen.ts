/**
 * `listen` on a 2025 session, which has no `subscriptions/listen`: list changes arrive unsolicited
 * (where the server advertised `listChanged`), and resource updates after `resources/subscribe`
 * (where it advertised `subscribe`). The same `Subscription` as on 2026-07-28: the acknowledged
 * filter is what the server can send, and only what it covers is delivered.
 */
import { ConnectionClosedError } from "../shared/errors.js";
import { filterCovers } from "../shared/subscription-filter.js";
import type { JSONRPCNotification, ServerCapabilities, SubscriptionFilter } from "../types/index.js";
import type { Subscription } from "./listen.js";
import type { ClientSession } from "./session.js";

interface Listener {
  notify(notification: JSONRPCNotification): void;
  closed(): void;
}

/** The subscriptions of each session, fed by one hook on its connection. */
const listeners = new WeakMap<ClientSession, Set<Listener>>();

function listenersOf(session: ClientSession): Set<Listener> {
  let set = listeners.get(session);
  if (set) return set;
  const created = new Set<Listener>();
  set = created;
  listeners.set(session, created);
  const connection = session.connection;
  const previousNotification = connection.onNotification;
  connection.onNotification = (notification) => {
    for (const listener of created) listener.notify(notification);
    previousNotification?.(notification);
  };
  const previousClose = connection.onClose;
  connection.onClose = () => {
    for (const listener of [...created]) listener.closed();
    previousClose?.();
  };
  return created;
}

/** What a 2025 server with these capabilities can send of `filter`. */
function honouredBy(capabilities: ServerCapabilities, filter: SubscriptionFilter): SubscriptionFilter {
  const honoured: SubscriptionFilter = {};
  if (filter.toolsListChanged && capabilities.tools?.listChanged) honoured.toolsListChanged = true;
  if (filter.promptsListChanged && capabilities.prompts?.listChanged) honoured.promptsListChanged = true;
  if (filter.resourcesListChanged && capabilities.resources?.listChanged)
    honoured.resourcesListChanged = true;
  const uris = [...new Set(filter.resourceSubscriptions ?? [])];
  if (uris.length > 0 && capabilities.resources?.subscribe) honoured.resourceSubscriptions = uris;
  return honoured;
}

/**
 * Opens a subscription on a 2025 session (see the module comment). `close()` unsubscribes its
 * resources; the connection closing rejects `closed`.
 *
 * @example
 * const sub = openLegacySubscription(session, era.capabilities, { toolsListChanged: true }, refresh);
 */
export function openLegacySubscription(
  session: ClientSession,
  capabilities: ServerCapabilities,
  filter: SubscriptionFilter,
  onNotification: (notification: JSONRPCNotification) => void,
): Subscription {
  const honoured = honouredBy(capabilities, filter);
  const uris = honoured.resourceSubscriptions ?? [];
  const set = listenersOf(session);
  let settle!: (error?: Error) => void;
  const closed = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error) : resolve());
  });
  const listener: Listener = {
    notify: (notification) => {
      if (filterCovers(honoured, notification.method, notification.params)) onNotification(notification);
    },
    closed: () => {
      set.delete(listener);
      settle(new ConnectionClosedError("The connection closed"));
    },
  };
  set.add(listener);
  const acknowledged = Promise.all(uris.map((uri) => session.request("resources/subscribe", { uri }))).then(
    () => honoured,
    (error: unknown) => {
      set.delete(listener);
      settle(error instanceof Error ? error : new Error(String(error)));
      throw error;
    },
  );
  // Callers may never await these; a failure must not become an unhandled rejection.
  acknowledged.catch(() => {});
  closed.catch(() => {});
  return {
    acknowledged,
    closed,
    close: () => {
      if (!set.delete(listener)) return;
      for (const uri of uris) void session.request("resources/unsubscribe", { uri }).catch(() => {});
      settle();
    },
  };
}
