import { MAX_TIMER_DELAY_MS } from "../../shared/timers.js";
import { ErrorCode, McpError } from "../../types/core.js";
import { mayReach, type TaskCaller, type TaskOwner } from "./access.js";
import { TaskRecord } from "./record.js";

/**
 * How an MCPServer runs tasks (the Tasks extension, `io.modelcontextprotocol/tasks`): the options
 * of `serverTasks`, whose runner is what `MCPServer`'s `tasks` option takes.
 *
 * @example
 * const mcp = new MCPServer("jobs", { tasks: serverTasks({ ttlMs: 600_000, pollIntervalMs: 2_000 }) });
 */
export interface TaskOptions {
  /** How long a task stays readable after its creation, in ms (default one hour). Then it is dropped. */
  ttlMs?: number;
  /** The polling interval suggested to clients, in ms (default 1,000). */
  pollIntervalMs?: number;
  /**
   * How long a call to a task-capable tool may run before it becomes a task, in ms (default 50): a
   * call that finishes, fails or asks a question sooner answers inline, as without tasks.
   */
  immediateResultMs?: number;
  /**
   * Most tasks held at once (default 1,000). When full, a caller's new task drops that caller's
   * oldest finished one; a caller with none answers inline.
   */
  maxTasks?: number;
  /**
   * Most tasks one authenticated principal holds at once (default a tenth of `maxTasks`, at least
   * 1), so that one caller cannot fill the store for everyone. At the cap, that caller's new task
   * drops its oldest finished one, or answers inline, as when the store is full. Anonymous callers
   * cannot be told apart, so only `maxTasks` bounds them.
   */
  maxTasksPerPrincipal?: number;
  /**
   * Prepended to every task id (default none): behind a load balancer, give each instance its own
   * (`"a."`, `"b."`) and route `tasks/*` requests on the `Mcp-Name` header's prefix to the instance
   * that holds the task. 1–32 characters of `A-Z a-z 0-9 . _ -`.
   */
  taskIdPrefix?: string;
  /**
   * Announce each task's creation and changes on the server's `events` bus (default false), so a
   * listen stream on any instance of the fleet can follow it, for its creator only. What crosses
   * the bus is the task as `tasks/get` shows it, result included, its creator's principal and the
   * scopes its creating call needed: use a private channel.
   */
  shareOverEvents?: boolean;
}

/** The default of `TaskOptions.ttlMs`: one hour. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;
/** The default of `TaskOptions.pollIntervalMs`: one second. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1_000;
/** The default of `TaskOptions.immediateResultMs`, in ms. */
export const DEFAULT_IMMEDIATE_RESULT_MS = 50;
/** The default of `TaskOptions.maxTasks`. */
export const DEFAULT_MAX_TASKS = 1_000;

const PREFIX = /^[A-Za-z0-9._-]{1,32}$/;

function positiveInteger(
  value: number | undefined,
  fallback: number,
  what: string,
  { allowZero = false, max }: { allowZero?: boolean; max?: number } = {},
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1) || (max !== undefined && value > max)) {
    const atMost = max === undefined ? "" : ` of at most ${max}`;
    throw new TypeError(`${what} must be a ${allowZero ? "non-negative" : "positive"} integer${atMost}`);
  }
  return value;
}

/** The refusal for an unknown, expired or someone else's task: the same answer, so ids leak nothing. */
export function taskNotFound(): McpError {
  return new McpError(ErrorCode.InvalidParams, "Failed to retrieve task: Task not found");
}

/**
 * The tasks of one server, in memory: created with an unguessable id, readable by their creator
 * only, and dropped when their TTL ends (a running one is cancelled first).
 */
export class TaskStore {
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly immediateResultMs: number;
  readonly maxTasks: number;
  readonly maxTasksPerPrincipal: number;
  readonly taskIdPrefix: string;
  readonly #tasks = new Map<string, TaskRecord>();
  /** Tasks held per principal, for `maxTasksPerPrincipal`. */
  readonly #held = new Map<string | undefined, number>();
  readonly #expiries = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #onChange: (record: TaskRecord) => void;
  readonly #onForget: (record: TaskRecord) => void;

  /** `onChange` hears of every change of a task, `onForget` of a task dropped (expired, or to make room). */
  constructor(
    options: TaskOptions = {},
    onChange: (record: TaskRecord) => void = () => {},
    onForget: (record: TaskRecord) => void = () => {},
  ) {
    this.ttlMs = positiveInteger(options.ttlMs, DEFAULT_TASK_TTL_MS, "tasks.ttlMs", {
      max: MAX_TIMER_DELAY_MS,
    });
    this.pollIntervalMs = positiveInteger(
      options.pollIntervalMs,
      DEFAULT_TASK_POLL_INTERVAL_MS,
      "tasks.pollIntervalMs",
    );
    this.immediateResultMs = positiveInteger(
      options.immediateResultMs,
      DEFAULT_IMMEDIATE_RESULT_MS,
      "tasks.immediateResultMs",
      { allowZero: true, max: MAX_TIMER_DELAY_MS },
    );
    this.maxTasks = positiveInteger(options.maxTasks, DEFAULT_MAX_TASKS, "tasks.maxTasks");
    this.maxTasksPerPrincipal = positiveInteger(
      options.maxTasksPerPrincipal,
      Math.ceil(this.maxTasks / 10),
      "tasks.maxTasksPerPrincipal",
    );
    if (options.taskIdPrefix !== undefined && !PREFIX.test(options.taskIdPrefix)) {
      throw new TypeError("tasks.taskIdPrefix must be 1-32 characters of A-Z a-z 0-9 . _ -");
    }
    this.taskIdPrefix = options.taskIdPrefix ?? "";
    this.#onChange = onChange;
    this.#onForget = onForget;
  }

  get size(): number {
    return this.#tasks.size;
  }

  /**
   * True when a new task of `principal` fits, after dropping that principal's oldest finished task
   * if needed: one caller's new tasks never drop another's result before its TTL.
   */
  makeRoom(principal: string | undefined): boolean {
    // Anonymous callers cannot be told apart, so only the global bound applies to them.
    const underCap = principal === undefined || (this.#held.get(principal) ?? 0) < this.maxTasksPerPrincipal;
    if (this.#tasks.size < this.maxTasks && underCap) return true;
    for (const record of this.#tasks.values()) {
      if (record.terminal && record.principal === principal) {
        this.#forget(record.taskId);
        return true;
      }
    }
    return false;
  }

  /**
   * Creates a task; it is readable at once (the spec's durable-creation MUST). `controller` is the
   * one the work already runs under: cancelling or expiring the task aborts it.
   */
  create(owner: TaskOwner, controller: AbortController): TaskRecord {
    const record = new TaskRecord({
      controller,
      // 122 random bits: task ids work as bearer handles, so they must not be guessable.
      taskId: this.taskIdPrefix + globalThis.crypto.randomUUID(),
      now: Date.now(),
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      owner,
      onChange: this.#onChange,
    });
    this.#tasks.set(record.taskId, record);
    this.#count(owner.principal, 1);
    const expiry = setTimeout(() => {
      record.cancel("The task expired");
      this.#forget(record.taskId);
    }, this.ttlMs);
    // An expiry timer must never keep a process alive on its own.
    (expiry as { unref?: () => void }).unref?.();
    this.#expiries.set(record.taskId, expiry);
    return record;
  }

  /**
   * The task, if it exists and `caller` may reach it (see `mayReach`); else the one not-found
   * error, so a task never shows to whoever may not reach it.
   */
  get(taskId: string, caller: TaskCaller): TaskRecord {
    const record = this.#tasks.get(taskId);
    if (!record || !mayReach(record, caller)) throw taskNotFound();
    return record;
  }

  /** Whether `caller` may read `taskId` (what a listen stream checks before following it). */
  owns(taskId: string, caller: TaskCaller): boolean {
    const record = this.#tasks.get(taskId);
    return record !== undefined && mayReach(record, caller);
  }

  /** Cancels every running task and forgets them all (server shutdown). */
  clear(): void {
    for (const record of [...this.#tasks.values()]) {
      record.cancel("The server shut down");
      this.#forget(record.taskId);
    }
  }

  #forget(taskId: string): void {
    clearTimeout(this.#expiries.get(taskId));
    this.#expiries.delete(taskId);
    const record = this.#tasks.get(taskId);
    this.#tasks.delete(taskId);
    if (record !== undefined) {
      this.#count(record.principal, -1);
      this.#onForget(record);
    }
  }

  #count(principal: string | undefined, by: 1 | -1): void {
    const held = (this.#held.get(principal) ?? 0) + by;
    if (held > 0) this.#held.set(principal, held);
    else this.#held.delete(principal);
  }
}
