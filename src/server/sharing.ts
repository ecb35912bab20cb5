/**
 * How a server's announcements go out (the plumbing behind `Server.notify*` and `shareTasks`):
 * coalesced per synchronous run, then over the `events` bus when there is one, else straight to
 * this instance's listen streams.
 */
import type { Logger } from "./context.js";
import { isSharedServerEvent, type ServerEventBus, type SharedServerEvent } from "./events.js";
import { AUDIENCE, type Audience } from "./subscriptions.js";

/** A change to announce; a list change may name who may hear of it (on this instance's streams). */
export type Announcement = SharedServerEvent & { readonly [AUDIENCE]?: Audience | undefined };

type Share = (event: Announcement) => void;

/**
 * Queues each announcement for `share` once the current synchronous run ends, in order and each
 * said once per kind (and URI): fifty registrations at start make one.
 *
 * @example
 * const announce = coalesced((event) => streams.publish(event));
 * announce({ kind: "toolsListChanged" });
 */
export function coalesced(share: Share): Share {
  /** Announcements of the current synchronous run, by kind (and URI), in order. */
  let pending: Map<string, Announcement> | undefined;
  return (event) => {
    const key = event.kind === "resourceUpdated" ? `${event.kind} ${event.uri}` : event.kind;
    if (pending) {
      const queued = pending.get(key);
      const first = queued?.[AUDIENCE];
      const next = event[AUDIENCE];
      if (!queued) pending.set(key, event);
      // One announcement for several entries: whoever may see any of them hears it.
      else if (first) pending.set(key, { ...queued, [AUDIENCE]: next && ((ctx) => first(ctx) || next(ctx)) });
      return;
    }
    const run = new Map<string, Announcement>([[key, event]]);
    pending = run;
    queueMicrotask(() => {
      pending = undefined;
      for (const queued of run.values()) share(queued);
    });
  };
}

/**
 * How an announcement reaches the listen streams: without a bus, `deliver` at once; with one, it is
 * published (a failure is logged), and `deliver` gets what comes off the bus, from every instance,
 * this one included. Returns the share and the unsubscribe from the bus.
 *
 * @example
 * const [share, unsubscribe] = sharedOver(options.events, (event) => streams.publish(event), logger);
 */
export function sharedOver(
  events: ServerEventBus | undefined,
  deliver: Share,
  logger: Logger,
): [Share, (() => void) | undefined] {
  if (!events) return [deliver, undefined];
  const unsubscribe = events.subscribe((event) => {
    if (isSharedServerEvent(event)) deliver(event);
  });
  const share: Share = (event) => {
    Promise.resolve()
      .then(() => events.publish(event))
      .catch((error: unknown) => logger.error(`events.publish failed: ${String(error)}`));
  };
  return [share, unsubscribe];
}
