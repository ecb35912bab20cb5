import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import { standardHeadersFor } from "../../../src/transports/http/headers.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { TASKS_EXTENSION } from "../../../src/types/tasks.js";
import { meta } from "../../helpers.js";
import { post, read } from "./helpers.js";

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

function rpc(method: string, params: Record<string, unknown>, id = 1) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta(TASKS) } };
}

let handle: HttpServerHandle;
let taskId: string;
beforeAll(async () => {
  const mcp = new MCPServer("tasks-http", {
    logger: silentLogger,
    tasks: serverTasks({ immediateResultMs: 0 }),
  });
  mcp.tool("forever", { task: "optional" }, () => new Promise(() => {}));
  handle = await serveHttp(mcp);
  const created = await read(await post(handle.url, rpc("tools/call", { name: "forever", arguments: {} })));
  expect(created.status).toBe(200);
  taskId = (created.body as { result: { taskId: string } }).result.taskId;
});
afterAll(() => handle.close());

describe("the Tasks extension over Streamable HTTP", () => {
  it("the client mirrors params.taskId into Mcp-Name on every tasks/* method", () => {
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      expect(standardHeadersFor(rpc(method, { taskId: "abc-123", inputResponses: {} }))).toMatchObject({
        "Mcp-Method": method,
        "Mcp-Name": "abc-123",
      });
    }
  });

  it("serves tasks/get when Mcp-Name matches params.taskId", async () => {
    const response = await read(
      await post(handle.url, rpc("tasks/get", { taskId }), { "mcp-name": `  ${taskId}  ` }),
    );
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ result: { resultType: "complete", taskId, status: "working" } });
  });

  it("refuses a missing or mismatched Mcp-Name with 400 and -32020", async () => {
    expect(
      await read(await post(handle.url, rpc("tasks/get", { taskId }), { "mcp-name": undefined })),
    ).toEqual({
      status: 400,
      contentType: "application/json",
      body: { jsonrpc: "2.0", id: 1, error: { code: -32020, message: "Missing required header Mcp-Name" } },
    });
    const mismatched = await read(
      await post(handle.url, rpc("tasks/cancel", { taskId }), { "mcp-name": "someone-elses-task" }),
    );
    expect(mismatched).toEqual({
      status: 400,
      contentType: "application/json",
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32020, message: "Header Mcp-Name does not match params.taskId" },
      },
    });
  });

  it("answers an unknown task with -32602 (HTTP 200), and tasks/* without the extension with -32021 (HTTP 400)", async () => {
    expect(
      await read(await post(handle.url, rpc("tasks/get", { taskId: "nope" }), { "mcp-name": "nope" })),
    ).toEqual({
      status: 200,
      contentType: "application/json",
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32602, message: "Failed to retrieve task: Task not found" },
      },
    });
    const undeclared = { jsonrpc: "2.0", id: 2, method: "tasks/get", params: { taskId, _meta: meta() } };
    const refused = await read(await post(handle.url, undeclared, { "mcp-name": taskId }));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      id: 2,
      error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } },
    });
  });
});
