// Tasks are a 2026-07-28 extension: a 2025 session never gets a task handle, even from a client
// that lists the extension in its initialize capabilities.
import { afterEach, expect, it } from "vitest";
import { Client } from "../../../src/client/client.js";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function served(): Promise<HttpServerHandle> {
  const mcp = new MCPServer("dual", { logger: silentLogger, tasks: serverTasks({ immediateResultMs: 0 }) });
  mcp.tool("slow", { task: "optional" }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    return "finished inline";
  });
  mcp.tool("must", { task: "required" }, () => "never");
  const http = await serveHttp(mcp);
  closers.push(() => http.close());
  return http;
}

it("a 2025 session runs a task-capable tool inline, and refuses a task-required one", async () => {
  const http = await served();
  const client = await Client.connect(http.url, { mode: "legacy", tasks: true });
  closers.push(() => client.close());
  expect(client.protocolVersion).toBe("2025-11-25");
  const result = await client.callTool("slow", {});
  expect(result.content).toEqual([{ type: "text", text: "finished inline" }]);
  await expect(client.callTool("must", {})).rejects.toMatchObject({ code: -32021 });
});

it("the same server still makes tasks for a modern client on the same endpoint", async () => {
  const http = await served();
  const seen: string[] = [];
  const client = await Client.connect(http.url, { tasks: true });
  closers.push(() => client.close());
  const result = await client.callTool("slow", {}, { onTask: (task) => void seen.push(task.status) });
  expect(result.content).toEqual([{ type: "text", text: "finished inline" }]);
  expect(seen.at(-1)).toBe("completed");
});

it("a 2025 session gets -32601 for every tasks/* method, as for tasks/list: 2025 has no extensions to declare", async () => {
  const http = await served();
  const client = await Client.connect(http.url, { mode: "legacy", tasks: true });
  closers.push(() => client.close());
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel", "tasks/list", "tasks/result"]) {
    const params = { taskId: "a-task", inputResponses: {} };
    await expect(client.session.connection.request(method, params)).rejects.toMatchObject({
      code: -32601,
      message: `Method not found: ${method}`,
    });
  }
});
