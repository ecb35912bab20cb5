import { RoundtripError } from "../shared/errors.js";
import { ErrorCode, McpError } from "../types/core.js";
import type { CreateTaskResult, InputRequiredResult } from "../types/index.js";

/**
 * A call answered `input_required` but the caller did not opt into the manual loop. Carries the
 * result so nothing is lost.
 *
 * @example
 * try { await session.callTool("provision", {}); }
 * catch (error) { if (error instanceof InputRequiredError) console.log(error.result.inputRequests); }
 */
export class InputRequiredError extends RoundtripError {
  readonly result: InputRequiredResult;

  constructor(method: string, result: InputRequiredResult) {
    super(
      `${method} answered input_required. Pass { allowInputRequired: true } to receive the ` +
        "InputRequiredResult and retry with { inputResponses, requestState: result.requestState }, " +
        "or use Client, which drives the loop for you.",
    );
    this.result = result;
  }
}

/**
 * A `tools/call` answered with a task handle but the caller did not opt in with `allowTask`.
 * The task is running on the server: `.task.taskId` lets the caller poll it or cancel it.
 *
 * @example
 * try {
 *   await session.callTool("export", args);
 * } catch (error) {
 *   if (error instanceof TaskCreatedError) await session.cancelTask(error.task.taskId);
 * }
 */
export class TaskCreatedError extends RoundtripError {
  readonly task: CreateTaskResult;

  constructor(task: CreateTaskResult) {
    super(
      `tools/call answered with task ${task.taskId}. Pass { allowTask: true } to receive the ` +
        "CreateTaskResult and drive it with getTask/updateTask/cancelTask, or use Client, which " +
        "drives tasks for you. The handle is on .task.",
    );
    this.task = task;
  }
}

/**
 * The task behind a call ended `cancelled` (by `tasks/cancel` from any client, or by the server).
 *
 * @example
 * await client.callTool("export", args).catch((e) => e instanceof TaskCancelledError && e.taskId);
 */
export class TaskCancelledError extends RoundtripError {
  readonly taskId: string;
  /** The server's last word on the task, when it gave one. */
  readonly statusMessage: string | undefined;

  constructor(taskId: string, statusMessage?: string) {
    super(`Task ${taskId} was cancelled${statusMessage === undefined ? "" : `: ${statusMessage}`}`);
    this.taskId = taskId;
    this.statusMessage = statusMessage;
  }
}

/**
 * The automatic loop hit its cap: the server still answered `input_required` after
 * `maxRounds` retries. Carries the last result so the caller can resume the flow by hand. A task
 * that keeps asking hits the same cap on its input rounds; it is cancelled, `taskId` names it, and
 * `lastResult` holds the questions it asked last.
 *
 * @example
 * try {
 *   await client.callTool("provision", { name: "orders" });
 * } catch (error) {
 *   if (error instanceof InputRequiredRoundsExceededError) persist(error.lastResult.requestState);
 * }
 */
export class InputRequiredRoundsExceededError extends RoundtripError {
  readonly maxRounds: number;
  readonly lastResult: InputRequiredResult;
  /** The task whose input rounds ran out, when the flow was a task. */
  readonly taskId: string | undefined;

  constructor(maxRounds: number, lastResult: InputRequiredResult, taskId?: string) {
    super(
      taskId === undefined
        ? `The server still required input after ${maxRounds} retries (the inputRequiredMaxRounds cap). ` +
            "Raise inputRequiredMaxRounds, or drive the loop yourself with " +
            "client.session.callTool(..., { allowInputRequired: true }); the last InputRequiredResult is on " +
            ".lastResult."
        : `Task ${taskId} still required input after ${maxRounds} rounds (the inputRequiredMaxRounds cap), ` +
            "so it was cancelled. Raise inputRequiredMaxRounds, or drive the task yourself with " +
            "getTask/updateTask; its last questions are on .lastResult.",
    );
    this.maxRounds = maxRounds;
    this.lastResult = lastResult;
    this.taskId = taskId;
  }
}

/**
 * A client callback (elicitation, sampling, roots) answered something that is not the shape the
 * protocol expects. Raised locally: nothing is sent to the server.
 *
 * @example
 * // elicitation: () => ({ action: "yes" })  →  InvalidInputResponseError
 */
export class InvalidInputResponseError extends RoundtripError {
  /** The `inputRequests` key (or, on the legacy back-channel, the JSON-RPC id) being answered. */
  readonly requestId: string | number;
  readonly method: string;

  constructor(method: string, requestId: string | number, detail: string) {
    super(`The ${method} callback returned an invalid answer for input request '${requestId}': ${detail}`);
    this.method = method;
    this.requestId = requestId;
  }
}

/**
 * No protocol version is shared with the server.
 *
 * @example
 * await Client.connect(futureServer).catch((e) => e instanceof NoMutualVersionError && e.serverVersions);
 */
export class NoMutualVersionError extends RoundtripError {
  readonly serverVersions: readonly string[];

  constructor(serverVersions: readonly string[], clientVersions: readonly string[]) {
    super(
      `No mutual protocol version: the server supports ${JSON.stringify(serverVersions)}, this client ` +
        `supports ${JSON.stringify(clientVersions)}.`,
    );
    this.serverVersions = serverVersions;
  }
}

/**
 * Whether a failed read says the resource does not exist: `-32602` naming the URI in `data.uri`
 * (2026-07-28), or `-32002` (2025 servers). The spec asks clients to accept both.
 *
 * @example
 * try { await client.readResource(uri); } catch (error) { if (isResourceNotFound(error)) showMissing(uri); }
 */
export function isResourceNotFound(error: unknown): boolean {
  if (!(error instanceof McpError)) return false;
  if (error.code === ErrorCode.LegacyResourceNotFound) return true;
  const data = error.data as { uri?: unknown } | undefined;
  return error.code === ErrorCode.InvalidParams && typeof data?.uri === "string";
}
