// A server whose long tool runs as a task (the Tasks extension, io.modelcontextprotocol/tasks): a
// client that declares the extension gets a task handle at once and polls it; the same handler
// still runs inline for clients that do not. Mid-task it asks for a confirmation, the way an MRTR
// handler asks: it returns an InputRequiredResult, and the answer comes back on re-entry.
import { serveHttp } from "roundtrip-mcp/http";
import { elicitationRequest, inputRequired, inputResponse, MCPServer } from "roundtrip-mcp/server";
import { serverTasks } from "roundtrip-mcp/tasks";
import { z } from "zod";

const CONFIRM = elicitationRequest(
  "The export has 12,000 rows. Include archived customers?",
  z.object({ archived: z.boolean().describe("Include archived customers") }),
);

export const reports = new MCPServer("reports", {
  version: "1.0.0",
  // Small values so the example finishes quickly; the defaults are 1 hour, 1 s and 50 ms.
  tasks: serverTasks({ ttlMs: 600_000, pollIntervalMs: 20, immediateResultMs: 10 }),
});

/** Stands in for the slow part: a database scan that stops when the task is cancelled. */
function scan(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("export cancelled"));
    });
  });
}

reports.tool(
  "export_customers",
  {
    description: "Exports the customer table to CSV (long: runs as a task).",
    input: z.object({ region: z.string() }),
    task: "optional",
  },
  async ({ region }, ctx) => {
    const answer = inputResponse(ctx, "archived");
    if (answer.kind !== "accept") {
      ctx.task?.setStatusMessage(`Counting the rows of ${region}`);
      await scan(50, ctx.signal);
      return inputRequired({ inputRequests: { archived: CONFIRM } });
    }
    const archived = answer.content?.archived === true;
    ctx.task?.setStatusMessage(`Exporting ${region}${archived ? " with archived customers" : ""}`);
    await scan(50, ctx.signal);
    return `Exported ${archived ? 12_000 : 11_200} rows of ${region} to customers-${region}.csv`;
  },
);

/** Serves the example on a loopback port (0: any free one). */
export function serveReports(port = 0) {
  return serveHttp(reports, { port });
}
