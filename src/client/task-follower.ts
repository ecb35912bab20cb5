/**
 * One `subscriptions/listen` stream per session for every task its calls are driving. A stream per
 * task would take one of the server's listen slots each (100 in all and 10 per caller by default),
 * so a few concurrent tasks would get the application's own streams, and other clients', refused.
 */
import { TASK_STATUS_NOTIFICATION } from "../types/core.js";
import type { Subscription } from "./listen.js";
import type { ClientSession } from "./session.js";

interface Stream {
  readonly subscription: Subscription;
  /** The task ids the server agreed to follow on it (empty until it acknowledges). */
  honoured: ReadonlySet<string>;
}

/**
 * The session's stream of task notifications. Following a new task opens a stream for the whole
 * set, and the previous one closes only once the new one is acknowledged, so no change falls in
 * between; at most two streams are open at once, and none once no task is followed.
 *
 * @example
 * const unfollow = taskFollower(session).follow(taskId, () => pollNow());
 * // once the task has ended:
 * unfollow();
 */
export class TaskFollower {
  readonly #session: ClientSession;
  readonly #rings = new Map<string, Set<() => void>>();
  #current: Stream | undefined;
  #pending: Stream | undefined;
  #scheduled = false;

  constructor(session: ClientSession) {
    this.#session = session;
  }

  /**
   * Calls `ring` on each `notifications/tasks` for `taskId`, and once when a stream first follows
   * it (a change made before the stream was up was pushed to no one). Returns the unfollow.
   */
  follow(taskId: string, ring: () => void): () => void {
    let rings = this.#rings.get(taskId);
    if (rings === undefined) {
      rings = new Set();
      this.#rings.set(taskId, rings);
      this.#schedule();
    }
    rings.add(ring);
    return () => this.#unfollow(taskId, ring);
  }

  #unfollow(taskId: string, ring: () => void): void {
    const rings = this.#rings.get(taskId);
    if (!rings?.delete(ring) || rings.size > 0) return;
    // An ended task's id stays on the stream until the next task reopens it: harmless, and cheaper.
    this.#rings.delete(taskId);
    if (this.#rings.size > 0) return;
    this.#pending?.subscription.close();
    this.#current?.subscription.close();
    this.#pending = this.#current = undefined;
  }

  /** Tasks started together share one reopen. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (this.#rings.size > 0) this.#reopen();
    });
  }

  #reopen(): void {
    this.#pending?.subscription.close();
    const subscription = this.#session.listen(
      { taskIds: [...this.#rings.keys()] },
      (notification) => {
        const taskId = (notification.params as { taskId?: unknown } | undefined)?.taskId;
        if (notification.method === TASK_STATUS_NOTIFICATION && typeof taskId === "string")
          this.#ring(taskId);
      },
      { reconnect: false },
    );
    const stream: Stream = { subscription, honoured: new Set() };
    this.#pending = stream;
    subscription.closed.catch(() => {});
    subscription.acknowledged.then(
      (acknowledged) => {
        if (this.#pending !== stream) return;
        const ids = Array.isArray(acknowledged.taskIds) ? acknowledged.taskIds : [];
        stream.honoured = new Set(ids.filter((id): id is string => typeof id === "string"));
        const before = this.#current?.honoured ?? new Set<string>();
        this.#current?.subscription.close();
        this.#pending = undefined;
        // A stream that follows nothing would only hold a slot: those tasks are polled.
        this.#current = stream.honoured.size > 0 ? stream : undefined;
        if (this.#current === undefined) subscription.close();
        for (const taskId of stream.honoured) if (!before.has(taskId)) this.#ring(taskId);
      },
      () => {
        // Refused (a server without listen, or out of slots): the previous stream, if any, stays.
        if (this.#pending === stream) this.#pending = undefined;
      },
    );
  }

  #ring(taskId: string): void {
    for (const ring of this.#rings.get(taskId) ?? []) ring();
  }
}

const followers = new WeakMap<ClientSession, TaskFollower>();

/** The session's one follower, made on first use. */
export function taskFollower(session: ClientSession): TaskFollower {
  let follower = followers.get(session);
  if (follower === undefined) {
    follower = new TaskFollower(session);
    followers.set(session, follower);
  }
  return follower;
}
