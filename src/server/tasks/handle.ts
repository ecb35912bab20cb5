import type { ServerRequestContext } from "../context.js";

/**
 * What a handler sees of the task it may be running as (`ctx.task`).
 *
 * @example
 * mcp.tool("export", { task: "optional" }, async (_args, ctx) => {
 *   ctx.task?.setStatusMessage("Exporting 10,000 rows");
 *   return await exportRows(ctx.signal);
 * });
 */
export interface TaskHandle {
  /** The task's id once the call became a task; undefined while it may still answer inline. */
  readonly taskId: string | undefined;
  /** The human-readable line `tasks/get` shows next to the status (kept if set before the task exists). */
  setStatusMessage(message: string): void;
}

/** The context key of the handle: a symbol, so derived contexts (`deriveContext`) keep it. */
export const TASK_HANDLE = Symbol("roundtrip.task");

/** The task handle a request context carries, if its call may become (or is) a task. */
export function taskHandleOf(ctx: ServerRequestContext): TaskHandle | undefined {
  return (ctx as unknown as Record<symbol, TaskHandle | undefined>)[TASK_HANDLE];
}
