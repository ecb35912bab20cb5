import type { ServerRequestContext } from "../context.js";
import { TASK_HANDLE, type TaskHandle } from "./handle.js";
import type { TaskRecord } from "./record.js";

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

  /** The context change that carries this handle. */
  carriedBy(): Partial<ServerRequestContext> {
    return { [TASK_HANDLE]: this } as Partial<ServerRequestContext>;
  }
}
