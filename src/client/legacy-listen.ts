/**
 * `listen` on a 2025 session, which has no `subscriptions/listen`: list changes arrive unsolicited
 * (where the server advertised `listChanged`), and resource updates after `resources/subscribe`
 * (where it advertised `subscribe`). The same `Subscription` as on 2026-07-28: the acknowledged
 * filter is what the server can send, and only what it covers is delivered.
 */
import { ConnectionClosedError } from "../shared/errors.js";
import { filterCovers } from "../shared/subscription-filter.js";
import type { JSONRPCNotification, ServerCapabilities, SubscriptionFilter } from "../types/index.js";
import { NotificationMethod } from "../types/method-table.js";
import type { Subscription } from "./listen.js";
import { guarded, sessionWarnings } from "./notification-routing.js";
import type { ClientSession } from "./session.js";

interface Listener {
  notify(notification: JSONRPCNotification): void;
  closed(): void;
}

/**
 * What a 2025 subscription can carry. Its hook sees every notification of the session (logs,
 * cancellations, stray progress), which `filterCovers` would let through as extension methods.
 */
const SUBSCRIBABLE: ReadonlySet<string> = new Set([
  NotificationMethod.ToolsListChanged,
  NotificationMethod.PromptsListChanged,
  NotificationMethod.ResourcesListChanged,
  NotificationMethod.ResourcesUpdated,
]);

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

/** One URI's `resources/subscribe` on a session, shared by every subscription that follows it. */
interface ResourceFollow {
  readonly uri: string;
  holders: number;
  readonly subscribed: Promise<unknown>;
}

/**
 * Per session, the URIs subscribed on the server: a 2025 server keeps a set, not a count, so one
 * subscription's unsubscribe would silence every other that follows the URI.
 */
const followsBySession = new WeakMap<ClientSession, Map<string, ResourceFollow>>();

/** Follows `uri`: subscribes on the server for the first holder, shares that for the others. */
function follow(session: ClientSession, uri: string): ResourceFollow {
  let follows = followsBySession.get(session);
  if (!follows) {
    follows = new Map();
    followsBySession.set(session, follows);
  }
  const existing = follows.get(uri);
  if (existing) {
    existing.holders++;
    return existing;
  }
  const created: ResourceFollow = {
    uri,
    holders: 1,
    subscribed: session.request("resources/subscribe", { uri }),
  };
  const table = follows;
  // A refused subscribe is no subscription: the next subscription to follow the URI asks again.
  created.subscribed.catch(() => {
    if (table.get(uri) === created) table.delete(uri);
  });
  follows.set(uri, created);
  return created;
}

/** Stops following: the last holder of a subscribe the server accepted unsubscribes. */
function unfollow(session: ClientSession, followed: ResourceFollow): void {
  followed.holders--;
  const follows = followsBySession.get(session);
  if (followed.holders > 0 || follows?.get(followed.uri) !== followed) return;
  follows.delete(followed.uri);
  void session.request("resources/unsubscribe", { uri: followed.uri }).catch(() => {});
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
  // Its close hook has run already: the subscription would wait for a close that never comes.
  if (session.connection.closedSignal.aborted) {
    const refused = Promise.reject(new ConnectionClosedError("The connection closed"));
    refused.catch(() => {});
    return { acknowledged: refused, closed: refused, close: () => {} };
  }
  const honoured = honouredBy(capabilities, filter);
  const uris = honoured.resourceSubscriptions ?? [];
  const set = listenersOf(session);
  let settle!: (error?: Error) => void;
  const closed = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error) : resolve());
  });
  // A throw here is the caller's bug: let through, it would skip the other subscriptions and the
  // session's own hooks, and escape into the transport (uncaught over stdio).
  const warn = sessionWarnings.get(session) ?? (() => {});
  const listener: Listener = {
    notify: (notification) => {
      const { method, params } = notification;
      if (SUBSCRIBABLE.has(method) && filterCovers(honoured, method, params))
        guarded(notification, warn, onNotification, notification);
    },
    closed: () => {
      set.delete(listener);
      settle(new ConnectionClosedError("The connection closed"));
    },
  };
  set.add(listener);
  const follows = uris.map((uri) => follow(session, uri));
  const release = () => {
    for (const followed of follows) unfollow(session, followed);
  };
  // Every subscribe settles before a refusal is reported, so none is left subscribed behind it.
  const acknowledged = Promise.allSettled(follows.map((followed) => followed.subscribed)).then((outcomes) => {
    const refused = outcomes.find((outcome) => outcome.status === "rejected");
    if (refused === undefined) return honoured;
    if (set.delete(listener)) release();
    const error: unknown = refused.reason;
    settle(error instanceof Error ? error : new Error(String(error)));
    throw error;
  });
  // Callers may never await these; a failure must not become an unhandled rejection.
  acknowledged.catch(() => {});
  closed.catch(() => {});
  return {
    acknowledged,
    closed,
    close: () => {
      if (!set.delete(listener)) return;
      release();
      settle();
    },
  };
}
