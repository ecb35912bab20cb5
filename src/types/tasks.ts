/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the 2026-07-28 wire: a
 * `tools/call` may answer with a task handle (`resultType: "task"`) that the client polls with
 * `tasks/get`, feeds with `tasks/update` and stops with `tasks/cancel`. Hand-written guards: no zod,
 * so the runtime graph stays free of it.
 */
import type { ErrorObject } from "./errors.js";
import type { InputRequests, InputResponses } from "./input.js";
import { isRecord } from "./record.js";

/** The extension's identifier, declared under `capabilities.extensions` by both sides. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The extension's request methods (client → server only). */
export const TaskMethod = {
  Get: "tasks/get",
  Update: "tasks/update",
  Cancel: "tasks/cancel",
} as const;

/** The status notification, delivered through `subscriptions/listen` with `notifications.taskIds`. */
export const TASK_STATUS_NOTIFICATION = "notifications/tasks";

/** What a `-32021` refusal names when a request needed the extension. */
export const TASKS_REQUIRED_CAPABILITIES = Object.freeze({
  extensions: Object.freeze({ [TASKS_EXTENSION]: Object.freeze({}) }),
});

/**
 * Where a task is: `working` or `input_required` while it runs; `completed`, `failed` or `cancelled` after.
 */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The task metadata every task shape carries. */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** Lifetime from creation in integer milliseconds; `null` for unlimited. */
  ttlMs: number | null;
  /** Suggested polling interval in milliseconds: a positive integer as sent; a client clamps what it gets. */
  pollIntervalMs?: number;
}

/**
 * A task with its status-specific payload: `inputRequests` while `input_required`, `result` once
 * `completed` (the original method's result, `isError` tool results included), `error` once `failed`
 * (JSON-RPC errors only). What `tasks/get` answers and `notifications/tasks` carries.
 */
export interface DetailedTask extends Task {
  inputRequests?: InputRequests;
  result?: Record<string, unknown>;
  error?: ErrorObject;
}

/** The answer to a request the server chose to run as a task. */
export type CreateTaskResult = Task & { resultType: "task"; _meta?: Record<string, unknown> };

/** `tasks/get`'s result. */
export type GetTaskResult = DetailedTask & { resultType: "complete"; _meta?: Record<string, unknown> };

/** `tasks/update`'s params. */
export interface UpdateTaskParams {
  taskId: string;
  inputResponses: InputResponses;
}

const STATUSES: ReadonlySet<string> = new Set([
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
]);

/** The statuses a task never leaves. */
export const TERMINAL_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set<TaskStatus>([
  "completed",
  "failed",
  "cancelled",
]);

function isPositiveInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
}

function describeTtlProblem(value: unknown, side: TaskCheckSide): string | undefined {
  if (value === null) return undefined;
  // The extension types ttlMs as an integer (or null) and sets no bound; the client never reads it.
  if (side === "receives") return Number.isInteger(value) ? undefined : "ttlMs must be null or an integer";
  return isPositiveInteger(value) ? undefined : "ttlMs must be null or a positive integer";
}

function describePollIntervalProblem(value: unknown, side: TaskCheckSide): string | undefined {
  if (value === undefined) return undefined;
  if (side === "receives")
    return Number.isFinite(value) ? undefined : "pollIntervalMs must be a finite number";
  return isPositiveInteger(value) ? undefined : "pollIntervalMs must be a positive integer";
}

/**
 * True for the five task statuses.
 *
 * @example
 * isTaskStatus("working"); // true
 */
export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === "string" && STATUSES.has(value);
}

/**
 * True for the three methods whose `Mcp-Name` header mirrors `params.taskId`.
 *
 * @example
 * isTaskMethod("tasks/get"); // true
 */
export function isTaskMethod(method: string): boolean {
  return method === TaskMethod.Get || method === TaskMethod.Update || method === TaskMethod.Cancel;
}

/**
 * Whether capabilities declare the Tasks extension (a request's own, per the spec: never a session's).
 *
 * @example
 * declaresTasks({ extensions: { [TASKS_EXTENSION]: {} } }); // true
 */
export function declaresTasks(capabilities: { extensions?: Record<string, unknown> } | undefined): boolean {
  return isRecord(capabilities?.extensions) && isRecord(capabilities.extensions[TASKS_EXTENSION]);
}

/**
 * The `resultType: "task"` discriminator.
 *
 * @example
 * if (isCreateTaskResult(result)) console.log(result.taskId, result.status);
 */
export function isCreateTaskResult(value: unknown): value is CreateTaskResult {
  return isRecord(value) && value.resultType === "task";
}

/**
 * Whose task `describeTaskProblem` checks: one a server `"emits"` gives `pollIntervalMs` and `ttlMs`
 * as positive integers; one a client `"receives"` may suggest any finite `pollIntervalMs`, since the
 * client clamps the pause anyway (the spec types it only as a number), and any integer `ttlMs`.
 */
export type TaskCheckSide = "emits" | "receives";

/**
 * What is wrong with a task, or `undefined` when it is a well-formed `DetailedTask`: the metadata,
 * then the payload its status requires (and none its status forbids).
 *
 * @example
 * const problem = describeTaskProblem(result, "receives");
 * if (problem) throw new Error(`bad tasks/get result: ${problem}`);
 */
export function describeTaskProblem(value: unknown, side: TaskCheckSide = "emits"): string | undefined {
  if (!isRecord(value)) return "a task must be a JSON object";
  if (typeof value.taskId !== "string" || value.taskId === "") return "taskId must be a non-empty string";
  if (!isTaskStatus(value.status)) {
    return `status must be one of ${[...STATUSES].join(", ")}`;
  }
  if (typeof value.createdAt !== "string") return "createdAt must be an ISO 8601 string";
  if (typeof value.lastUpdatedAt !== "string") return "lastUpdatedAt must be an ISO 8601 string";
  const ttlProblem = describeTtlProblem(value.ttlMs, side);
  if (ttlProblem) return ttlProblem;
  const pollIntervalProblem = describePollIntervalProblem(value.pollIntervalMs, side);
  if (pollIntervalProblem) return pollIntervalProblem;
  if (value.statusMessage !== undefined && typeof value.statusMessage !== "string") {
    return "statusMessage must be a string";
  }
  switch (value.status) {
    case "input_required":
      return isRecord(value.inputRequests) && Object.keys(value.inputRequests).length > 0
        ? undefined
        : "an input_required task needs a non-empty inputRequests map";
    case "completed":
      return isRecord(value.result) ? undefined : "a completed task needs a result object";
    case "failed":
      return isRecord(value.error) &&
        typeof value.error.code === "number" &&
        typeof value.error.message === "string"
        ? undefined
        : "a failed task needs an error with a numeric code and a message";
    default:
      return undefined;
  }
}
