// Tasks shared over the events bus (`serverTasks({ shareOverEvents: true })`): a listen stream on one
// instance follows a task that lives on another, for its creator only, through a bus that passes
// events as JSON text like a network channel. Without the option nothing about tasks crosses the bus.
import { describe, expect, it } from "vitest";
import type { ServerEventBus } from "../../../src/server/events.js";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { authenticatedPrincipal } from "../../../src/server/state/principal.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import { MAX_SHARED_TASKS, SharedTaskDirectory } from "../../../src/server/tasks/shared.js";
import type { DetailedTask, JSONRPCNotification } from "../../../src/types/index.js";
import { request, resultOf } from "../../helpers.js";
import { jsonBus } from "../event-bus-helpers.js";
import { ALICE, acknowledged, BOB, listen, settle, TASKS, until } from "./listen-helpers.js";

/** One instance of a fleet: a `job` tool that runs as a task until the test lets it finish. */
function instance(events: ServerEventBus, prefix: string, shareOverEvents = true) {
  const tasks = serverTasks({ immediateResultMs: 0, taskIdPrefix: prefix, shareOverEvents });
  const mcp = new MCPServer("fleet", { logger: silentLogger, events, tasks });
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const signals: AbortSignal[] = [];
  mcp.tool("job", { task: "optional" }, async (_args, ctx) => {
    signals.push(ctx.signal);
    ctx.task?.setStatusMessage("started");
    await finished;
    return "job done";
  });
  return { mcp, finish, tasks, signals };
}

async function createTask(mcp: MCPServer, authInfo = ALICE): Promise<string> {
  const created = resultOf(
    await mcp.dispatch(request("tools/call", { name: "job", arguments: {} }, TASKS), { authInfo }),
  );
  return created.taskId as string;
}

const taskNotes = (seen: JSONRPCNotification[]) =>
  seen.filter((n) => n.method === "notifications/tasks").map((n) => n.params as Record<string, unknown>);

describe("tasks shared over the events bus", () => {
  it("a listen stream on a sibling follows the task to its end, for its creator only", async () => {
    const { bus, published } = jsonBus();
    const a = instance(bus, "a.");
    const b = instance(bus, "b.");
    const taskId = await createTask(a.mcp);
    expect(taskId.startsWith("a.")).toBe(true);
    await settle();
    const alice = listen(b.mcp, { taskIds: [taskId] }, TASKS, ALICE);
    const bob = listen(b.mcp, { taskIds: [taskId] }, TASKS, BOB);
    await settle();
    expect(acknowledged(alice.seen)).toEqual({ taskIds: [taskId] });
    // Someone else's task is not followed: nothing to acknowledge, and the stream ends at once.
    expect(acknowledged(bob.seen)).toEqual({});
    expect(resultOf(await bob.done)).toMatchObject({ resultType: "complete" });

    a.finish();
    await settle();
    const notes = taskNotes(alice.seen);
    expect(notes.at(-1)).toMatchObject({
      _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" },
      taskId,
      status: "completed",
      statusMessage: "started",
      result: { content: [{ type: "text", text: "job done" }] },
    });
    // The stream on `b` carried exactly what `tasks/get` on `a` shows.
    const { _meta: _ignored, ...last } = notes.at(-1) as Record<string, unknown>;
    const got = resultOf(
      await a.mcp.dispatch(request("tasks/get", { taskId }, TASKS), { authInfo: ALICE }),
    ) as Record<string, unknown>;
    const { _meta: _stamp, resultType: _type, ...shown } = got;
    expect(last).toEqual(shown);

    // On the bus: the creation first, then each change, with its creator and expiry.
    const changes = published.map((text) => JSON.parse(text)).filter((event) => event.kind === "taskChanged");
    expect(changes[0]).toMatchObject({ kind: "taskChanged", taskId, task: { status: "working" } });
    expect(changes[0].task.statusMessage).toBeUndefined();
    expect(changes[1].task.statusMessage).toBe("started");
    expect(changes[0].principal).toEqual(expect.any(String));
    expect(changes[0].expiresAt).toBeGreaterThan(Date.now());
    expect(changes.at(-1)).toMatchObject({ task: { status: "completed" } });
    alice.stop();
    await alice.done;
  });

  it("a change the bus delivers again reaches a sibling's stream once", async () => {
    const { bus, published } = jsonBus();
    const a = instance(bus, "a.");
    const b = instance(bus, "b.");
    const taskId = await createTask(a.mcp);
    await settle();
    const alice = listen(b.mcp, { taskIds: [taskId] }, TASKS, ALICE);
    await settle();
    a.finish();
    await settle();
    const heard = taskNotes(alice.seen).length;
    expect(taskNotes(alice.seen).at(-1)).toMatchObject({ taskId, status: "completed" });
    for (const text of published.filter((text) => text.includes('"taskChanged"'))) bus.raw(text);
    await settle();
    expect(taskNotes(alice.seen)).toHaveLength(heard);
    alice.stop();
    await alice.done;
  });

  it("a sibling follows a task only for a token holding the scopes its creating call needed", async () => {
    const { bus, published } = jsonBus();
    const a = instance(bus, "a.");
    const b = instance(bus, "b.");
    // The view an HTTP endpoint hands over once its `requiredScopes` demanded notes:write.
    const http = {
      header: () => null,
      request: () => new Request("http://127.0.0.1/"),
      requiredScopes: ["notes:write"],
    };
    const created = resultOf(
      await a.mcp.dispatch(request("tools/call", { name: "job", arguments: {} }, TASKS), {
        authInfo: ALICE,
        http,
      }),
    );
    const taskId = created.taskId as string;
    await settle();
    const changes = published.map((text) => JSON.parse(text)).filter((event) => event.kind === "taskChanged");
    expect(changes[0]).toMatchObject({ taskId, requiredScopes: ["notes:write"] });
    const narrow = listen(b.mcp, { taskIds: [taskId] }, TASKS, { ...ALICE, scopes: ["notes:read"] });
    const full = listen(b.mcp, { taskIds: [taskId] }, TASKS, {
      ...ALICE,
      scopes: ["notes:read", "notes:write"],
    });
    await settle();
    expect(acknowledged(narrow.seen)).toEqual({});
    expect(acknowledged(full.seen)).toEqual({ taskIds: [taskId] });
    a.finish();
    full.stop();
    await Promise.all([narrow.done, full.done]);
  });

  it("a task its owner dropped to make room is no longer followed anywhere, and sends no more news", async () => {
    const { bus } = jsonBus();
    const servers = ["a.", "b."].map((prefix) => {
      const mcp = new MCPServer("fleet", {
        logger: silentLogger,
        events: bus,
        tasks: serverTasks({
          immediateResultMs: 0,
          taskIdPrefix: prefix,
          maxTasks: 1,
          shareOverEvents: true,
        }),
      });
      mcp.tool("slow", { task: "optional" }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return "slow done";
      });
      return mcp;
    });
    const [a, b] = servers as [MCPServer, MCPServer];
    const start = async () =>
      resultOf(
        await a.dispatch(request("tools/call", { name: "slow", arguments: {} }, TASKS), { authInfo: ALICE }),
      ).taskId as string;
    const first = await start();
    const following = listen(b, { taskIds: [first] }, TASKS, ALICE);
    await until(() => taskNotes(following.seen).length > 0);
    expect(acknowledged(following.seen)).toEqual({ taskIds: [first] });
    expect(taskNotes(following.seen).map((note) => note.status)).toEqual(["completed"]);
    // A second task needs the only slot: the finished first one is dropped.
    await start();
    await settle();
    const late = listen(b, { taskIds: [first] }, TASKS, ALICE);
    await settle();
    expect(acknowledged(late.seen)).toEqual({});
    expect(taskNotes(following.seen)).toHaveLength(1);
    following.stop();
    await following.done;
  });

  it("tasks.close() at shutdown cancels the running tasks, drops them, and siblings stop following", async () => {
    const { bus } = jsonBus();
    const a = instance(bus, "a.");
    const b = instance(bus, "b.");
    const taskId = await createTask(a.mcp);
    await settle();
    const following = listen(b.mcp, { taskIds: [taskId] }, TASKS, ALICE);
    await settle();
    expect(acknowledged(following.seen)).toEqual({ taskIds: [taskId] });
    a.tasks.close();
    expect(a.signals.map((signal) => signal.aborted)).toEqual([true]);
    const gone = await a.mcp.dispatch(request("tasks/get", { taskId }, TASKS), { authInfo: ALICE });
    expect(gone).toMatchObject({
      error: { code: -32602, message: "Failed to retrieve task: Task not found" },
    });
    await settle();
    const late = listen(b.mcp, { taskIds: [taskId] }, TASKS, ALICE);
    await settle();
    expect(acknowledged(late.seen)).toEqual({});
    following.stop();
    late.stop();
    await Promise.all([following.done, late.done]);
  });

  it("without shareOverEvents nothing about tasks crosses the bus, and a sibling follows nothing", async () => {
    const { bus, published } = jsonBus();
    const a = instance(bus, "a.", false);
    const b = instance(bus, "b.", false);
    const taskId = await createTask(a.mcp);
    const stream = listen(b.mcp, { taskIds: [taskId] }, TASKS, ALICE);
    await settle();
    expect(acknowledged(stream.seen)).toEqual({});
    a.finish();
    await settle();
    expect(published.some((text) => text.includes("taskChanged"))).toBe(false);
  });

  it("drops task events that are malformed, stale, or claim the task for another principal", async () => {
    const { bus } = jsonBus();
    const b = instance(bus, "b.");
    const task = (status: string, lastUpdatedAt: string): DetailedTask =>
      ({
        taskId: "x.1",
        status,
        createdAt: "2026-12-01T08:00:00.000Z",
        lastUpdatedAt,
        ttlMs: 60_000,
        pollIntervalMs: 1_000,
        ...(status === "completed" ? { result: { content: [{ type: "text", text: "done" }] } } : {}),
      }) as DetailedTask;
    const send = (event: Record<string, unknown>) => bus.raw(JSON.stringify(event));
    const expiresAt = Date.now() + 60_000;
    const principal = authenticatedPrincipal({ authInfo: ALICE });
    send({
      kind: "taskChanged",
      taskId: "x.1",
      principal,
      expiresAt,
      task: task("working", "2026-12-01T08:00:01.000Z"),
    });
    const alice = listen(b.mcp, { taskIds: ["x.1"] }, TASKS, ALICE);
    await settle();
    expect(acknowledged(alice.seen)).toEqual({ taskIds: ["x.1"] });
    const before = taskNotes(alice.seen).length;
    send({
      kind: "taskChanged",
      taskId: "x.1",
      principal,
      expiresAt,
      task: { taskId: "x.1", status: "done?" },
    });
    send({
      kind: "taskChanged",
      taskId: "x.2",
      principal,
      expiresAt,
      task: task("working", "2026-12-01T08:00:02.000Z"),
    });
    send({
      kind: "taskChanged",
      taskId: "x.1",
      principal,
      expiresAt: "soon",
      task: task("completed", "2026-12-01T08:00:03.000Z"),
    });
    send({
      kind: "taskChanged",
      taskId: "x.1",
      principal: authenticatedPrincipal({ authInfo: BOB }),
      expiresAt,
      task: task("completed", "2026-12-01T08:00:04.000Z"),
    });
    send({
      kind: "taskChanged",
      taskId: "x.1",
      principal,
      expiresAt,
      task: task("working", "2026-12-01T08:00:00.500Z"),
    });
    for (const requiredScopes of ["notes:write", [1], null]) {
      send({
        kind: "taskChanged",
        taskId: "x.1",
        principal,
        requiredScopes,
        expiresAt,
        task: task("completed", "2026-12-01T08:00:04.500Z"),
      });
    }
    await settle();
    expect(taskNotes(alice.seen)).toHaveLength(before);
    send({
      kind: "taskChanged",
      taskId: "x.1",
      principal,
      expiresAt,
      task: task("completed", "2026-12-01T08:00:05.000Z"),
    });
    await settle();
    expect(taskNotes(alice.seen).map((note) => note.status)).toEqual(["completed"]);
    alice.stop();
    await alice.done;
  });
});

describe("SharedTaskDirectory", () => {
  const change = (taskId: string, expiresAt: number, principal?: string) => ({
    taskId,
    expiresAt,
    ...(principal === undefined ? {} : { principal }),
    task: { taskId, status: "working", createdAt: "t", lastUpdatedAt: "t", ttlMs: 1 } as DetailedTask,
  });

  it("forgets a task when it expires, and the oldest when full", () => {
    let now = 1_000;
    const known = new SharedTaskDirectory(() => now);
    expect(known.record(change("t-1", 2_000))).toBe(true);
    expect(known.visible("t-1", { principal: undefined, scopes: undefined })).toBe(true);
    expect(known.visible("t-1", { principal: "someone", scopes: undefined })).toBe(false);
    now = 2_000;
    expect(known.visible("t-1", { principal: undefined, scopes: undefined })).toBe(false);
    for (let i = 0; i <= MAX_SHARED_TASKS; i++) known.record(change(`t-${i + 2}`, 10_000));
    expect(known.visible("t-2", { principal: undefined, scopes: undefined })).toBe(false);
    expect(known.visible("t-3", { principal: undefined, scopes: undefined })).toBe(true);
    expect(known.visible(`t-${MAX_SHARED_TASKS + 2}`, { principal: undefined, scopes: undefined })).toBe(
      true,
    );
  });

  it("passes on a change an at-least-once bus delivers twice only once", () => {
    const known = new SharedTaskDirectory(() => 1_000);
    const at = (status: DetailedTask["status"], statusMessage?: string) => ({
      taskId: "t-1",
      expiresAt: 10_000,
      task: {
        taskId: "t-1",
        status,
        ...(statusMessage === undefined ? {} : { statusMessage }),
        createdAt: "t",
        lastUpdatedAt: "2026-12-01T08:00:01.000Z",
        ttlMs: 1,
      } as DetailedTask,
    });
    expect(known.record(at("working"))).toBe(true);
    expect(known.record(at("working"))).toBe(false);
    // Same millisecond, but news: another message, another status.
    expect(known.record(at("working", "half way"))).toBe(true);
    expect(known.record(at("working", "half way"))).toBe(false);
    expect(known.record(at("completed", "half way"))).toBe(true);
    expect(known.record(at("completed", "half way"))).toBe(false);
    // A duplicate is still no reason to forget the task.
    expect(known.visible("t-1", { principal: undefined, scopes: undefined })).toBe(true);
  });

  it("never passes on a change that would reopen a finished task, even one of the same millisecond", () => {
    const known = new SharedTaskDirectory(() => 1_000);
    const at = (status: DetailedTask["status"], lastUpdatedAt: string) => ({
      taskId: "t-1",
      expiresAt: 10_000,
      task: { taskId: "t-1", status, createdAt: "t", lastUpdatedAt, ttlMs: 1 } as DetailedTask,
    });
    expect(known.record(at("working", "2026-12-01T08:00:01.000Z"))).toBe(true);
    expect(known.record(at("cancelled", "2026-12-01T08:00:01.000Z"))).toBe(true);
    expect(known.record(at("working", "2026-12-01T08:00:01.000Z"))).toBe(false);
    expect(known.record(at("input_required", "2026-12-01T08:00:02.000Z"))).toBe(false);
    // A working change of the same millisecond as another working one still goes through.
    const other = new SharedTaskDirectory(() => 1_000);
    expect(other.record(at("working", "2026-12-01T08:00:01.000Z"))).toBe(true);
    expect(other.record(at("input_required", "2026-12-01T08:00:01.000Z"))).toBe(true);
  });
});
