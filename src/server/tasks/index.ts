/** The Tasks extension (`io.modelcontextprotocol/tasks`) on the server: options and the handler's view. */
export type { TaskHandle } from "./control.js";
export type { TaskSupport } from "./service.js";
export {
  DEFAULT_IMMEDIATE_RESULT_MS,
  DEFAULT_MAX_TASKS,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_MS,
  type TaskOptions,
} from "./store.js";
