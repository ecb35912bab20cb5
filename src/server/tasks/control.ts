import type { ServerRequestContext } from "../context.js";
import type { TaskRecord } from "./record.js";

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

const TASK_CONTROL = Symbol("roundtrip.task");

/** The handle behind `ctx.task`: buffers what the handler says until the task exists. */
export class TaskControl implements TaskHandle {
  #record: TaskRecord | undefined;
  #message: string | undefined;

  get taskId(): string | undefined {
    return this.#record?.taskId;
  }

  setStatusMessage(message: string): void {
    this.#message = message;
    this.#record?.setStatusMessage(message);
  }

  attach(record: TaskRecord): void {
    this.#record = record;
    if (this.#message !== undefined) record.setStatusMessage(this.#message);
  }

  /** The context change that carries this handle (a symbol key, so derived contexts keep it). */
  carriedBy(): Partial<ServerRequestContext> {
    return { [TASK_CONTROL]: this } as Partial<ServerRequestContext>;
  }
}

/** The task handle a request context carries, if its call may become (or is) a task. */
export function taskHandleOf(ctx: ServerRequestContext): TaskHandle | undefined {
  return (ctx as unknown as Record<symbol, TaskHandle | undefined>)[TASK_CONTROL];
}
