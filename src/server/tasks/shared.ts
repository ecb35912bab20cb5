/**
 * What an instance knows of its siblings' tasks from the events bus: who may follow each one, until
 * when, and how recent the last change it passed on was. This is what lets a listen stream on any
 * instance follow a task that lives on another (`serverTasks({ shareOverEvents: true })`).
 */
import { describeTaskProblem } from "../../types/core.js";
import type { DetailedTask } from "../../types/index.js";
import { isRecord } from "../../types/record.js";
import { TERMINAL_TASK_STATUSES } from "../../types/tasks.js";
import type { SharedTaskChange } from "../events.js";
import { mayReach, type TaskCaller } from "./access.js";

/**
 * Whether something a sibling announced is a well-formed task change: a task as `tasks/get` shows
 * it, under the id it names, with an expiry and an optional principal.
 *
 * @example
 * isSharedTaskChange({ taskId: "a.1", expiresAt: 0, task: {} }); // false: not a task
 */
export function isSharedTaskChange(value: unknown): value is SharedTaskChange {
  return (
    isRecord(value) &&
    typeof value.taskId === "string" &&
    (value.principal === undefined || typeof value.principal === "string") &&
    (value.requiredScopes === undefined ||
      (Array.isArray(value.requiredScopes) &&
        value.requiredScopes.every((scope) => typeof scope === "string"))) &&
    Number.isFinite(value.expiresAt) &&
    describeTaskProblem(value.task) === undefined &&
    (value.task as DetailedTask).taskId === value.taskId
  );
}

/** Tasks remembered at once; the least recently changed are forgotten first. */
export const MAX_SHARED_TASKS = 10_000;

interface Known {
  readonly principal: string | undefined;
  readonly requiredScopes: readonly string[];
  readonly expiresAt: number;
  readonly lastUpdatedAt: string;
  readonly status: string;
  readonly statusMessage: string | undefined;
  /** Completed, failed or cancelled: final, whatever the bus delivers after it. */
  readonly terminal: boolean;
}

/**
 * The fleet's tasks as the bus told them, bounded in number and forgotten when they expire.
 *
 * @example
 * const known = new SharedTaskDirectory();
 * if (known.record(change)) deliver(change.task);
 * known.visible(change.taskId, caller); // true for its creator until it expires
 */
export class SharedTaskDirectory {
  readonly #tasks = new Map<string, Known>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Remembers a change, and says whether streams should hear of it: not when it is older than one
   * already passed on for the same task (a bus may reorder), the same one again (a bus may deliver
   * twice), when it would reopen a finished task, from another principal than the task's first one
   * (all dropped), or the task's end (its owner dropped it: no news for streams, but it is no
   * longer followed).
   */
  record(change: SharedTaskChange): boolean {
    const previous = this.#tasks.get(change.taskId);
    const { lastUpdatedAt, status, statusMessage } = change.task;
    if (previous !== undefined) {
      if (previous.principal !== change.principal) return false;
      if (lastUpdatedAt < previous.lastUpdatedAt) return false;
      if (
        lastUpdatedAt === previous.lastUpdatedAt &&
        status === previous.status &&
        statusMessage === previous.statusMessage &&
        change.expiresAt === previous.expiresAt
      ) {
        return false;
      }
      // Timestamps are per millisecond: a change of the same one, reordered, must not reopen a task.
      if (previous.terminal && !TERMINAL_TASK_STATUSES.has(status)) return false;
      this.#tasks.delete(change.taskId);
    } else if (this.#tasks.size >= MAX_SHARED_TASKS) {
      const oldest = this.#tasks.keys().next().value;
      if (oldest !== undefined) this.#tasks.delete(oldest);
    }
    this.#tasks.set(change.taskId, {
      principal: change.principal,
      // The first announcement's scopes hold for good, as its principal does.
      requiredScopes: previous?.requiredScopes ?? change.requiredScopes ?? [],
      expiresAt: change.expiresAt,
      lastUpdatedAt,
      status,
      statusMessage,
      terminal: TERMINAL_TASK_STATUSES.has(status),
    });
    return change.expiresAt > this.#now();
  }

  /** Whether `caller` may follow `taskId`: it was told of, they may reach it, and it has not expired. */
  visible(taskId: string, caller: TaskCaller): boolean {
    const known = this.#tasks.get(taskId);
    if (known === undefined) return false;
    if (this.#now() >= known.expiresAt) {
      this.#tasks.delete(taskId);
      return false;
    }
    return mayReach(known, caller);
  }
}
