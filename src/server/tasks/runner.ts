import type { ResultObject } from "../../types/index.js";
import type { ServerRequestContext } from "../context.js";
import type { Server } from "../server.js";

/** Whether a tool may run as a task: `"required"` refuses clients without the extension (-32021). */
export type TaskSupport = "optional" | "required";

/** Runs one (re-)entry of a tool with the given params and context. */
export type ToolEntry = (params: Record<string, unknown>, ctx: ServerRequestContext) => Promise<ResultObject>;

/**
 * What an MCPServer needs to run task-capable tools: `serverTasks()` from `roundtrip-mcp/tasks`
 * makes one. An interface, so a server that never runs tasks does not ship their code.
 *
 * @example
 * import { serverTasks } from "roundtrip-mcp/tasks";
 * const mcp = new MCPServer("reports", { tasks: serverTasks({ ttlMs: 600_000 }) });
 */
export interface TaskRunner {
  /** Serves `tasks/get`, `tasks/update`, `tasks/cancel` and task notifications on `server` (once). */
  install(server: Server): void;
  /** Serves one `tools/call` of a task-capable tool; `entry` runs the tool itself. */
  call(support: TaskSupport, ctx: ServerRequestContext, entry: ToolEntry): Promise<ResultObject>;
  /**
   * Cancels every task still running and drops them all (siblings following them over the events
   * bus are told): call it when the server shuts down, after its endpoints have closed.
   */
  close(): void;
}
