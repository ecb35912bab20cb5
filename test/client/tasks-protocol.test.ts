/**
 * The Tasks extension's rules on the client: what is declared, where a task handle is accepted,
 * how answers are checked, the polling pace, the low-level session methods and the legacy era.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../src/client/client.js";
import { TaskCreatedError } from "../../src/client/errors.js";
import { ClientSession } from "../../src/client/session.js";
import { ProtocolError, RoundtripError } from "../../src/shared/errors.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import { McpError, TASKS_EXTENSION } from "../../src/types/index.js";
import { bare, connectTapped, ELICIT, sentFor, stubServer, text } from "./stubs.js";
import { DECLARED, TASK_ID, task } from "./task-stubs.js";

afterEach(() => {
  vi.useRealTimers();
});

const CAPS = "io.modelcontextprotocol/clientCapabilities";
/** The capabilities the first `method` request declared. */
const declaredOn = (tap: Parameters<typeof sentFor>[0], method: string) =>
  (sentFor(tap, method)[0]?.params._meta as Record<string, unknown> | undefined)?.[CAPS];
const handle = (extra = {}) => ({ resultType: "task", ...task(extra) });
const complete = (extra = {}) => ({ resultType: "complete", ...task(extra) });

/** A stub whose tools/call answers `first` and whose n-th tasks/get answers `polls[n]` (last repeated). */
function scripted(first: unknown, polls: unknown[], other: Record<string, unknown> = {}) {
  let n = 0;
  return stubServer((method) => {
    if (method === "tools/call") return first;
    if (method === "tasks/get") return polls[Math.min(n++, polls.length - 1)];
    if (method === "tasks/update" || method === "tasks/cancel") return { resultType: "complete" };
    return other[method];
  });
}

describe("declaring the extension", () => {
  it("tasks: true declares it on every request, merged with clientCapabilities", async () => {
    const { client, tap } = await connectTapped(
      stubServer((method) => (method === "tools/list" ? { tools: [] } : undefined)),
      {
        tasks: true,
        clientCapabilities: { extensions: { "example.com/other": { v: 1 } } },
      },
    );
    await client.listTools();
    expect(declaredOn(tap, "tools/list")).toEqual({
      extensions: { [TASKS_EXTENSION]: {}, "example.com/other": { v: 1 } },
    });
  });

  it("without tasks: true nothing is declared, and a task handle is an unknown resultType", async () => {
    const stub = scripted(handle(), [complete({ status: "completed", result: text("x") })]);
    const { client, tap } = await connectTapped(stub);
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(
      /^The server answered tools\/call with an unknown resultType "task"/,
    );
    expect(declaredOn(tap, "tools/call")).toEqual({});
    expect(sentFor(tap, "tasks/get")).toEqual([]);
  });

  it("a task handle answering any method but tools/call is refused, even when declared", async () => {
    const stub = scripted(undefined, [], { "prompts/get": handle(), "resources/read": handle() });
    const { client, tap } = await connectTapped(stub, { tasks: true });
    await expect(client.getPrompt("p")).rejects.toThrow(/prompts\/get with an unknown resultType "task"/);
    await expect(client.readResource("x://r")).rejects.toBeInstanceOf(ProtocolError);
    expect(sentFor(tap, "tasks/get")).toEqual([]);
  });

  it("a malformed handle is a ProtocolError, and nothing is polled", async () => {
    const stub = scripted({ resultType: "task", taskId: TASK_ID, status: "working" }, []);
    const { client, tap } = await connectTapped(stub, { tasks: true });
    await expect(client.callTool("t")).rejects.toThrow(
      /malformed CreateTaskResult for tools\/call \(createdAt/,
    );
    expect(sentFor(tap, "tasks/get")).toEqual([]);
  });
});

describe("checking tasks/get answers", () => {
  it.each([
    ["input_required without requests", { status: "input_required" }, /non-empty inputRequests/],
    [
      "a request that is not one",
      { status: "input_required", inputRequests: { q: { method: "x" } } },
      /inputRequests holds/,
    ],
    [
      "a question under the key __proto__",
      JSON.parse(`{"status":"input_required","inputRequests":{"__proto__":${JSON.stringify(ELICIT)}}}`),
      /inputRequests: the key "__proto__" cannot be answered/,
    ],
    ["failed without an error", { status: "failed" }, /a failed task needs an error/],
    [
      "a pollIntervalMs that is not a number",
      { status: "working", pollIntervalMs: "250" },
      /^The server sent a malformed tasks\/get result \(pollIntervalMs must be a finite number\)$/,
    ],
  ])("%s is a ProtocolError that leaves the task alone", async (_name, state, message) => {
    const stub = scripted(handle({ status: "input_required" }), [complete(state)]);
    const { client, tap } = await connectTapped(stub, { tasks: true });
    await expect(client.callTool("t")).rejects.toThrow(message);
    expect(sentFor(tap, "tasks/cancel")).toEqual([]);
  });

  it.each([0, 250.5, -5])(
    "takes a suggested pollIntervalMs of %s and drives the task on",
    async (pollIntervalMs) => {
      const stub = scripted(handle({ status: "input_required" }), [
        complete({ pollIntervalMs }),
        complete({ status: "completed", result: text("done") }),
      ]);
      const { client, tap } = await connectTapped(stub, { tasks: true });
      expect(await client.callTool("t")).toMatchObject(text("done"));
      expect(sentFor(tap, "tasks/get")).toHaveLength(2);
      expect(sentFor(tap, "tasks/cancel")).toEqual([]);
    },
  );

  // The extension types ttlMs as an integer (or null) with no lower bound, and the client never
  // reads it: a 0 (retention over) or a 64-bit "forever" is no reason to give up on the task.
  it.each([0, 2 ** 63])("takes a ttlMs of %s on the handle and on tasks/get", async (ttlMs) => {
    const stub = scripted(handle({ ttlMs }), [
      complete({ ttlMs }),
      complete({ status: "completed", result: text("done"), ttlMs }),
    ]);
    const { client, tap } = await connectTapped(stub, { tasks: true });
    expect(await client.callTool("t")).toMatchObject(text("done"));
    expect(sentFor(tap, "tasks/get")).toHaveLength(2);
  });

  it("a ttlMs that is not an integer is a ProtocolError", async () => {
    const stub = scripted(handle({ ttlMs: 1.5 }), []);
    const { client } = await connectTapped(stub, { tasks: true });
    await expect(client.callTool("t")).rejects.toThrow(
      /^The server sent a malformed CreateTaskResult for tools\/call \(ttlMs must be null or an integer\)$/,
    );
  });

  it("a handle whose pollIntervalMs is not a number is a ProtocolError, and nothing is polled", async () => {
    const stub = scripted(handle({ pollIntervalMs: null }), []);
    const { client, tap } = await connectTapped(stub, { tasks: true });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toEqual(
      new ProtocolError(
        "The server sent a malformed CreateTaskResult for tools/call (pollIntervalMs must be a finite number)",
      ),
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect(sentFor(tap, "tasks/get")).toEqual([]);
  });

  it("acknowledgements must be complete", async () => {
    const stub = stubServer((method) =>
      method === "tasks/cancel" ? { resultType: "input_required" } : undefined,
    );
    const { client } = await connectTapped(stub, { tasks: true });
    await expect(client.cancelTask(TASK_ID)).rejects.toThrow(/input_required to tasks\/cancel/);
  });
});

describe("polling pace (fake timers)", () => {
  it("waits the latest pollIntervalMs before each poll; a non-working handle is fetched at once", async () => {
    const stub = scripted(handle({ pollIntervalMs: 5_000 }), [
      complete({ pollIntervalMs: 20_000 }),
      complete({ status: "input_required", inputRequests: { q: ELICIT }, pollIntervalMs: 300 }),
      complete({ status: "completed", result: text("done") }),
    ]);
    const { client, tap } = await connectTapped(stub, {
      tasks: true,
      elicitation: () => ({ action: "decline" }),
    });
    vi.useFakeTimers();
    const gets = () => sentFor(tap, "tasks/get").length;
    const pending = client.callTool("t");
    await vi.advanceTimersByTimeAsync(4_999);
    expect(gets()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(gets()).toBe(1);
    await vi.advanceTimersByTimeAsync(19_999); // the interval the poll just gave
    expect(gets()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(gets()).toBe(2);
    // Answered, then the next poll waits the 300 ms of the task that asked.
    expect(sentFor(tap, "tasks/update")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(299);
    expect(gets()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toMatchObject(text("done"));
  });

  it("no pollIntervalMs means 1 s; any finite suggestion is clamped to 10 ms .. 60 s", async () => {
    for (const [suggested, expected] of [
      [undefined, 1_000],
      [1, 10],
      [0, 10],
      [-5, 10],
      [9.5, 10],
      [3_600_000, 60_000],
    ] as const) {
      vi.useRealTimers();
      const stub = scripted(handle({ pollIntervalMs: suggested }), [
        complete({ status: "completed", result: text("ok") }),
      ]);
      const { client, tap } = await connectTapped(stub, { tasks: true });
      vi.useFakeTimers();
      const pending = client.callTool("t");
      await vi.advanceTimersByTimeAsync(expected - 1);
      expect(sentFor(tap, "tasks/get"), `suggested ${suggested}`).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(sentFor(tap, "tasks/get"), `suggested ${suggested}`).toHaveLength(1);
      await pending;
      await client.close();
    }
  });
});

describe("ClientSession task methods", () => {
  async function session(handler: (method: string, params: Record<string, unknown>) => unknown) {
    const stub = stubServer(handler);
    return {
      stub,
      session: await ClientSession.connect(new MemoryTransport(stub), { capabilities: DECLARED }),
    };
  }

  it("tools/call returns a handle only with allowTask; otherwise TaskCreatedError carries it", async () => {
    const { session: s } = await session((method) => (method === "tools/call" ? handle() : undefined));
    const error = (await s.callTool("t").catch((e: unknown) => e)) as TaskCreatedError;
    expect(error).toBeInstanceOf(TaskCreatedError);
    expect(error.task).toMatchObject({ resultType: "task", taskId: TASK_ID });
    expect(await s.callTool("t", {}, { allowTask: true })).toMatchObject({
      taskId: TASK_ID,
      status: "working",
    });
    const both = await s.callTool("t", {}, { allowTask: true, allowInputRequired: true });
    expect(both.resultType).toBe("task");
  });

  it("getTask, updateTask and cancelTask send their params under the envelope", async () => {
    const { stub, session: s } = await session((method) =>
      method === "tasks/get"
        ? complete({ status: "completed", result: text("r") })
        : { resultType: "complete" },
    );
    expect(await s.getTask(TASK_ID)).toMatchObject({ status: "completed", result: text("r") });
    await s.updateTask(TASK_ID, { q: { action: "decline" } });
    await s.cancelTask(TASK_ID);
    expect(stub.seen.map((r) => [r.method, bare(r.params)])).toEqual([
      ["tasks/get", { taskId: TASK_ID }],
      ["tasks/update", { taskId: TASK_ID, inputResponses: { q: { action: "decline" } } }],
      ["tasks/cancel", { taskId: TASK_ID }],
    ]);
    expect(stub.seen.every((r) => (r.params._meta as Record<string, unknown>)[CAPS] !== undefined)).toBe(
      true,
    );
  });
});

describe("the legacy era has no tasks", () => {
  it("every task method fails locally with a clear error, and nothing is sent", async () => {
    const stub = stubServer((method) => {
      if (method === "initialize") {
        return {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "old", version: "1" },
        };
      }
      if (method === "tools/call") return handle();
      throw new McpError(-32601, `Method not found: ${method}`);
    });
    const client = await Client.connect(stub, { mode: "legacy", tasks: true });
    const expected =
      /^tasks\/(get|update|cancel) belongs to the io\.modelcontextprotocol\/tasks extension of protocol 2026-07-28; this session speaks 2025-11-25, which has no tasks$/;
    for (const attempt of [
      client.getTask(TASK_ID),
      client.updateTask(TASK_ID, {}),
      client.cancelTask(TASK_ID),
      client.waitForTask(TASK_ID),
    ]) {
      const error = await attempt.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RoundtripError);
      expect((error as Error).message).toMatch(expected);
    }
    // A 2025 server's task-shaped answer is no task either.
    await expect(client.callTool("t")).rejects.toBeInstanceOf(ProtocolError);
    expect(stub.seen.map((r) => r.method)).toEqual(["initialize", "tools/call"]);
    await client.close();
  });
});
