/**
 * A task follows the scopes of the call that created it. `requiredScopes` is checked per request,
 * and `tasks/get`, `tasks/update`, `tasks/cancel` and `subscriptions/listen` name no tool, so a
 * narrower token of the same user (read-only, say) used to read the result of a write tool's task,
 * answer its questions and cancel it. Now a task shows only to a token holding every scope its
 * creating call needed; to any other it is unknown, exactly as another user's task is.
 */
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import { type HttpServerHandle, serveHttp } from "../../../src/transports/http/node.js";
import { TASKS_EXTENSION } from "../../../src/types/tasks.js";
import { meta } from "../../helpers.js";
import { post, read } from "./helpers.js";

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
/** Two tokens of one user: one may write notes, the other only read them. */
const TOKENS: Record<string, readonly string[]> = {
  "read-write": ["notes:read", "notes:write"],
  "read-only": ["notes:read"],
};
const NOT_FOUND = {
  status: 200,
  contentType: "application/json",
  body: {
    jsonrpc: "2.0",
    id: 2,
    error: { code: -32602, message: "Failed to retrieve task: Task not found" },
  },
};

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

function rpc(method: string, params: Record<string, unknown>, id = 1) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta(TASKS) } };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function start() {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const mcp = new MCPServer("notes", { logger: silentLogger, tasks: serverTasks({ immediateResultMs: 0 }) });
  mcp.tool("purge", { task: "optional" }, async () => {
    await finished;
    return "purged";
  });
  mcp.tool("count", { task: "optional" }, async () => {
    await finished;
    return "3 notes";
  });
  handle = await serveHttp(mcp, {
    drainTimeoutMs: 0,
    verifyToken: (request) => {
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      const scopes = TOKENS[token];
      return scopes && { token, clientId: "app", subject: "alice", scopes };
    },
    requiredScopes: ({ method, name }) =>
      method === "tools/call" && name === "purge" ? ["notes:read", "notes:write"] : ["notes:read"],
  });
  return { url: handle.url, finish };
}

async function createTask(url: URL, tool: string, token: string): Promise<string> {
  const created = await read(
    await post(url, rpc("tools/call", { name: tool, arguments: {} }), bearer(token)),
  );
  expect(created).toMatchObject({ status: 200, body: { result: { resultType: "task", status: "working" } } });
  return (created.body as { result: { taskId: string } }).result.taskId;
}

function taskCall(url: URL, method: string, taskId: string, token: string, extra = {}) {
  return post(url, rpc(method, { taskId, ...extra }, 2), bearer(token)).then(read);
}

/** The `notifications` a listen stream's acknowledgement carried; stops reading there. */
async function acknowledgedFollow(url: URL, taskId: string, token: string): Promise<unknown> {
  const response = await post(
    url,
    rpc("subscriptions/listen", { notifications: { taskIds: [taskId] } }),
    bearer(token),
  );
  expect(response.status).toBe(200);
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  let text = "";
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += new TextDecoder().decode(chunk.value);
      for (const line of text.split("\n")) {
        if (!line.startsWith("data: ")) continue;
        const message = JSON.parse(line.slice(6)) as {
          method?: string;
          params?: { notifications?: unknown };
        };
        if (message.method === "notifications/subscriptions/acknowledged")
          return message.params?.notifications;
      }
    }
  } finally {
    await reader.cancel();
  }
  throw new Error("the stream ended without an acknowledgement");
}

describe("a task keeps the scopes of the call that created it", () => {
  it("is unknown to a narrower token of the same user: tasks/get, tasks/update and tasks/cancel get -32602", async () => {
    const { url, finish } = await start();
    const taskId = await createTask(url, "purge", "read-write");
    expect(await taskCall(url, "tasks/get", taskId, "read-only")).toEqual(NOT_FOUND);
    expect(await taskCall(url, "tasks/update", taskId, "read-only", { inputResponses: {} })).toEqual(
      NOT_FOUND,
    );
    expect(await taskCall(url, "tasks/cancel", taskId, "read-only")).toEqual(NOT_FOUND);
    // The refused cancel did not land: the task still works for the token that made it.
    expect(await taskCall(url, "tasks/get", taskId, "read-write")).toMatchObject({
      status: 200,
      body: { result: { taskId, status: "working" } },
    });
    finish();
    await expect
      .poll(async () => (await taskCall(url, "tasks/get", taskId, "read-write")).body)
      .toMatchObject({
        result: { status: "completed", result: { content: [{ type: "text", text: "purged" }] } },
      });
    // Finished, its result stays out of the narrower token's reach.
    expect(await taskCall(url, "tasks/get", taskId, "read-only")).toEqual(NOT_FOUND);
  });

  it("is followed on a listen stream only with the creating call's scopes", async () => {
    const { url, finish } = await start();
    const taskId = await createTask(url, "purge", "read-write");
    expect(await acknowledgedFollow(url, taskId, "read-only")).toEqual({});
    expect(await acknowledgedFollow(url, taskId, "read-write")).toEqual({ taskIds: [taskId] });
    finish();
  });

  it("measures the call's needs, not the creating token's: a read call's task is open to a read-only token", async () => {
    const { url, finish } = await start();
    const taskId = await createTask(url, "count", "read-write");
    expect(await taskCall(url, "tasks/get", taskId, "read-only")).toMatchObject({
      status: 200,
      body: { result: { taskId, status: "working" } },
    });
    expect(await acknowledgedFollow(url, taskId, "read-only")).toEqual({ taskIds: [taskId] });
    finish();
  });
});
