// A client for long-running tools: with `tasks: true` it declares the Tasks extension, and
// `callTool` drives a task to its end by itself (polling at the server's pace, answering its
// questions with the same callbacks as multi-round-trip requests). `onTask` hands over the task id
// to keep, and `waitForTask` picks the task up again after a restart.
import type { DetailedTask } from "roundtrip-mcp";
import { Client } from "roundtrip-mcp/client";

/** Where this example keeps the ids of running tasks (a database or a file in a real client). */
export const savedTasks = new Map<string, DetailedTask["status"]>();

/** Connects with the extension declared; the elicitation callback answers the server's question. */
export function connectForTasks(url: URL): Promise<Client> {
  return Client.connect(url, {
    tasks: true,
    elicitation: async (_ctx, params) => {
      console.log(`server asks: ${params.message}`);
      return { action: "accept", content: { archived: true } };
    },
  });
}

/** Runs the export; on every change of the task, records its id and status. */
export async function exportCustomers(client: Client, region: string): Promise<string> {
  const result = await client.callTool(
    "export_customers",
    { region },
    {
      onTask: (task) => {
        savedTasks.set(task.taskId, task.status);
        console.log(`task ${task.taskId}: ${task.status} ${task.statusMessage ?? ""}`);
      },
    },
  );
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** After a restart: finishes a task started by an earlier process, from its saved id. */
export async function resumeExport(client: Client, taskId: string): Promise<string> {
  const result = await client.waitForTask(taskId);
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}
