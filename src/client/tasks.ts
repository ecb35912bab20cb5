/**
 * The client side of the Tasks extension (`io.modelcontextprotocol/tasks`): the driver that takes
 * a task from its handle to its end — polling `tasks/get` at the server's pace, answering
 * `input_required` through the client's callbacks with `tasks/update`, and `tasks/cancel` when the
 * client gives up.
 */

import { ProtocolError } from "../shared/errors.js";
import { linkSignals } from "../shared/linked-signal.js";
import { McpError, TERMINAL_TASK_STATUSES } from "../types/core.js";
import type {
  CallToolResult,
  CreateTaskResult,
  DetailedTask,
  ErrorObject,
  GetTaskResult,
  ResultObject,
} from "../types/index.js";
import {
  abortableSleep,
  DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
  type DispatchInputRequest,
  dispatchAll,
} from "./driver.js";
import { InputRequiredRoundsExceededError, TaskCancelledError } from "./errors.js";
import type { WaitForTaskOptions } from "./options.js";
import { checkResult } from "./result-check.js";
import type { CallOptions, ClientSession } from "./session.js";
import { taskFollower } from "./task-follower.js";

/**
 * The pause between polls when the server suggests no `pollIntervalMs`.
 *
 * @example
 * TASK_POLL_FALLBACK_MS; // 1000
 */
export const TASK_POLL_FALLBACK_MS = 1_000;
/**
 * The shortest pause between polls, whatever the server suggests.
 *
 * @example
 * TASK_POLL_MIN_MS; // 10
 */
export const TASK_POLL_MIN_MS = 10;
/**
 * The longest pause between polls, whatever the server suggests.
 *
 * @example
 * TASK_POLL_MAX_MS; // 60000
 */
export const TASK_POLL_MAX_MS = 60_000;
/** The most a best-effort `tasks/cancel` may hold up the error the caller is waiting for. */
const CANCEL_TIMEOUT_MS = 5_000;

/**
 * What the driver takes from a call's options: `timeoutMs` per `tasks/*` request, `onLog`, `meta`,
 * `onTask`; `follow`, set when the server advertises the extension: the driver then also
 * listens for the task's `notifications/tasks` and polls as soon as one arrives (and once when the
 * stream is acknowledged); and `maxRounds`,
 * the input rounds answered over the task's lifetime (default 10, as `inputRequiredMaxRounds`).
 */
type DriveOptions = Pick<WaitForTaskOptions, "timeoutMs" | "onLog" | "meta" | "onTask"> & {
  follow?: boolean;
  maxRounds?: number;
  /** Input rounds the call already answered before it became a task: they count against `maxRounds`. */
  roundsUsed?: number;
};

/**
 * Cuts the wait between polls short when the server pushes a change of the task, through the
 * session's one stream of task notifications (spec: clients MAY listen, and may keep polling). A
 * server that does not follow the id, or fails the stream, leaves plain polling in place.
 */
class TaskWatch {
  readonly #unfollow: () => void;
  #rang = false;
  #wake: (() => void) | undefined;

  constructor(session: ClientSession, taskId: string) {
    this.#unfollow = taskFollower(session).follow(taskId, () => this.#ring());
  }

  #ring(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    if (wake) wake();
    else this.#rang = true;
  }

  /** Waits `ms`, or less when a change arrives (or arrived since the last wait). */
  async sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.#rang) {
      this.#rang = false;
      return;
    }
    // Aborting the sleep clears its timer: a 60 s poll interval must not hold the process after
    // the task has ended.
    const wake = new AbortController();
    this.#wake = () => wake.abort();
    const link = linkSignals(signal, wake.signal);
    try {
      await abortableSleep(ms, link.signal);
    } catch (error) {
      if (!wake.signal.aborted || signal?.aborted) throw error;
    } finally {
      link.dispose();
      this.#wake = undefined;
    }
  }

  close(): void {
    this.#unfollow();
  }
}

/**
 * Drives a task to its end and returns the original `tools/call` result: `completed` returns it
 * (checked like a direct answer), `failed` throws the `McpError` the request itself would have,
 * `cancelled` throws `TaskCancelledError`. Polls wait the latest `pollIntervalMs` (default 1 s;
 * any finite number the server suggests, clamped to 10 ms – 60 s); a handle still `working` is polled after one interval, any other
 * status at once (its payload lives on `tasks/get`). Each `input_required` key is answered once
 * over the task's lifetime, however often polls repeat it, concurrently and with one
 * `tasks/update` per round carrying only the new answers. One round past `maxRounds` cancels the
 * task and throws `InputRequiredRoundsExceededError`, before any callback runs.
 *
 * When the client gives up by itself (abort, total budget, a callback or `onTask` failing) it
 * sends `tasks/cancel`, best effort, then raises the original error. When the server or the
 * connection fails instead, the task is left alone so it can be resumed by id.
 *
 * `dispatch` answers one embedded request (the input-required loop's: the client's callbacks);
 * `signal` ends the drive (the caller's abort or the flow's total budget; `options.signal` is not
 * read).
 *
 * @example
 * const result = await driveTask(handle, session, dispatch, undefined, { onTask: (t) => save(t.taskId) });
 */
export async function driveTask(
  from: CreateTaskResult | string,
  session: ClientSession,
  dispatch: DispatchInputRequest,
  signal: AbortSignal | undefined,
  options: DriveOptions = {},
): Promise<CallToolResult> {
  const { onTask } = options;
  const taskId = typeof from === "string" ? from : from.taskId;
  const request: CallOptions = {
    signal,
    timeoutMs: options.timeoutMs,
    onLog: options.onLog,
    meta: options.meta,
  };
  const answered = new Set<string>();
  const maxRounds = options.maxRounds ?? DEFAULT_INPUT_REQUIRED_MAX_ROUNDS;
  let rounds = options.roundsUsed ?? 0;
  const watch = options.follow === true ? new TaskWatch(session, taskId) : undefined;
  // Closing the client ends the wait between polls, and a callback's, at once: one would outlive
  // the connection by up to a poll interval (60 s), the other for good.
  const closed = session.connection.closedSignal;
  const wait = linkSignals(closed, signal);
  const waitSignal = wait.signal;
  let latest: DetailedTask | undefined;
  // Only a handle still `working` has nothing to fetch yet; any other status's payload is on tasks/get.
  let pause = typeof from !== "string" && from.status === "working";
  let talking = false;
  try {
    if (typeof from !== "string") {
      latest = taskOf(from);
      onTask?.(latest);
    }
    for (;;) {
      if (pause) await sleep(watch, pollDelay(latest?.pollIntervalMs), waitSignal);
      pause = true;
      talking = true;
      const task = taskOf(await session.getTask(taskId, request));
      talking = false;
      if (
        latest === undefined ||
        latest.status !== task.status ||
        latest.statusMessage !== task.statusMessage
      ) {
        onTask?.(task);
      }
      latest = task;
      if (task.status === "completed") return completedResult(taskId, task.result as ResultObject);
      if (task.status === "failed") throw McpError.fromErrorObject(task.error as ErrorObject);
      if (task.status === "cancelled") throw new TaskCancelledError(taskId, task.statusMessage);
      const fresh = Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key));
      if (fresh.length === 0) continue;
      // A server asking on every poll would otherwise run the callbacks (a person, a model) forever.
      if (++rounds > maxRounds) {
        const lastResult = {
          resultType: "input_required" as const,
          inputRequests: Object.fromEntries(fresh),
        };
        throw new InputRequiredRoundsExceededError(maxRounds, lastResult, taskId);
      }
      for (const [key] of fresh) answered.add(key);
      const responses = await dispatchAll(fresh, dispatch, waitSignal);
      talking = true;
      await session.updateTask(taskId, responses, request);
      talking = false;
    }
  } catch (error) {
    const serverFailed = (talking && signal?.aborted !== true) || closed.aborted;
    const ended = latest !== undefined && TERMINAL_TASK_STATUSES.has(latest.status);
    if (!serverFailed && !ended) await cancelQuietly(session, taskId, options);
    throw error;
  } finally {
    wait.dispose();
    watch?.close();
  }
}

function sleep(watch: TaskWatch | undefined, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return watch ? watch.sleep(ms, signal) : abortableSleep(ms, signal);
}

/** The suggested pause, clamped so a server can neither hammer itself nor stall the client. */
function pollDelay(pollIntervalMs: number | undefined): number {
  return Math.min(TASK_POLL_MAX_MS, Math.max(TASK_POLL_MIN_MS, pollIntervalMs ?? TASK_POLL_FALLBACK_MS));
}

/** The task alone, without the result envelope (`resultType`, `_meta`). */
function taskOf(value: CreateTaskResult | GetTaskResult): DetailedTask {
  const { resultType: _type, _meta: _m, ...task } = value;
  return task;
}

/** A completed task's `result` is the original request's answer, held to the same rules. */
function completedResult(taskId: string, result: ResultObject): CallToolResult {
  const resultType = result.resultType ?? "complete";
  if (resultType !== "complete") {
    throw new ProtocolError(
      `Task ${taskId} completed with a ${JSON.stringify(resultType)} result; it must hold a complete tools/call result`,
    );
  }
  return checkResult("tools/call", result, {}, undefined) as CallToolResult;
}

async function cancelQuietly(session: ClientSession, taskId: string, options: DriveOptions): Promise<void> {
  try {
    // No signal: the flow's own has usually fired, and the cancel is what stops the server's work.
    await session.cancelTask(taskId, {
      timeoutMs: Math.min(options.timeoutMs ?? CANCEL_TIMEOUT_MS, CANCEL_TIMEOUT_MS),
      meta: options.meta,
    });
  } catch {
    // Best effort: the error that ended the drive is the one the caller needs.
  }
}
