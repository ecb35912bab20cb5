import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { elicit, MCPServer, resolver, silentLogger, ToolError } from "../../../src/server/index.js";
import {
  elicitationRequest,
  inputRequired,
  inputResponse,
  samplingRequest,
} from "../../../src/server/mcp/index.js";
import { RequestStateSecurity } from "../../../src/server/state/index.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import type { TaskService } from "../../../src/server/tasks/service.js";
import { ErrorCode, McpError } from "../../../src/types/core.js";
import type { ClientCapabilities } from "../../../src/types/index.js";
import { describeTaskProblem, TASKS_EXTENSION } from "../../../src/types/tasks.js";
import { errorOf, recordingLogger, request, resultOf } from "../../helpers.js";

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const TASKS_AND_FORMS = { ...TASKS, elicitation: { form: {} } };
const ASK_REGION = elicitationRequest("Which region?", z.object({ region: z.string() }));
const REGION = { action: "accept", content: { region: "eu-west-1" } };

/**
 * Outlasts an `immediateResultMs` of 0 with a wide margin: timers of different durations are not
 * strictly ordered under load, so a 2 ms sleep can beat a 0 ms window.
 */
const outlastTheWindow = () => new Promise((resolve) => setTimeout(resolve, 25));

/** Resolves when `gate()` is called: lets a test decide when a handler finishes. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const servers: MCPServer[] = [];
function server(options: ConstructorParameters<typeof MCPServer>[1] = {}): MCPServer {
  const mcp = new MCPServer("tasks-test", {
    logger: silentLogger,
    tasks: serverTasks({ immediateResultMs: 20 }),
    ...options,
  });
  servers.push(mcp);
  return mcp;
}
afterEach(() => {
  servers.length = 0;
});

async function call(
  mcp: MCPServer,
  method: string,
  params: Record<string, unknown>,
  caps: ClientCapabilities = TASKS,
) {
  return mcp.dispatch(request(method, params, caps));
}

/** Polls tasks/get until `until` holds (bounded: 3 s). */
async function waitFor(mcp: MCPServer, taskId: string, until: (task: Record<string, unknown>) => boolean) {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const task = resultOf(await call(mcp, "tasks/get", { taskId }));
    if (until(task)) return task;
    if (Date.now() > deadline) throw new Error(`task never got there: ${JSON.stringify(task)}`);
    await outlastTheWindow();
  }
}

describe("MCPServer tasks: creation and the inline shortcut", () => {
  it("advertises the extension in server/discover only once a task-capable tool exists", async () => {
    const mcp = server();
    mcp.tool("plain", {}, () => "ok");
    const before = resultOf(await call(mcp, "server/discover", {}));
    expect((before.capabilities as Record<string, unknown>).extensions).toBeUndefined();
    mcp.tool("slow", { task: "optional" }, () => "ok");
    const after = resultOf(await call(mcp, "server/discover", {}));
    expect((after.capabilities as Record<string, unknown>).extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect((after.capabilities as Record<string, unknown>).tasks).toBeUndefined();
  });

  it("answers with a flat CreateTaskResult when the call outlasts immediateResultMs, readable at once", async () => {
    const mcp = server({
      tasks: serverTasks({ immediateResultMs: 10, ttlMs: 120_000, pollIntervalMs: 250 }),
    });
    const finish = gate();
    mcp.tool("slow", { task: "optional" }, async () => {
      await finish.opened;
      return "done";
    });
    const created = resultOf(await call(mcp, "tools/call", { name: "slow", arguments: {} }));
    expect(Object.keys(created).sort()).toEqual(
      [
        "_meta",
        "createdAt",
        "lastUpdatedAt",
        "pollIntervalMs",
        "resultType",
        "status",
        "taskId",
        "ttlMs",
      ].sort(),
    );
    expect(created).toMatchObject({
      resultType: "task",
      status: "working",
      ttlMs: 120_000,
      pollIntervalMs: 250,
    });
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    const taskId = created.taskId as string;
    const working = resultOf(await call(mcp, "tasks/get", { taskId }));
    expect(working).toMatchObject({ resultType: "complete", taskId, status: "working" });
    expect(working.result).toBeUndefined();
    finish.open();
    const done = await waitFor(mcp, taskId, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "done" }] });
    expect(describeTaskProblem(done)).toBeUndefined();
    expect(JSON.stringify(done)).not.toContain("related-task");
  });

  it("answers inline when the call finishes within the window, as without tasks", async () => {
    const mcp = server();
    mcp.tool("quick", { task: "optional" }, () => "fast");
    const result = resultOf(await call(mcp, "tools/call", { name: "quick", arguments: {} }));
    expect(result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "fast" }] });
    expect(result.taskId).toBeUndefined();
  });

  it("never creates a task for a request that did not declare the extension (optional runs inline)", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    mcp.tool("slow", { task: "optional" }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return "inline";
    });
    const result = resultOf(await call(mcp, "tools/call", { name: "slow", arguments: {} }, {}));
    expect(result).toMatchObject({ resultType: "complete", content: [{ text: "inline" }] });
  });

  it("refuses a task-required tool to a non-declaring request with -32021 before the handler runs", async () => {
    const mcp = server();
    let ran = false;
    mcp.tool("job", { task: "required" }, () => {
      ran = true;
      return "x";
    });
    const error = errorOf(await call(mcp, "tools/call", { name: "job", arguments: {} }, {}));
    expect(error.code).toBe(ErrorCode.MissingRequiredClientCapability);
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    expect(ran).toBe(false);
  });

  it("ignores a legacy `task` param: a sync tool stays sync", async () => {
    const mcp = server();
    mcp.tool("greet", {}, () => "hi");
    const result = resultOf(
      await call(mcp, "tools/call", {
        name: "greet",
        arguments: {},
        task: { ttl: 60_000, pollInterval: 100 },
      }),
    );
    expect(result).toMatchObject({ resultType: "complete", content: [{ text: "hi" }] });
  });

  it("answers inline while the store is full of running tasks, then makes tasks again once one finishes", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0, maxTasks: 1 }) });
    const finish = gate();
    mcp.tool("slow", { task: "required" }, async () => {
      await finish.opened;
      return "late";
    });
    const first = resultOf(await call(mcp, "tools/call", { name: "slow", arguments: {} }));
    expect(first.resultType).toBe("task");
    const inline = call(mcp, "tools/call", { name: "slow", arguments: {} });
    finish.open();
    expect(resultOf(await inline)).toMatchObject({ resultType: "complete", content: [{ text: "late" }] });
    await waitFor(mcp, first.taskId as string, (t) => t.status === "completed");
    const again = resultOf(await call(mcp, "tools/call", { name: "slow", arguments: {} }));
    expect(again.resultType).toBe("complete");
  });

  it("holds each principal to maxTasksPerPrincipal: alice at her cap answers inline, bob still gets tasks", async () => {
    const mcp = server({
      tasks: serverTasks({ immediateResultMs: 0, maxTasks: 10, maxTasksPerPrincipal: 2 }),
    });
    const finish = gate();
    mcp.tool("slow", { task: "required" }, async () => {
      await finish.opened;
      return "late";
    });
    const alice = { clientId: "app", subject: "alice", scopes: [], token: "t-a" };
    const bob = { clientId: "app", subject: "bob", scopes: [], token: "t-b" };
    const slow = (authInfo: typeof alice) =>
      mcp.dispatch(request("tools/call", { name: "slow", arguments: {} }, TASKS), { authInfo });
    expect(resultOf(await slow(alice)).resultType).toBe("task");
    expect(resultOf(await slow(alice)).resultType).toBe("task");
    const inline = slow(alice);
    expect(resultOf(await slow(bob)).resultType).toBe("task");
    expect(resultOf(await slow(bob)).resultType).toBe("task");
    const anonymous = resultOf(await call(mcp, "tools/call", { name: "slow", arguments: {} }));
    expect(anonymous.resultType).toBe("task");
    finish.open();
    expect(resultOf(await inline)).toMatchObject({ resultType: "complete", content: [{ text: "late" }] });
  });

  it("a principal binder that throws fails the call before the tool runs: no work is left behind", async () => {
    const mcp = server({
      requestStateSecurity: new RequestStateSecurity(
        { keys: ["k".repeat(32)] },
        {
          bindPrincipal: () => {
            throw new McpError(ErrorCode.InvalidRequest, "no principal for this caller");
          },
        },
      ),
    });
    let ran = 0;
    mcp.tool("slow", { task: "optional" }, async () => {
      ran++;
      await outlastTheWindow();
      return "late";
    });
    expect(errorOf(await call(mcp, "tools/call", { name: "slow", arguments: {} }))).toMatchObject({
      code: ErrorCode.InvalidRequest,
      message: "no principal for this caller",
    });
    await outlastTheWindow();
    expect(ran).toBe(0);
  });

  it("still lets the request's cancel reach a call answering inline because the store is full", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 10, maxTasks: 1 }) });
    const signals: AbortSignal[] = [];
    mcp.tool("forever", { task: "optional" }, (_args, ctx) => {
      signals.push(ctx.signal);
      return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped")));
    });
    expect(resultOf(await call(mcp, "tools/call", { name: "forever", arguments: {} })).resultType).toBe(
      "task",
    );
    const cancel = new AbortController();
    const inline = mcp.dispatch(request("tools/call", { name: "forever", arguments: {} }, TASKS), {
      signal: cancel.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 40));
    cancel.abort();
    expect(await inline).toBeUndefined();
    expect(signals.map((signal) => signal.aborted)).toEqual([false, true]);
  });
});

describe("MCPServer tasks: outcomes", () => {
  it("a tool error completes the task with isError; a JSON-RPC error fails it with that error", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    mcp.tool("tool_error", { task: "optional" }, async () => {
      await outlastTheWindow();
      throw new ToolError("bad input");
    });
    mcp.tool("protocol_error", { task: "optional" }, async () => {
      await outlastTheWindow();
      throw new McpError(4290, "quota exhausted", { retryAfter: 30 });
    });
    const a = resultOf(await call(mcp, "tools/call", { name: "tool_error", arguments: {} }));
    const completed = await waitFor(mcp, a.taskId as string, (t) => t.status !== "working");
    expect(completed).toMatchObject({
      status: "completed",
      result: { isError: true, content: [{ text: "bad input" }] },
    });
    const b = resultOf(await call(mcp, "tools/call", { name: "protocol_error", arguments: {} }));
    const failed = await waitFor(mcp, b.taskId as string, (t) => t.status !== "working");
    expect(failed).toMatchObject({
      status: "failed",
      error: { code: 4290, message: "quota exhausted", data: { retryAfter: 30 } },
      statusMessage: "Tool execution failed: quota exhausted",
    });
    expect(failed.result).toBeUndefined();
  });

  it("a retired code never reaches the wire through a task either: -32002 fails it as -32602", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    mcp.tool("lookup", { task: "optional" }, async () => {
      await outlastTheWindow();
      throw new McpError(ErrorCode.LegacyResourceNotFound, "Resource not found", { uri: "x://gone" });
    });
    const created = resultOf(await call(mcp, "tools/call", { name: "lookup", arguments: {} }));
    const failed = await waitFor(mcp, created.taskId as string, (t) => t.status !== "working");
    expect(failed.error).toEqual({ code: -32602, message: "Resource not found", data: { uri: "x://gone" } });
  });

  it("an invalid result fails the task with a sanitized -32603 and logs why", async () => {
    const logger = recordingLogger();
    const mcp = server({ logger, tasks: serverTasks({ immediateResultMs: 0 }) });
    mcp.tool("broken", { task: "optional" }, async () => {
      await outlastTheWindow();
      return { content: [], isError: "yes" } as never;
    });
    const created = resultOf(await call(mcp, "tools/call", { name: "broken", arguments: {} }));
    const failed = await waitFor(mcp, created.taskId as string, (t) => t.status !== "working");
    expect(failed.error).toEqual({
      code: ErrorCode.InternalError,
      message: "Handler returned an invalid result",
    });
    expect(logger.lines.some((line) => line.includes("invalid result"))).toBe(true);
  });

  it.each([
    ["a malformed input request", { region: { method: "tools/call" } }],
    [
      "a valid one under the key __proto__",
      JSON.parse(
        '{"__proto__":{"method":"elicitation/create","params":{"mode":"form","message":"Region?","requestedSchema":{"type":"object","properties":{}}}}}',
      ),
    ],
  ])(
    "a task that asks with %s fails with -32603, asking the client nothing",
    async (_label, inputRequests) => {
      const logger = recordingLogger();
      const mcp = server({ logger, tasks: serverTasks({ immediateResultMs: 0 }) });
      mcp.tool("asks-badly", { task: "optional" }, async () => {
        await outlastTheWindow();
        return { resultType: "input_required", inputRequests } as never;
      });
      const created = resultOf(
        await call(mcp, "tools/call", { name: "asks-badly", arguments: {} }, TASKS_AND_FORMS),
      );
      const failed = await waitFor(mcp, created.taskId as string, (t) => t.status !== "working");
      expect(failed.status).toBe("failed");
      expect(failed.inputRequests).toBeUndefined();
      expect(failed.error).toEqual({
        code: ErrorCode.InternalError,
        message: "Handler returned an invalid result",
      });
    },
  );

  it("tasks/cancel acks empty, settles to cancelled, aborts the handler's signal, and is idempotent", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    let aborted = false;
    mcp.tool("forever", { task: "optional" }, (_args, ctx) => {
      return new Promise((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
          resolve("finished anyway");
        });
      });
    });
    const { taskId } = resultOf(await call(mcp, "tools/call", { name: "forever", arguments: {} }));
    const ack = resultOf(await call(mcp, "tasks/cancel", { taskId }));
    expect(Object.keys(ack).sort()).toEqual(["_meta", "resultType"]);
    expect(ack.resultType).toBe("complete");
    expect(aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const task = resultOf(await call(mcp, "tasks/get", { taskId }));
    expect(task).toMatchObject({ status: "cancelled", statusMessage: "Cancelled by the client" });
    expect(task.result).toBeUndefined();
    expect(resultOf(await call(mcp, "tasks/cancel", { taskId })).resultType).toBe("complete");
  });

  it("cancelling the request during the window cancels the work; after the task exists it does not", async () => {
    const runner = serverTasks({ immediateResultMs: 30 }) as TaskService;
    const mcp = server({ tasks: runner });
    const signals: AbortSignal[] = [];
    mcp.tool("watch", { task: "optional" }, (_args, ctx) => {
      signals.push(ctx.signal);
      return new Promise(() => {});
    });
    const early = new AbortController();
    const pending = mcp.dispatch(request("tools/call", { name: "watch", arguments: {} }, TASKS), {
      signal: early.signal,
    });
    early.abort();
    expect(await pending).toBeUndefined();
    expect(signals[0]?.aborted).toBe(true);
    // No task was made for it: no client could ever have learned its id.
    expect(runner.store.size).toBe(0);
    // A request already cancelled when the call starts: the handler sees a fired signal at once.
    const gone = new AbortController();
    gone.abort();
    expect(
      await mcp.dispatch(request("tools/call", { name: "watch", arguments: {} }, TASKS), {
        signal: gone.signal,
      }),
    ).toBeUndefined();
    expect(signals.at(-1)?.aborted).toBe(true);
    signals.length = 1;
    const late = new AbortController();
    const created = resultOf(
      await mcp.dispatch(request("tools/call", { name: "watch", arguments: {} }, TASKS), {
        signal: late.signal,
      }),
    );
    late.abort();
    expect(created.resultType).toBe("task");
    expect(signals[1]?.aborted).toBe(false);
    await call(mcp, "tasks/cancel", { taskId: created.taskId });
    expect(signals[1]?.aborted).toBe(true);
  });

  it("ctx.task shows the task id once it exists and carries the status message to tasks/get", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    const finish = gate();
    const ids: (string | undefined)[] = [];
    mcp.tool("report", { task: "optional" }, async (_args, ctx) => {
      ctx.task?.setStatusMessage("Warming up");
      ids.push(ctx.task?.taskId);
      await finish.opened;
      ids.push(ctx.task?.taskId);
      return "ok";
    });
    mcp.tool("plain", {}, (_args, ctx) => String(ctx.task === undefined));
    const created = resultOf(await call(mcp, "tools/call", { name: "report", arguments: {} }));
    expect(created.statusMessage).toBe("Warming up");
    finish.open();
    await waitFor(mcp, created.taskId as string, (t) => t.status === "completed");
    expect(ids).toEqual([undefined, created.taskId]);
    const plain = resultOf(await call(mcp, "tools/call", { name: "plain", arguments: {} }));
    expect(plain.content).toEqual([{ type: "text", text: "true" }]);
  });
});

describe("MCPServer tasks: input during a task", () => {
  it("parks on input_required, resumes with tasks/update through the same handler, and completes", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    const states: (string | undefined)[] = [];
    mcp.tool(
      "provision",
      { task: "optional", input: z.object({ name: z.string() }) },
      async ({ name }, ctx) => {
        states.push(ctx.requestState);
        const answer = inputResponse(ctx, "region");
        if (answer.kind !== "accept") {
          await outlastTheWindow();
          return inputRequired({ inputRequests: { region: ASK_REGION }, requestState: "asked-once" });
        }
        return `Provisioned ${name} in ${String(answer.content?.region)}.`;
      },
    );
    const created = resultOf(
      await call(mcp, "tools/call", { name: "provision", arguments: { name: "orders" } }, TASKS_AND_FORMS),
    );
    const taskId = created.taskId as string;
    const asking = await waitFor(mcp, taskId, (t) => t.status === "input_required");
    expect(asking.inputRequests).toEqual({ region: ASK_REGION });
    expect(asking.requestState).toBeUndefined();
    const ack = resultOf(
      await call(mcp, "tasks/update", { taskId, inputResponses: { region: REGION, stray: { bogus: true } } }),
    );
    expect(ack.resultType).toBe("complete");
    const done = await waitFor(mcp, taskId, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ content: [{ text: "Provisioned orders in eu-west-1." }] });
    // The plaintext state stayed server-side and came back to the handler on re-entry.
    expect(states).toEqual([undefined, "asked-once"]);
  });

  it("a second round re-uses no key: an answer to the first round cannot satisfy the second", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    mcp.tool("twice", { task: "optional" }, async (_args, ctx) => {
      await outlastTheWindow();
      const round = Number(ctx.requestState ?? "0");
      if (round < 2)
        return inputRequired({ inputRequests: { region: ASK_REGION }, requestState: String(round + 1) });
      return `regions answered ${round} times`;
    });
    const { taskId } = resultOf(
      await call(mcp, "tools/call", { name: "twice", arguments: {} }, TASKS_AND_FORMS),
    );
    const first = await waitFor(mcp, taskId as string, (t) => t.status === "input_required");
    expect(Object.keys(first.inputRequests as object)).toEqual(["region"]);
    await call(mcp, "tasks/update", { taskId, inputResponses: { region: REGION } });
    const second = await waitFor(
      mcp,
      taskId as string,
      (t) => t.status === "input_required" && !("region" in (t.inputRequests as object)),
    );
    expect(Object.keys(second.inputRequests as object)).toEqual(["region#2"]);
    await call(mcp, "tasks/update", { taskId, inputResponses: { region: REGION } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(resultOf(await call(mcp, "tasks/get", { taskId })).status).toBe("input_required");
    await call(mcp, "tasks/update", { taskId, inputResponses: { "region#2": REGION } });
    const done = await waitFor(mcp, taskId as string, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ content: [{ text: "regions answered 2 times" }] });
  });

  it("refuses a malformed answer to an outstanding key with -32602 and applies nothing", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    mcp.tool("ask", { task: "optional" }, async (_args, ctx) => {
      await outlastTheWindow();
      if (inputResponse(ctx, "a").kind === "missing") {
        return inputRequired({ inputRequests: { a: ASK_REGION, b: ASK_REGION } });
      }
      return "answered";
    });
    const { taskId } = resultOf(
      await call(mcp, "tools/call", { name: "ask", arguments: {} }, TASKS_AND_FORMS),
    );
    await waitFor(mcp, taskId as string, (t) => t.status === "input_required");
    const error = errorOf(
      await call(mcp, "tasks/update", { taskId, inputResponses: { a: REGION, b: { action: "maybe" } } }),
    );
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain("inputResponses.b");
    const task = resultOf(await call(mcp, "tasks/get", { taskId }));
    expect(Object.keys(task.inputRequests as object)).toEqual(["a", "b"]);
    const notObject = errorOf(await call(mcp, "tasks/update", { taskId, inputResponses: [] }));
    expect(notObject.code).toBe(ErrorCode.InvalidParams);
  });

  it("asks inline (a plain MRTR round, sealed) when the question comes within the window, then becomes a task", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 20 }) });
    mcp.tool("compose", { task: "required" }, async (_args, ctx) => {
      const answer = inputResponse(ctx, "region");
      if (answer.kind !== "accept")
        return inputRequired({ inputRequests: { region: ASK_REGION }, requestState: "r1" });
      await new Promise((resolve) => setTimeout(resolve, 60));
      return `Deploying to ${String(answer.content?.region)} (${ctx.requestState})`;
    });
    const round1 = resultOf(
      await call(mcp, "tools/call", { name: "compose", arguments: {} }, TASKS_AND_FORMS),
    );
    expect(round1.resultType).toBe("input_required");
    expect(round1.taskId).toBeUndefined();
    expect(round1.requestState).toMatch(/^v1\./);
    const round2 = resultOf(
      await call(
        mcp,
        "tools/call",
        {
          name: "compose",
          arguments: {},
          inputResponses: { region: REGION },
          requestState: round1.requestState,
        },
        TASKS_AND_FORMS,
      ),
    );
    expect(round2).toMatchObject({ resultType: "task", status: "working" });
    expect(round2.requestState).toBeUndefined();
    const done = await waitFor(mcp, round2.taskId as string, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ content: [{ text: "Deploying to eu-west-1 (r1)" }] });
  });

  it("re-enters after a state-only round without asking the client anything", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    mcp.tool("poller", { task: "optional" }, async (_args, ctx) => {
      await outlastTheWindow();
      const seen = Number(ctx.requestState ?? "0");
      return seen < 2 ? inputRequired({ requestState: String(seen + 1) }) : `ready after ${seen} checks`;
    });
    const { taskId } = resultOf(await call(mcp, "tools/call", { name: "poller", arguments: {} }));
    const done = await waitFor(mcp, taskId as string, (t) => t.status !== "working");
    expect(done).toMatchObject({
      status: "completed",
      result: { content: [{ text: "ready after 2 checks" }] },
    });
  });

  it("re-enters with no answers smuggled through an own __proto__ key of the original params", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    const seen: unknown[] = [];
    mcp.tool("poller", { task: "optional" }, async (_args, ctx) => {
      await outlastTheWindow();
      seen.push(ctx.inputResponses);
      return ctx.requestState === undefined ? inputRequired({ requestState: "1" }) : "ready";
    });
    const params = JSON.parse(
      `{"name":"poller","arguments":{},"__proto__":{"inputResponses":{"x":${JSON.stringify(REGION)}}}}`,
    ) as Record<string, unknown>;
    const { taskId } = resultOf(await call(mcp, "tools/call", params));
    expect(await waitFor(mcp, taskId as string, (t) => t.status !== "working")).toMatchObject({
      status: "completed",
    });
    expect(seen).toEqual([undefined, undefined]);
  });

  it("runs resolvers inside a task: the dependency form needs no change", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    const askRegion = resolver("region", () => elicit("Which region?", z.object({ region: z.string() })));
    mcp.tool("resolved", { task: "optional", resolve: { region: askRegion } }, async (_args, { region }) => {
      await outlastTheWindow();
      return `resolved ${region.region}`;
    });
    const created = resultOf(
      await call(mcp, "tools/call", { name: "resolved", arguments: {} }, TASKS_AND_FORMS),
    );
    // The resolver asks at once, inside the window: an inline MRTR round.
    expect(created.resultType).toBe("input_required");
    const key = Object.keys(created.inputRequests as object)[0] as string;
    const task = resultOf(
      await call(
        mcp,
        "tools/call",
        {
          name: "resolved",
          arguments: {},
          inputResponses: { [key]: REGION },
          requestState: created.requestState,
        },
        TASKS_AND_FORMS,
      ),
    );
    expect(task.resultType).toBe("task");
    const done = await waitFor(mcp, task.taskId as string, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ content: [{ text: "resolved eu-west-1" }] });
  });

  it("fails the task with -32021 when it would ask for something the client did not declare", async () => {
    const mcp = server({ tasks: serverTasks({ immediateResultMs: 0 }) });
    mcp.tool("sampler", { task: "optional" }, async () => {
      await outlastTheWindow();
      return inputRequired({ inputRequests: { llm: samplingRequest({ prompt: "hi", maxTokens: 5 }) } });
    });
    const { taskId } = resultOf(
      await call(mcp, "tools/call", { name: "sampler", arguments: {} }, TASKS_AND_FORMS),
    );
    const failed = await waitFor(mcp, taskId as string, (t) => t.status !== "working");
    expect(failed).toMatchObject({
      status: "failed",
      error: { code: ErrorCode.MissingRequiredClientCapability },
    });
  });
});

describe("MCPServer tasks: the tasks/* methods", () => {
  it("refuses tasks/* without the extension on the request (-32021) before looking the task up", async () => {
    const mcp = server();
    mcp.tool("slow", { task: "optional" }, () => "x");
    for (const [method, params] of [
      ["tasks/get", { taskId: "nope" }],
      ["tasks/update", { taskId: "nope", inputResponses: {} }],
      ["tasks/cancel", { taskId: "nope" }],
    ] as const) {
      const error = errorOf(await call(mcp, method, params, {}));
      expect(error.code).toBe(ErrorCode.MissingRequiredClientCapability);
      expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    }
  });

  it("answers -32602 for an unknown task and for a missing taskId; tasks/result and tasks/list stay -32601", async () => {
    const mcp = server();
    mcp.tool("slow", { task: "optional" }, () => "x");
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const error = errorOf(await call(mcp, method, { taskId: "tasks-unknown", inputResponses: {} }));
      expect(error).toMatchObject({
        code: ErrorCode.InvalidParams,
        message: "Failed to retrieve task: Task not found",
      });
    }
    expect(errorOf(await call(mcp, "tasks/get", {})).code).toBe(ErrorCode.InvalidParams);
    expect(errorOf(await call(mcp, "tasks/result", { taskId: "x" })).code).toBe(ErrorCode.MethodNotFound);
    expect(errorOf(await call(mcp, "tasks/list", {})).code).toBe(ErrorCode.MethodNotFound);
  });

  it.each([
    ["by default", undefined],
    // Unbinding request state leaves tasks to the authenticated principal (docs/request-state.md).
    [
      "with bindPrincipal: null",
      new RequestStateSecurity({ keys: ["k".repeat(32)] }, { bindPrincipal: null }),
    ],
  ])(
    "keeps a task to its creator %s: another principal gets the same not-found answer",
    async (_, security) => {
      const mcp = server({
        tasks: serverTasks({ immediateResultMs: 0 }),
        ...(security ? { requestStateSecurity: security } : {}),
      });
      mcp.tool("slow", { task: "optional" }, () => new Promise(() => {}));
      const alice = { clientId: "app", subject: "alice", scopes: [], token: "t-a" };
      const bob = { clientId: "app", subject: "bob", scopes: [], token: "t-b" };
      const created = resultOf(
        await mcp.dispatch(request("tools/call", { name: "slow", arguments: {} }, TASKS), {
          authInfo: alice,
        }),
      );
      const get = (authInfo: typeof alice | undefined) =>
        mcp.dispatch(request("tasks/get", { taskId: created.taskId }, TASKS), { authInfo });
      expect(resultOf(await get(alice)).status).toBe("working");
      expect(errorOf(await get(bob)).message).toBe("Failed to retrieve task: Task not found");
      expect(errorOf(await get(undefined)).message).toBe("Failed to retrieve task: Task not found");
      const cancel = await mcp.dispatch(request("tasks/cancel", { taskId: created.taskId }, TASKS), {
        authInfo: bob,
      });
      expect(errorOf(cancel).code).toBe(ErrorCode.InvalidParams);
      expect(resultOf(await get(alice)).status).toBe("working");
    },
  );
});

describe("serverTasks(): the opt-in runner", () => {
  it("a task-capable tool needs a runner, and a runner serves one server", () => {
    const bare = new MCPServer("bare", { logger: silentLogger });
    expect(() => bare.tool("slow", { task: "optional" }, () => "x")).toThrow(
      /declares task support, but this MCPServer runs no tasks: pass `tasks: serverTasks\(\)`/,
    );
    const runner = serverTasks();
    new MCPServer("one", { logger: silentLogger, tasks: runner }).tool("a", { task: "optional" }, () => "x");
    const two = new MCPServer("two", { logger: silentLogger, tasks: runner });
    expect(() => two.tool("b", { task: "optional" }, () => "x")).toThrow(/already serves another server/);
  });

  it("checks its options when made", () => {
    expect(() => serverTasks({ pollIntervalMs: 0 })).toThrow(
      /tasks.pollIntervalMs must be a positive integer/,
    );
    expect(() => serverTasks({ maxTasksPerPrincipal: 1.5 })).toThrow(
      new TypeError("tasks.maxTasksPerPrincipal must be a positive integer"),
    );
  });
});
