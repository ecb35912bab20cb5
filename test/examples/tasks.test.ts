import { afterEach, expect, it, vi } from "vitest";
import { connectForTasks, exportCustomers, resumeExport, savedTasks } from "../../examples/tasks-client.js";
import { serveReports } from "../../examples/tasks-server.js";
import { callDeclaringTasks } from "../transports/http/helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  savedTasks.clear();
  vi.restoreAllMocks();
});

async function started() {
  const http = await serveReports();
  closers.push(() => http.close());
  const client = await connectForTasks(http.url);
  closers.push(() => client.close());
  return { url: http.url, client };
}

it("runs the export as a task: asked once mid-task, then completed", async () => {
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  const { client } = await started();
  const text = await exportCustomers(client, "eu");
  expect(text).toBe("Exported 12000 rows of eu to customers-eu.csv");
  expect(savedTasks.size).toBe(1);
  const [taskId, status] = [...savedTasks][0] ?? [];
  expect(status).toBe("completed");
  const lines = log.mock.calls.map(([line]) => String(line));
  expect(lines.filter((line) => line.startsWith("server asks:"))).toEqual([
    "server asks: The export has 12,000 rows. Include archived customers?",
  ]);
  // The statuses the client saw, in order (the "working" ones may repeat with a new message).
  const seen = lines.filter((line) => line.startsWith(`task ${taskId}:`)).map((line) => line.split(" ")[2]);
  expect(seen[0]).toBe("working");
  expect(seen).toContain("input_required");
  expect(seen.at(-1)).toBe("completed");
  expect(lines).toContain(`task ${taskId}: completed Exporting eu with archived customers`);
});

it("resumes a task another process started, from its id alone", async () => {
  vi.spyOn(console, "log").mockImplementation(() => {});
  const { url, client } = await started();
  // "Another process": a bare HTTP client that starts the task and goes away.
  const result = await callDeclaringTasks(url, "export_customers", { region: "us" });
  expect(result.resultType).toBe("task");
  expect(await resumeExport(client, result.taskId as string)).toBe(
    "Exported 12000 rows of us to customers-us.csv",
  );
});
