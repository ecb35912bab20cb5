/**
 * The outbound rule for task handles, installed on a server by its task runner; a low-level server
 * that runs tasks itself installs it with `server.acceptTaskResults(checkCreateTaskResult)`.
 */
import { declaresTasks, describeTaskProblem, isTaskStatus } from "../../types/core.js";
import type { ClientCapabilities } from "../../types/index.js";
import { invalidResult } from "../outbound.js";

/**
 * A task handle goes only to a `tools/call` whose request declared the Tasks extension (a MUST), and
 * carries the task metadata alone: its payload lives on `tasks/get`, and MRTR's `requestState` never
 * leaks into it.
 *
 * @example
 * const server = new Server("jobs", { onCallTool: startJob });
 * server.acceptTaskResults(checkCreateTaskResult);
 */
export function checkCreateTaskResult(
  method: string,
  result: Record<string, unknown>,
  declared: ClientCapabilities,
): void {
  if (method !== "tools/call") throw invalidResult(`${method} cannot answer with a task`);
  if (!declaresTasks(declared)) {
    throw invalidResult("a task was returned to a request that did not declare the tasks extension");
  }
  if (!isTaskStatus(result.status)) throw invalidResult("a CreateTaskResult needs a task status");
  // The metadata only: whatever the seed status, its payload is read through tasks/get.
  const problem = describeTaskProblem({ ...result, status: "working" });
  if (problem) throw invalidResult(`not a valid CreateTaskResult (${problem})`);
  for (const field of ["requestState", "inputRequests", "result", "error"]) {
    if (field in result) throw invalidResult(`a CreateTaskResult cannot carry ${field}`);
  }
}
