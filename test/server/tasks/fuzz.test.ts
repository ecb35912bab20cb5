/**
 * Seeded fuzzing of the Tasks extension through `dispatch`: two users create tasks of tools that ask
 * one to three rounds of questions, fail, or ignore their signal, and mix `tasks/get`,
 * `tasks/update` (right, malformed, unknown and late answers) and `tasks/cancel` in random order,
 * on their own tasks, each other's and made-up ids, with junk params.
 *
 * Invariants: every answer is a JSON-RPC response with a spec code; a user never sees another's
 * task (the same -32602 as an unknown id); a task's `lastUpdatedAt` never goes back; a terminal
 * task never changes again (status, result, error); `inputRequests` only while `input_required`,
 * naming only questions still open; `completed` carries a result, `failed` an error; nothing
 * rejects unhandled.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MCPServer, silentLogger, ToolError } from "../../../src/server/index.js";
import { elicitationRequest, inputRequired } from "../../../src/server/mcp/index.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import type { AuthInfo } from "../../../src/shared/dispatch.js";
import { ErrorCode, McpError } from "../../../src/types/core.js";
import type { JSONRPCResponse } from "../../../src/types/index.js";
import { TASKS_EXTENSION } from "../../../src/types/tasks.js";
import { type JsonVocabulary, randomJson } from "../../fuzz-values.js";
import { request, unhandledRejections } from "../../helpers.js";
import { prng } from "../../prng.js";

type Rng = ReturnType<typeof prng>;
type Task = Record<string, unknown>;

const SEEDS = [41, 42, 43, 44];
const STEPS = 300;
const CAPS = { extensions: { [TASKS_EXTENSION]: {} }, elicitation: { form: {} } };
const SPEC_CODES = new Set([-32600, -32601, -32602, -32603, -32021]);
const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const STATUSES = new Set(["working", "input_required", ...TERMINAL]);
const USERS: AuthInfo[] = [
  { token: "t-ada", clientId: "app", scopes: [], subject: "ada" },
  { token: "t-bob", clientId: "app", scopes: [], subject: "bob" },
];
const ANSWER = { action: "accept", content: { value: "x" } };

const unhandled = unhandledRejections();

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A tool asking `rounds` rounds of questions (one or two at a time), then ending as `ending` says. */
function fuzzServer(): MCPServer {
  const mcp = new MCPServer("tasks-fuzz", {
    logger: silentLogger,
    tasks: serverTasks({ immediateResultMs: 0, pollIntervalMs: 10, maxTasks: 40, maxTasksPerPrincipal: 20 }),
  });
  const Value = z.object({ value: z.string() });
  mcp.tool(
    "job",
    {
      task: "optional",
      input: z.object({ rounds: z.number(), width: z.number(), ending: z.string(), delayMs: z.number() }),
    },
    async ({ rounds, width, ending, delayMs }, ctx) => {
      await tick(delayMs);
      const round = Number(ctx.requestState ?? "0");
      if (round < rounds) {
        const inputRequests = Object.fromEntries(
          Array.from({ length: width }, (_, i) => [
            `q${i}`,
            elicitationRequest(`Round ${round}, question ${i}?`, Value),
          ]),
        );
        return inputRequired({ inputRequests, requestState: String(round + 1) });
      }
      if (ending === "fail") throw new ToolError("the job failed");
      // A tool's own exceptions become isError results; an McpError fails the task.
      if (ending === "crash") throw new McpError(ErrorCode.InternalError, "backend down");
      if (ending === "stubborn") await tick(30); // ignores its signal
      return `done after ${rounds} rounds`;
    },
  );
  return mcp;
}

function vocabulary(rng: Rng): JsonVocabulary {
  return {
    text: (max) => "q0é\u0000".slice(0, rng.int(max + 1)),
    words: ["q0", "q1", "q0#2", "accept", "decline", "working", "tasks-fuzz"],
    keys: ["taskId", "inputResponses", "q0", "q1", "action", "content", "value"],
  };
}

/** The error or result of a response, with the spec's shape checked. */
function outcome(response: JSONRPCResponse | undefined, what: string): { result?: Task; code?: number } {
  expect(response, what).toBeDefined();
  const message = response as unknown as { result?: Task; error?: { code: number; message: string } };
  if (message.error) {
    expect(SPEC_CODES.has(message.error.code), `${what}: code ${message.error.code}`).toBe(true);
    expect(message.error.message.length, what).toBeGreaterThan(0);
    return { code: message.error.code };
  }
  expect(message.result, what).toBeDefined();
  return { result: message.result as Task };
}

async function fuzz(seed: number): Promise<Record<string, number>> {
  const rng = prng(seed);
  const words = vocabulary(rng);
  const mcp = fuzzServer();
  const owners = new Map<string, number>();
  const last = new Map<string, Task>();
  const counts: Record<string, number> = {};
  const count = (what: string) => {
    counts[what] = (counts[what] ?? 0) + 1;
  };
  let nextId = 1;
  const send = (method: string, params: unknown, user: number) =>
    mcp.dispatch(request(method, params as Record<string, unknown>, CAPS, nextId++), {
      authInfo: USERS[user],
    });

  /** Checks a task seen by its owner against everything seen of it before. */
  const observe = (task: Task, what: string) => {
    const taskId = String(task.taskId);
    expect(STATUSES.has(String(task.status)), `${what}: status ${String(task.status)}`).toBe(true);
    const before = last.get(taskId);
    if (before) {
      expect(Date.parse(String(task.lastUpdatedAt)), `${what}: lastUpdatedAt`).toBeGreaterThanOrEqual(
        Date.parse(String(before.lastUpdatedAt)),
      );
      if (TERMINAL.has(String(before.status)))
        expect(task, `${what}: a terminal task changed`).toEqual(before);
    }
    if (task.status === "input_required") {
      expect(Object.keys(task.inputRequests as object).length, what).toBeGreaterThan(0);
    } else {
      expect(task.inputRequests, `${what}: inputRequests while ${String(task.status)}`).toBeUndefined();
    }
    if (task.status === "completed") expect(task.result, what).toBeDefined();
    if (task.status === "failed") expect(task.error, what).toBeDefined();
    if (task.status !== "completed") expect(task.result, what).toBeUndefined();
    last.set(taskId, task);
  };

  const someTaskId = (): string =>
    owners.size > 0 && rng.chance(0.85)
      ? rng.pick([...owners.keys()])
      : rng.pick(["nope", "", `${[...owners.keys()][0] ?? "x"}x`]);

  for (let step = 0; step < STEPS; step++) {
    const user = rng.int(2);
    const what = `seed ${seed} step ${step}`;
    const action = rng.int(10);
    if (action <= 1) {
      const args = {
        rounds: rng.int(4),
        width: 1 + rng.int(2),
        ending: rng.pick(["ok", "ok", "fail", "crash", "stubborn"]),
        delayMs: rng.pick([0, 2, 5, 10]),
      };
      const { result } = outcome(await send("tools/call", { name: "job", arguments: args }, user), what);
      if (result?.resultType === "task") {
        owners.set(String(result.taskId), user);
        observe(result, what);
        count("tasks");
      } else count("inline");
      continue;
    }
    const taskId = someTaskId();
    const owner = owners.get(taskId);
    if (action <= 4) {
      const { result, code } = outcome(await send("tasks/get", { taskId }, user), what);
      if (owner === user && result) {
        observe(result, what);
        count(`seen ${String(result.status)}`);
      } else if (owner !== user || owner === undefined) {
        // Someone else's task, or no task: the one answer that leaks nothing.
        expect(code, `${what}: tasks/get of another's or no task`).toBe(-32602);
      }
      continue;
    }
    if (action <= 7) {
      const open = owner === user ? Object.keys((last.get(taskId)?.inputRequests as object) ?? {}) : [];
      const inputResponses = rng.chance(0.8)
        ? Object.fromEntries(
            [...open, ...(rng.chance(0.3) ? ["q9", "q0#7"] : [])].map((key) => [
              key,
              rng.chance(0.85) ? ANSWER : randomJson(rng, words),
            ]),
          )
        : randomJson(rng, words);
      const params = rng.chance(0.9) ? { taskId, inputResponses } : randomJson(rng, words);
      const { code } = outcome(await send("tasks/update", params, user), what);
      if (code === undefined) count("updates");
      if (owner !== undefined && owner !== user)
        expect(code, `${what}: update of another's task`).toBe(-32602);
      continue;
    }
    if (action === 8) {
      const { code } = outcome(
        await send("tasks/cancel", rng.chance(0.9) ? { taskId } : randomJson(rng, words), user),
        what,
      );
      if (owner !== undefined && owner !== user)
        expect(code, `${what}: cancel of another's task`).toBe(-32602);
      if (code === undefined) count("cancels");
      continue;
    }
    await tick(rng.pick([0, 1, 8]));
  }
  // Let every task settle, then read each one last time.
  await tick(60);
  for (const [taskId, owner] of owners) {
    const { result } = outcome(await send("tasks/get", { taskId }, owner), `seed ${seed} final ${taskId}`);
    if (result) {
      observe(result, `seed ${seed} final`);
      count(`final ${String(result.status)}`);
    }
  }
  return counts;
}

describe("the Tasks extension under random interleavings", () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: ${STEPS} steps keep every invariant`, { timeout: 30_000 }, async () => {
      const counts = await fuzz(seed);
      if (process.env.FUZZ_DEBUG) console.log(seed, counts);
      // The run reached the interesting states.
      expect(counts.tasks ?? 0).toBeGreaterThan(5);
      expect(counts.updates ?? 0).toBeGreaterThan(0);
      expect(counts["final completed"] ?? 0).toBeGreaterThan(0);
      expect(unhandled).toEqual([]);
    });
  }
});
