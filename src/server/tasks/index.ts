/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for MCPServer, as its own entry
 * point so that servers without long-running tools do not ship it.
 *
 * @example
 * import { serverTasks } from "roundtrip-mcp/tasks";
 * const mcp = new MCPServer("reports", { tasks: serverTasks({ ttlMs: 600_000 }) });
 * mcp.tool("export", { task: "optional" }, async (_args, ctx) => exportAll(ctx.signal));
 */
import type { TaskRunner } from "./runner.js";
import { TaskService } from "./service.js";
import type { TaskOptions } from "./store.js";

export type { TaskHandle } from "./handle.js";
export { checkCreateTaskResult } from "./outbound.js";
export type { TaskRunner, TaskSupport } from "./runner.js";
export {
  DEFAULT_IMMEDIATE_RESULT_MS,
  DEFAULT_MAX_TASKS,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_MS,
  type TaskOptions,
} from "./store.js";

/**
 * A task runner for one MCPServer: tools registered with `task` run as tasks for clients that
 * declare the extension. Options are checked here (TTL, polling interval, inline window, capacity).
 *
 * @example
 * const tasks = serverTasks({ pollIntervalMs: 2_000 });
 * const mcp = new MCPServer("reports", { tasks });
 * // at shutdown, once the endpoints are closed:
 * tasks.close();
 */
export function serverTasks(options: TaskOptions = {}): TaskRunner {
  return new TaskService(options);
}
