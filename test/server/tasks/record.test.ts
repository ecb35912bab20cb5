import { afterEach, describe, expect, it, vi } from "vitest";
import { TaskRecord } from "../../../src/server/tasks/record.js";
import { TaskStore } from "../../../src/server/tasks/store.js";
import type { InputRequest } from "../../../src/types/index.js";
import { describeTaskProblem } from "../../../src/types/tasks.js";

/** A task's owner, or a caller, with no scope requirement and no token. */
const owner = (principal: string | undefined) => ({ principal, requiredScopes: [] });
const caller = (principal: string | undefined) => ({ principal, scopes: undefined });

const ASK: InputRequest = {
  method: "elicitation/create",
  params: { mode: "form", message: "Region?", requestedSchema: { type: "object", properties: {} } },
} as InputRequest;
const ACCEPT = { action: "accept", content: { region: "eu" } } as const;

function record(onChange: (r: TaskRecord) => void = () => {}): TaskRecord {
  return new TaskRecord({
    controller: new AbortController(),
    taskId: "t-1",
    now: Date.parse("2026-11-30T10:00:00Z"),
    ttlMs: 60_000,
    pollIntervalMs: 500,
    owner: owner(undefined),
    onChange,
  });
}

describe("TaskRecord", () => {
  it("snapshots a working task with the wire's metadata and no payload", () => {
    const task = record().snapshot();
    expect(task).toEqual({
      taskId: "t-1",
      status: "working",
      createdAt: "2026-11-30T10:00:00.000Z",
      lastUpdatedAt: expect.any(String),
      ttlMs: 60_000,
      pollIntervalMs: 500,
    });
    expect(describeTaskProblem(task)).toBeUndefined();
  });

  it("parks on a round, lists only unanswered keys, and resumes once every answer is in", async () => {
    const task = record();
    const answered = task.ask({ region: ASK, size: ASK });
    expect(Object.keys(task.snapshot().inputRequests ?? {})).toEqual(["region", "size"]);
    task.answer({ region: ACCEPT });
    expect(task.status).toBe("input_required");
    expect(Object.keys(task.snapshot().inputRequests ?? {})).toEqual(["size"]);
    task.answer({ region: { action: "decline" }, nope: ACCEPT });
    expect(Object.keys(task.snapshot().inputRequests ?? {})).toEqual(["size"]);
    task.answer({ size: { action: "decline" } });
    await expect(answered).resolves.toEqual({ region: ACCEPT, size: { action: "decline" } });
    expect(task.status).toBe("working");
    expect(task.snapshot().inputRequests).toBeUndefined();
  });

  it("never reuses a wire key over the task's lifetime, and maps answers back to the handler's keys", async () => {
    const task = record();
    const first = task.ask({ region: ASK });
    task.answer({ region: ACCEPT });
    await first;
    const second = task.ask({ region: ASK, "region#2": ASK });
    const keys = Object.keys(task.snapshot().inputRequests ?? {});
    expect(keys).toEqual(["region#2", "region#2#2"]);
    // A late duplicate of the first round's answer is ignored: "region" is not outstanding.
    expect(task.isOutstanding("region")).toBe(false);
    task.answer({ region: { action: "decline" }, "region#2": ACCEPT, "region#2#2": { action: "cancel" } });
    await expect(second).resolves.toEqual({ region: ACCEPT, "region#2": { action: "cancel" } });
  });

  it("is sticky once terminal: a late completion cannot overwrite a cancellation", async () => {
    const task = record();
    const pending = task.ask({ region: ASK });
    task.cancel("Cancelled by the client");
    await expect(pending).resolves.toBeUndefined();
    expect(task.controller.signal.aborted).toBe(true);
    task.complete({ content: [] });
    task.fail({ code: -32603, message: "late" }, "late");
    task.setStatusMessage("late");
    expect(task.snapshot()).toMatchObject({ status: "cancelled", statusMessage: "Cancelled by the client" });
    expect(task.snapshot().result).toBeUndefined();
  });

  it("carries result once completed and error once failed", () => {
    const done = record();
    done.complete({ content: [{ type: "text", text: "ok" }], resultType: "complete" });
    expect(done.snapshot()).toMatchObject({ status: "completed", result: { content: [{ text: "ok" }] } });
    const failed = record();
    failed.fail({ code: -32000, message: "boom", data: { x: 1 } }, "Tool execution failed: boom");
    expect(failed.snapshot()).toMatchObject({
      status: "failed",
      error: { code: -32000, message: "boom", data: { x: 1 } },
      statusMessage: "Tool execution failed: boom",
    });
    expect(describeTaskProblem(failed.snapshot())).toBeUndefined();
  });

  it("reports every change (what status notifications hang on)", () => {
    const seen: string[] = [];
    const task = record((r) => seen.push(r.status));
    task.setStatusMessage("half way");
    void task.ask({ region: ASK });
    task.answer({ region: ACCEPT });
    task.complete({ content: [] });
    expect(seen).toEqual(["working", "input_required", "working", "completed"]);
  });
});

describe("TaskStore", () => {
  afterEach(() => vi.useRealTimers());

  it("rejects bad options at construction", () => {
    expect(() => new TaskStore({ ttlMs: 0 })).toThrow(/ttlMs must be a positive integer/);
    expect(() => new TaskStore({ pollIntervalMs: 1.5 })).toThrow(/pollIntervalMs/);
    expect(() => new TaskStore({ immediateResultMs: -1 })).toThrow(
      /immediateResultMs must be a non-negative/,
    );
    expect(() => new TaskStore({ maxTasks: 0 })).toThrow(/maxTasks/);
    // Longer than a timer can wait: Node would fire it after 1 ms and drop the task at once.
    expect(() => new TaskStore({ ttlMs: 2_592_000_000 })).toThrow(
      new TypeError("tasks.ttlMs must be a positive integer of at most 2147483647"),
    );
    expect(() => new TaskStore({ immediateResultMs: 2_147_483_648 })).toThrow(
      new TypeError("tasks.immediateResultMs must be a non-negative integer of at most 2147483647"),
    );
    expect(new TaskStore({ ttlMs: 2_147_483_647 }).ttlMs).toBe(2_147_483_647);
    expect(new TaskStore({ immediateResultMs: 0 }).immediateResultMs).toBe(0);
    for (const taskIdPrefix of ["", "a b", "x".repeat(33), "é."]) {
      expect(() => new TaskStore({ taskIdPrefix })).toThrow(/taskIdPrefix must be 1-32 characters/);
    }
  });

  it("prefixes task ids with the instance's tag, for routing", () => {
    const store = new TaskStore({ taskIdPrefix: "eu-2." });
    const task = store.create(owner(undefined), new AbortController());
    expect(task.taskId).toMatch(/^eu-2\.[0-9a-f-]{36}$/);
    store.clear();
  });

  it("mints unguessable ids and hides a task from anyone but its creator", () => {
    const store = new TaskStore();
    const a = store.create(owner('["client",null,"alice"]'), new AbortController());
    const b = store.create(owner(undefined), new AbortController());
    expect(a.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.taskId).not.toBe(b.taskId);
    expect(store.get(a.taskId, caller('["client",null,"alice"]'))).toBe(a);
    for (const who of ['["client",null,"bob"]', undefined]) {
      expect(() => store.get(a.taskId, caller(who))).toThrow("Failed to retrieve task: Task not found");
    }
    expect(() => store.get("no-such-task", caller(undefined))).toThrow(
      "Failed to retrieve task: Task not found",
    );
    store.clear();
  });

  it("expires a task at its TTL: a running one is cancelled (its work aborted), then forgotten", () => {
    vi.useFakeTimers();
    const store = new TaskStore({ ttlMs: 1_000 });
    const controller = new AbortController();
    const task = store.create(owner(undefined), controller);
    vi.advanceTimersByTime(999);
    expect(store.get(task.taskId, caller(undefined)).status).toBe("working");
    vi.advanceTimersByTime(1);
    expect(controller.signal.aborted).toBe(true);
    expect(task.snapshot()).toMatchObject({ status: "cancelled", statusMessage: "The task expired" });
    expect(() => store.get(task.taskId, caller(undefined))).toThrow(/Task not found/);
    expect(store.size).toBe(0);
  });

  it("makes room by dropping the oldest finished task, and refuses when every task still runs", () => {
    const store = new TaskStore({ maxTasks: 2 });
    const first = store.create(owner(undefined), new AbortController());
    const second = store.create(owner(undefined), new AbortController());
    expect(store.makeRoom(undefined)).toBe(false);
    second.complete({ content: [] });
    first.complete({ content: [] });
    expect(store.makeRoom(undefined)).toBe(true);
    expect(() => store.get(first.taskId, caller(undefined))).toThrow(/Task not found/);
    expect(store.get(second.taskId, caller(undefined)).status).toBe("completed");
    store.clear();
  });

  it("makes room only from the caller's own finished tasks: another's result stays until its TTL", () => {
    const store = new TaskStore({ maxTasks: 2 });
    const alices = store.create(owner("alice"), new AbortController());
    store.create(owner("bob"), new AbortController());
    alices.complete({ content: [] });
    expect(store.makeRoom("bob")).toBe(false);
    expect(store.get(alices.taskId, caller("alice")).status).toBe("completed");
    expect(store.makeRoom("alice")).toBe(true);
    expect(() => store.get(alices.taskId, caller("alice"))).toThrow(/Task not found/);
    store.clear();
  });

  it("holds an authenticated principal to maxTasksPerPrincipal, freeing a slot from its own finished tasks", () => {
    const store = new TaskStore({ maxTasks: 10, maxTasksPerPrincipal: 2 });
    const first = store.create(owner("alice"), new AbortController());
    store.create(owner("alice"), new AbortController());
    expect(store.makeRoom("alice")).toBe(false);
    expect(store.makeRoom("bob")).toBe(true);
    store.create(owner("bob"), new AbortController());
    // Anonymous callers cannot be told apart: only the global bound applies to them.
    for (let i = 0; i < 3; i++) store.create(owner(undefined), new AbortController());
    expect(store.makeRoom(undefined)).toBe(true);
    first.complete({ content: [] });
    expect(store.makeRoom("alice")).toBe(true);
    expect(() => store.get(first.taskId, caller("alice"))).toThrow(/Task not found/);
    store.create(owner("alice"), new AbortController());
    expect(store.makeRoom("alice")).toBe(false);
    store.clear();
    expect(store.makeRoom("alice")).toBe(true);
  });

  it("defaults maxTasksPerPrincipal to a tenth of maxTasks (at least 1)", () => {
    expect(new TaskStore().maxTasksPerPrincipal).toBe(100);
    expect(new TaskStore({ maxTasks: 5 }).maxTasksPerPrincipal).toBe(1);
    expect(new TaskStore({ maxTasks: 25 }).maxTasksPerPrincipal).toBe(3);
    expect(() => new TaskStore({ maxTasksPerPrincipal: 0 })).toThrow(/maxTasksPerPrincipal/);
  });

  it("clear() cancels what still runs", () => {
    const store = new TaskStore();
    const controller = new AbortController();
    store.create(owner(undefined), controller);
    store.clear();
    expect(controller.signal.aborted).toBe(true);
    expect(store.size).toBe(0);
  });
});

describe("describeTaskProblem", () => {
  const base = {
    taskId: "t-1",
    status: "working",
    createdAt: "2026-11-30T10:00:00.000Z",
    lastUpdatedAt: "2026-11-30T10:00:01.000Z",
    ttlMs: 60_000,
  };

  it.each([
    ["not an object", [base], "a task must be a JSON object"],
    ["an empty taskId", { ...base, taskId: "" }, "taskId must be a non-empty string"],
    ["an unknown status", { ...base, status: "paused" }, "status must be one of"],
    ["no createdAt", { ...base, createdAt: 7 }, "createdAt must be an ISO 8601 string"],
    ["no lastUpdatedAt", { ...base, lastUpdatedAt: undefined }, "lastUpdatedAt must be an ISO 8601 string"],
    ["a zero ttlMs", { ...base, ttlMs: 0 }, "ttlMs must be null or a positive integer"],
    [
      "a fractional pollIntervalMs",
      { ...base, pollIntervalMs: 1.5 },
      "pollIntervalMs must be a positive integer",
    ],
    ["a zero pollIntervalMs", { ...base, pollIntervalMs: 0 }, "pollIntervalMs must be a positive integer"],
    [
      "a negative pollIntervalMs",
      { ...base, pollIntervalMs: -5 },
      "pollIntervalMs must be a positive integer",
    ],
    ["a non-string statusMessage", { ...base, statusMessage: 3 }, "statusMessage must be a string"],
    [
      "input_required without requests",
      { ...base, status: "input_required", inputRequests: {} },
      "an input_required task needs a non-empty inputRequests map",
    ],
    [
      "completed without a result",
      { ...base, status: "completed" },
      "a completed task needs a result object",
    ],
    [
      "failed without a code",
      { ...base, status: "failed", error: { message: "x" } },
      "a failed task needs an error with a numeric code and a message",
    ],
  ])("names what is wrong with %s", (_label, task, problem) => {
    expect(describeTaskProblem(task)).toContain(problem);
  });

  it("received by a client, takes any finite pollIntervalMs (the client clamps it), nothing else", () => {
    for (const pollIntervalMs of [0, 250.5, -5, 1]) {
      expect(describeTaskProblem({ ...base, pollIntervalMs }, "receives")).toBeUndefined();
    }
    for (const pollIntervalMs of ["250", null, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(describeTaskProblem({ ...base, pollIntervalMs }, "receives")).toBe(
        "pollIntervalMs must be a finite number",
      );
    }
    expect(describeTaskProblem({ ...base, pollIntervalMs: 0 }, "emits")).toBe(
      "pollIntervalMs must be a positive integer",
    );
  });

  it("takes a task whose ttlMs is null (no expiry) and a cancelled one with no payload", () => {
    expect(describeTaskProblem({ ...base, ttlMs: null })).toBeUndefined();
    expect(describeTaskProblem({ ...base, status: "cancelled" })).toBeUndefined();
  });
});
