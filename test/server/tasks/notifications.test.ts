import { describe, expect, it } from "vitest";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { RequestStateSecurity } from "../../../src/server/state/policy.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import { ErrorCode } from "../../../src/types/core.js";
import { TASKS_EXTENSION } from "../../../src/types/tasks.js";
import { errorOf, request, resultOf } from "../../helpers.js";
import { ALICE, acknowledged, BOB, listen, settle, TASKS } from "./listen-helpers.js";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** A server with one task tool that finishes when the test says so. */
function taskServer() {
  const mcp = new MCPServer("notify", { logger: silentLogger, tasks: serverTasks({ immediateResultMs: 0 }) });
  const finish = gate();
  mcp.tool("job", { task: "optional" }, async (_args, ctx) => {
    ctx.task?.setStatusMessage("started");
    await finish.opened;
    return "job done";
  });
  return { mcp, finish };
}

describe("notifications/tasks on subscriptions/listen", () => {
  it("acknowledges only known task ids, then pushes the full task on every change", async () => {
    const { mcp, finish } = taskServer();
    const created = resultOf(
      await mcp.dispatch(request("tools/call", { name: "job", arguments: {} }, TASKS), { authInfo: ALICE }),
    );
    const taskId = created.taskId as string;
    const stream = listen(mcp, { taskIds: [taskId, "not-a-task"] }, TASKS, ALICE);
    await settle();
    expect(stream.seen[0]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" },
        notifications: { taskIds: [taskId] },
      },
    });
    finish.open();
    await settle();
    const task = stream.seen.find((n) => n.method === "notifications/tasks");
    expect(task?.params).toMatchObject({
      _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" },
      taskId,
      status: "completed",
      statusMessage: "started",
      result: { content: [{ type: "text", text: "job done" }] },
    });
    const viaGet = resultOf(await mcp.dispatch(request("tasks/get", { taskId }, TASKS), { authInfo: ALICE }));
    if (!task) throw new Error("no notifications/tasks");
    const { _meta: _a, ...pushed } = task.params as Record<string, unknown>;
    const { _meta: _b, resultType: _c, ...polled } = viaGet;
    expect(pushed).toEqual(polled);
    stream.stop();
    expect(await stream.done).toBeUndefined();
  });

  it("never tells another principal about a task, even given its id", async () => {
    const { mcp, finish } = taskServer();
    const created = resultOf(
      await mcp.dispatch(request("tools/call", { name: "job", arguments: {} }, TASKS), { authInfo: ALICE }),
    );
    const stream = listen(mcp, { taskIds: [created.taskId] }, TASKS, BOB);
    // Nothing honoured: the stream is acknowledged empty and closes at once.
    expect(resultOf(await stream.done).resultType).toBe("complete");
    expect(acknowledged(stream.seen)).toEqual({});
    finish.open();
    await settle();
    expect(stream.seen.filter((n) => n.method === "notifications/tasks")).toEqual([]);
  });

  // A custom bindPrincipal tells apart callers of one OAuth identity: listen streams follow it too.
  it("follows a task only for its creator as the server's bindPrincipal names it", async () => {
    const mcp = new MCPServer("notify", {
      logger: silentLogger,
      tasks: serverTasks({ immediateResultMs: 0 }),
      requestStateSecurity: new RequestStateSecurity(
        { keys: ["k".repeat(32)] },
        { bindPrincipal: (ctx) => ctx.authInfo?.extra?.user as string | undefined },
      ),
    });
    mcp.tool("job", { task: "optional" }, () => new Promise(() => {}));
    const as = (user: string) => ({ ...ALICE, extra: { user } });
    const created = resultOf(
      await mcp.dispatch(request("tools/call", { name: "job", arguments: {} }, TASKS), { authInfo: as("a") }),
    );
    const others = listen(mcp, { taskIds: [created.taskId] }, TASKS, as("b"));
    expect(resultOf(await others.done).resultType).toBe("complete");
    expect(acknowledged(others.seen)).toEqual({});
    const own = listen(mcp, { taskIds: [created.taskId] }, TASKS, as("a"));
    await settle();
    expect(acknowledged(own.seen)).toEqual({ taskIds: [created.taskId] });
    own.stop();
    await own.done;
  });

  it("refuses taskIds from a request without the extension with -32021", async () => {
    const { mcp } = taskServer();
    const stream = listen(mcp, { taskIds: ["x"] }, {});
    const error = errorOf(await stream.done);
    expect(error.code).toBe(ErrorCode.MissingRequiredClientCapability);
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  });

  it("a server without tasks leaves taskIds out of the acknowledgement instead", async () => {
    const mcp = new MCPServer("plain", { logger: silentLogger, listChanged: true });
    mcp.tool("t", {}, () => "x");
    const stream = listen(mcp, { taskIds: ["x"], toolsListChanged: true }, {});
    await settle();
    expect(acknowledged(stream.seen)).toEqual({
      toolsListChanged: true,
    });
    stream.stop();
    await stream.done;
  });
});
