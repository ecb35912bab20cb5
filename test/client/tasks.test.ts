/**
 * Client.callTool and waitForTask driving tasks (io.modelcontextprotocol/tasks) against a
 * hand-written server: completion, input rounds, failure, cancellation, abort and callback failure.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { InputRequiredRoundsExceededError, TaskCancelledError } from "../../src/client/errors.js";
import type { ClientOptions } from "../../src/client/options.js";
import {
  ConnectionClosedError,
  ProtocolError,
  RequestAbortedError,
  RequestTimeoutError,
} from "../../src/shared/errors.js";
import type { DetailedTask, ElicitResult } from "../../src/types/index.js";
import { McpError } from "../../src/types/index.js";
import { ELICIT, SAMPLE, text, textOf, unansweredElicitation } from "./stubs.js";
import { TASK_ID, task, taskServer } from "./task-stubs.js";

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function connect(server: Parameters<typeof Client.connect>[0], options: ClientOptions = {}) {
  const client = await Client.connect(server, { tasks: true, ...options });
  clients.push(client);
  return client;
}

const accept = (name: string): ElicitResult => ({ action: "accept", content: { name } });

describe("Client.callTool drives a task", () => {
  it("polls a working task to completion and returns the tool's result, isError included", async () => {
    const done = { ...text("exported 3 rows"), isError: true };
    const stub = taskServer([
      { status: "working", statusMessage: "1/3" },
      { status: "working", statusMessage: "1/3" },
      { status: "completed", result: done },
    ]);
    const client = await connect(stub.server);
    const seen: DetailedTask[] = [];
    const result = await client.callTool("export", { rows: 3 }, { onTask: (t) => seen.push(t) });
    expect(result).toMatchObject(done);
    expect(stub.methods()).toEqual(["tools/call", "tasks/get", "tasks/get", "tasks/get"]);
    expect(stub.log.every((entry) => entry.declared)).toBe(true);
    expect(stub.log[1]?.params).toEqual({ taskId: TASK_ID });
    // Created, then each observed change (the statusMessage too), not a repeat; never the envelope.
    expect(seen.map((t) => [t.status, t.statusMessage])).toEqual([
      ["working", undefined],
      ["working", "1/3"],
      ["completed", undefined],
    ]);
    expect(seen[0]).not.toHaveProperty("resultType");
  });

  it("answers each input key once, however often polls repeat it, and sends only new answers", async () => {
    const stub = taskServer((poll, updates): Partial<DetailedTask> => {
      if (poll <= 1) return { status: "input_required", inputRequests: { a: ELICIT } };
      // `a` is still listed while the server digests it; `b` is new.
      if (poll === 2) return { status: "input_required", inputRequests: { a: ELICIT, b: ELICIT } };
      if (updates.length < 2) return { status: "working" };
      return { status: "completed", result: text(JSON.stringify(updates)) };
    });
    const asked: (string | number)[] = [];
    const client = await connect(stub.server, {
      elicitation: (ctx) => {
        asked.push(ctx.requestId);
        return accept(`answer-${ctx.requestId}`);
      },
    });
    const result = await client.callTool("interview");
    expect(asked).toEqual(["a", "b"]);
    expect(stub.updates).toEqual([{ a: accept("answer-a") }, { b: accept("answer-b") }]);
    expect(stub.log.filter((e) => e.method === "tasks/update").map((e) => e.params.taskId)).toEqual([
      TASK_ID,
      TASK_ID,
    ]);
    expect(JSON.parse(textOf(result))).toEqual(stub.updates);
  });

  it("answers the keys of one round concurrently (barrier), in one tasks/update", async () => {
    const stub = taskServer((poll) =>
      poll === 0
        ? { status: "input_required", inputRequests: { x: ELICIT, y: SAMPLE } }
        : { status: "completed", result: text("ok") },
    );
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived = 0;
    const arrive = async () => {
      if (++arrived === 2) release();
      await bothAsked;
    };
    const client = await connect(stub.server, {
      elicitation: async () => {
        await arrive();
        return accept("x");
      },
      sampling: async () => {
        await arrive();
        return { role: "assistant", content: { type: "text", text: "Paris" }, model: "m" };
      },
    });
    await client.callTool("t");
    expect(stub.updates).toHaveLength(1);
    expect(Object.keys(stub.updates[0] ?? {}).sort()).toEqual(["x", "y"]);
  });

  it("a failed task throws the McpError the request itself would have, and is not cancelled", async () => {
    const error = { code: -32602, message: "Unknown region", data: { region: "mars" } };
    const stub = taskServer([{ status: "failed", error }]);
    const client = await connect(stub.server);
    const thrown = (await client.callTool("t").catch((e: unknown) => e)) as McpError;
    expect(thrown).toBeInstanceOf(McpError);
    expect([thrown.code, thrown.message, thrown.data]).toEqual([error.code, error.message, error.data]);
    expect(stub.count("tasks/cancel")).toBe(0);
  });

  it("a cancelled task throws TaskCancelledError with the id and the server's message", async () => {
    const stub = taskServer([{ status: "working" }, { status: "cancelled", statusMessage: "operator stop" }]);
    const client = await connect(stub.server);
    const thrown = (await client.callTool("t").catch((e: unknown) => e)) as TaskCancelledError;
    expect(thrown).toBeInstanceOf(TaskCancelledError);
    expect([thrown.taskId, thrown.statusMessage]).toEqual([TASK_ID, "operator stop"]);
    expect(stub.count("tasks/cancel")).toBe(0);
  });

  it("aborting while the task runs sends tasks/cancel, then raises the flow's abort error", async () => {
    const controller = new AbortController();
    const stub = taskServer([{ status: "working" }], { onGet: (poll) => poll === 1 && controller.abort() });
    const client = await connect(stub.server);
    let sentWhenRejected: string[] = [];
    const error = await client.callTool("t", {}, { signal: controller.signal }).catch((e: unknown) => {
      sentWhenRejected = stub.methods();
      return e;
    });
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as Error).message).toBe("tools/call was aborted");
    expect(sentWhenRejected.slice(-1)).toEqual(["tasks/cancel"]);
    expect(stub.log.at(-1)?.params).toEqual({ taskId: TASK_ID });
    expect(stub.count("tasks/get")).toBe(2);
  });

  it("the total budget ending while the task runs sends tasks/cancel and raises the timeout", async () => {
    const stub = taskServer([{ status: "working", pollIntervalMs: 10 }]);
    const client = await connect(stub.server, { maxTotalTimeoutMs: 80 });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as Error).message).toBe("tools/call did not complete within maxTotalTimeoutMs (80 ms)");
    expect(stub.methods().at(-1)).toBe("tasks/cancel");
    expect(stub.count("tasks/get")).toBeGreaterThanOrEqual(1);
  });

  it("a callback failure cancels the task and is raised as is; nothing is answered", async () => {
    const stub = taskServer([{ status: "input_required", inputRequests: { q: ELICIT } }]);
    const failure = new Error("the user closed the dialog");
    const client = await connect(stub.server, {
      elicitation: () => {
        throw failure;
      },
    });
    await expect(client.callTool("t")).rejects.toBe(failure);
    expect(stub.methods()).toEqual(["tools/call", "tasks/get", "tasks/cancel"]);
  });

  it("closing the client ends a task waiting on a callback, and aborts the callback", async () => {
    const stub = taskServer([{ status: "input_required", inputRequests: { q: ELICIT } }]);
    const pending = unansweredElicitation();
    const client = await connect(stub.server, { elicitation: pending.elicitation });
    const call = client.callTool("t").catch((e: unknown) => e);
    await pending.reached;
    await client.close();
    const error = await call;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toBe("Connection closed");
    expect(pending.signal()?.aborted).toBe(true);
    expect(stub.methods()).toEqual(["tools/call", "tasks/get"]);
  });

  it("a cancel that fails does not mask the error that ended the drive", async () => {
    const stub = taskServer([{ status: "input_required", inputRequests: { q: ELICIT } }]);
    stub.server.setRequestHandler("tasks/cancel", () => {
      throw new McpError(-32603, "cancel broke");
    });
    const client = await connect(stub.server); // no elicitation callback: the dispatch refuses
    const error = (await client.callTool("t").catch((e: unknown) => e)) as McpError;
    expect([error.code, error.message]).toEqual([-32600, "Elicitation not supported"]);
  });

  it("a completed task holding a malformed result fails like a direct malformed answer", async () => {
    const stub = taskServer([{ status: "completed", result: { content: "not an array" } }]);
    const client = await connect(stub.server);
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(/^The server sent a malformed tools\/call result/);
    expect(stub.count("tasks/cancel")).toBe(0);
  });

  it("a task asking past inputRequiredMaxRounds is cancelled and raises InputRequiredRoundsExceededError", async () => {
    const stub = taskServer(
      (poll): Partial<DetailedTask> => ({
        status: "input_required",
        inputRequests: { [`k${poll}`]: ELICIT },
      }),
    );
    const asked: string[] = [];
    const client = await connect(stub.server, {
      inputRequiredMaxRounds: 2,
      elicitation: (ctx) => {
        asked.push(String(ctx.requestId));
        return accept("x");
      },
    });
    const error = (await client
      .callTool("interview")
      .catch((e: unknown) => e)) as InputRequiredRoundsExceededError;
    expect(error).toBeInstanceOf(InputRequiredRoundsExceededError);
    expect(error.message).toBe(
      `Task ${TASK_ID} still required input after 2 rounds (the inputRequiredMaxRounds cap), so it was ` +
        "cancelled. Raise inputRequiredMaxRounds, or drive the task yourself with getTask/updateTask; its " +
        "last questions are on .lastResult.",
    );
    expect([error.maxRounds, error.taskId]).toEqual([2, TASK_ID]);
    expect(error.lastResult).toEqual({ resultType: "input_required", inputRequests: { k2: ELICIT } });
    expect(asked).toEqual(["k0", "k1"]);
    expect(stub.methods()).toEqual([
      "tools/call",
      "tasks/get",
      "tasks/update",
      "tasks/get",
      "tasks/update",
      "tasks/get",
      "tasks/cancel",
    ]);
  });

  it("counts rounds with new questions only, and takes the per-call inputRequiredMaxRounds", async () => {
    // A question repeated by later polls is still its first round: four polls, two rounds.
    const repeating = taskServer((poll): Partial<DetailedTask> => {
      if (poll < 3) return { status: "input_required", inputRequests: { a: ELICIT } };
      if (poll === 3) return { status: "input_required", inputRequests: { a: ELICIT, b: ELICIT } };
      return { status: "completed", result: text("ok") };
    });
    const patient = await connect(repeating.server, { elicitation: () => accept("x") });
    expect(await patient.callTool("t", {}, { inputRequiredMaxRounds: 2 })).toMatchObject(text("ok"));
    expect(repeating.count("tasks/update")).toBe(2);
    const asking = taskServer([{ status: "input_required", inputRequests: { q: ELICIT } }]);
    let asked = 0;
    const strict = await connect(asking.server, {
      elicitation: () => {
        asked++;
        return accept("x");
      },
    });
    await expect(strict.callTool("t", {}, { inputRequiredMaxRounds: 0 })).rejects.toMatchObject({
      name: "InputRequiredRoundsExceededError",
      maxRounds: 0,
      taskId: TASK_ID,
    });
    expect(asked).toBe(0);
    expect(asking.methods()).toEqual(["tools/call", "tasks/get", "tasks/cancel"]);
  });

  it("an MRTR round can lead to a task: the retry's answer is driven like a first one", async () => {
    const stub = taskServer([{ status: "completed", result: text("provisioned") }]);
    const legs: Record<string, unknown>[] = [];
    stub.server.setRequestHandler("tools/call", (_ctx, params) => {
      const { _meta, ...bare } = params;
      legs.push(bare);
      if (params.inputResponses === undefined) {
        return { resultType: "input_required", inputRequests: { region: ELICIT }, requestState: "s-1" };
      }
      return { resultType: "task", ...task({ ttlMs: null }) };
    });
    const client = await connect(stub.server, { elicitation: () => accept("eu") });
    const result = await client.callTool("provision", { size: 2 });
    expect(textOf(result)).toBe("provisioned");
    expect(legs).toEqual([
      { name: "provision", arguments: { size: 2 } },
      {
        name: "provision",
        arguments: { size: 2 },
        inputResponses: { region: accept("eu") },
        requestState: "s-1",
      },
    ]);
    expect(stub.methods()).toEqual(["tasks/get"]);
  });

  it("input rounds answered before the task count against the same inputRequiredMaxRounds", async () => {
    // One MRTR round, then a task that keeps asking: a cap of 2 leaves the task one round, not two.
    const stub = taskServer(
      (poll): Partial<DetailedTask> => ({
        status: "input_required",
        inputRequests: { [`k${poll}`]: ELICIT },
      }),
    );
    stub.server.setRequestHandler("tools/call", (_ctx, params) =>
      params.inputResponses === undefined
        ? { resultType: "input_required", inputRequests: { region: ELICIT }, requestState: "s-1" }
        : { resultType: "task", ...task({ ttlMs: null }) },
    );
    const asked: string[] = [];
    const client = await connect(stub.server, {
      inputRequiredMaxRounds: 2,
      elicitation: (ctx) => {
        asked.push(String(ctx.requestId));
        return accept("x");
      },
    });
    const error = (await client.callTool("t").catch((e: unknown) => e)) as InputRequiredRoundsExceededError;
    expect(error).toBeInstanceOf(InputRequiredRoundsExceededError);
    expect([error.maxRounds, error.taskId]).toEqual([2, TASK_ID]);
    expect(asked).toEqual(["region", "k0"]);
    expect(error.lastResult).toEqual({ resultType: "input_required", inputRequests: { k1: ELICIT } });
    expect(stub.methods()).toEqual(["tasks/get", "tasks/update", "tasks/get", "tasks/cancel"]);
  });
});

describe("Client.waitForTask resumes a task by id", () => {
  it("polls at once, answers input with the callbacks, and returns the result", async () => {
    const stub = taskServer((_poll, updates) =>
      updates.length === 0
        ? { taskId: "task-7", status: "input_required", inputRequests: { who: ELICIT } }
        : { taskId: "task-7", status: "completed", result: text(`hello ${JSON.stringify(updates[0])}`) },
    );
    // A fresh client, as after a restart: only the persisted id is known.
    const client = await connect(stub.server, { elicitation: () => accept("ada") });
    const statuses: string[] = [];
    const result = await client.waitForTask("task-7", { onTask: (t) => statuses.push(t.status) });
    expect(textOf(result)).toBe(`hello ${JSON.stringify({ who: accept("ada") })}`);
    expect(stub.log.map((e) => [e.method, e.params.taskId])).toEqual([
      ["tasks/get", "task-7"],
      ["tasks/update", "task-7"],
      ["tasks/get", "task-7"],
    ]);
    expect(statuses).toEqual(["input_required", "completed"]);
  });

  it("a wait answers at most the client's inputRequiredMaxRounds input rounds, then cancels the task", async () => {
    const stub = taskServer(
      (poll): Partial<DetailedTask> => ({
        status: "input_required",
        inputRequests: { [`k${poll}`]: ELICIT },
      }),
    );
    const client = await connect(stub.server, { inputRequiredMaxRounds: 1, elicitation: () => accept("x") });
    await expect(client.waitForTask(TASK_ID)).rejects.toMatchObject({
      name: "InputRequiredRoundsExceededError",
      maxRounds: 1,
      lastResult: { resultType: "input_required", inputRequests: { k1: ELICIT } },
    });
    expect(stub.methods()).toEqual(["tasks/get", "tasks/update", "tasks/get", "tasks/cancel"]);
  });

  it("a wait takes its own inputRequiredMaxRounds over the client's, and refuses a bad one", async () => {
    const stub = taskServer(
      (poll): Partial<DetailedTask> => ({
        status: "input_required",
        inputRequests: { [`k${poll}`]: ELICIT },
      }),
    );
    const client = await connect(stub.server, { inputRequiredMaxRounds: 5, elicitation: () => accept("x") });
    await expect(client.waitForTask(TASK_ID, { inputRequiredMaxRounds: 0 })).rejects.toMatchObject({
      name: "InputRequiredRoundsExceededError",
      maxRounds: 0,
    });
    expect(stub.methods()).toEqual(["tasks/get", "tasks/cancel"]);
    await expect(client.waitForTask(TASK_ID, { inputRequiredMaxRounds: -1 })).rejects.toThrow(
      new RangeError("inputRequiredMaxRounds must be a non-negative integer, got -1"),
    );
  });

  it("aborting a wait cancels the task and raises an abort error naming the task", async () => {
    const controller = new AbortController();
    const stub = taskServer([{ status: "working" }], { onGet: () => controller.abort() });
    const client = await connect(stub.server);
    const error = await client.waitForTask(TASK_ID, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as Error).message).toBe(`task ${TASK_ID} was aborted`);
    expect(stub.methods()).toEqual(["tasks/get", "tasks/cancel"]);
  });

  it("a server failure on tasks/get leaves the task alone, so it can be resumed later", async () => {
    const stub = taskServer([{ status: "working" }]);
    stub.server.setRequestHandler("tasks/get", () => {
      throw new McpError(-32603, "store offline");
    });
    const client = await connect(stub.server);
    await expect(client.waitForTask(TASK_ID)).rejects.toMatchObject({
      code: -32603,
      message: "store offline",
    });
    expect(stub.count("tasks/cancel")).toBe(0);
  });

  it("getTask, updateTask and cancelTask send the task methods by hand", async () => {
    const stub = taskServer([{ status: "input_required", inputRequests: { q: ELICIT } }]);
    const client = await connect(stub.server);
    expect(await client.getTask(TASK_ID)).toMatchObject({ resultType: "complete", status: "input_required" });
    await expect(client.updateTask(TASK_ID, { q: accept("me") })).resolves.toBeUndefined();
    await expect(client.cancelTask(TASK_ID)).resolves.toBeUndefined();
    expect(stub.log.map((e) => [e.method, e.params])).toEqual([
      ["tasks/get", { taskId: TASK_ID }],
      ["tasks/update", { taskId: TASK_ID, inputResponses: { q: accept("me") } }],
      ["tasks/cancel", { taskId: TASK_ID }],
    ]);
  });
});
