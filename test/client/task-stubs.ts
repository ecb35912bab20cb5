/**
 * A hand-written Tasks server on our low-level `Server`: `tools/call` answers with a task handle,
 * and `tasks/get` walks a script. Every request is logged with what it declared.
 */
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import { checkCreateTaskResult } from "../../src/server/tasks/index.js";
import {
  type DetailedTask,
  declaresTasks,
  type InputResponses,
  TASKS_EXTENSION,
  type Task,
} from "../../src/types/index.js";

export const T0 = "2026-07-28T10:00:00.000Z";
export const TASK_ID = "task-1";
export const DECLARED = { extensions: { [TASKS_EXTENSION]: {} } };

/** A well-formed task: `working`, polled every 10 ms, unless `extra` says otherwise. */
export function task(extra: Partial<DetailedTask> = {}): DetailedTask {
  return {
    taskId: TASK_ID,
    status: "working",
    createdAt: T0,
    lastUpdatedAt: T0,
    ttlMs: 60_000,
    pollIntervalMs: 10,
    ...extra,
  };
}

export interface Logged {
  method: string;
  params: Record<string, unknown>;
  /** Whether the request declared the Tasks extension. */
  declared: boolean;
}

/** What `tasks/get` answers: its 0-based poll number and the `tasks/update` answers so far. */
export type Script = (poll: number, updates: readonly InputResponses[]) => Partial<DetailedTask>;

/**
 * `tools/call` answers `handle` (a working task), `tasks/get` answers `script` (an array: one entry
 * per poll, the last repeated), `tasks/update` and `tasks/cancel` acknowledge. `onGet` runs before
 * each `tasks/get` is answered.
 */
export function taskServer(
  script: Script | Partial<DetailedTask>[],
  options: { handle?: Partial<Task>; onGet?: (poll: number) => void } = {},
) {
  const log: Logged[] = [];
  const updates: InputResponses[] = [];
  let polls = 0;
  const server = new Server("tasks", { version: "1", logger: silentLogger });
  // A server that runs tasks by hand: its task handles are checked like the runner's.
  server.acceptTaskResults(checkCreateTaskResult);
  const note =
    (method: string) => (ctx: { clientCapabilities: unknown }, params: Record<string, unknown>) => {
      const { _meta, ...bare } = params;
      log.push({ method, params: bare, declared: declaresTasks(ctx.clientCapabilities as never) });
    };
  server.setRequestHandler("tools/call", (ctx, params) => {
    note("tools/call")(ctx, params);
    return { resultType: "task", ...task(options.handle) };
  });
  server.setRequestHandler("tasks/get", (ctx, params) => {
    note("tasks/get")(ctx, params);
    const poll = polls++;
    options.onGet?.(poll);
    const state =
      typeof script === "function" ? script(poll, updates) : script[Math.min(poll, script.length - 1)];
    return { resultType: "complete", ...task(state) };
  });
  server.setRequestHandler("tasks/update", (ctx, params) => {
    note("tasks/update")(ctx, params);
    updates.push(params.inputResponses as InputResponses);
    return { resultType: "complete" };
  });
  server.setRequestHandler("tasks/cancel", (ctx, params) => {
    note("tasks/cancel")(ctx, params);
    return { resultType: "complete" };
  });
  return {
    server,
    log,
    updates,
    methods: () => log.map((entry) => entry.method),
    count: (method: string) => log.filter((entry) => entry.method === method).length,
  };
}
