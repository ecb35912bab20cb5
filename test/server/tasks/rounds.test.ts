// A task's later rounds are held to the rules the same round answers inline under: an
// InputRequiredResult that is invalid on the wire fails the task (-32603) instead of re-entering.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MCPServer, silentLogger } from "../../../src/server/index.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import { TASKS_EXTENSION } from "../../../src/types/tasks.js";
import { errorOf, request, resultOf } from "../../helpers.js";

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const INVALID = { code: -32603, message: "Handler returned an invalid result" };
/** Outlasts an `immediateResultMs` of 0 with a wide margin (timers are not strictly ordered under load). */
const outlastTheWindow = () => new Promise((resolve) => setTimeout(resolve, 25));

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
});

/** A server whose tool answers `round` on every entry, and counts its entries. */
function serving(round: Record<string, unknown>, immediateResultMs: number) {
  const mcp = new MCPServer("rounds", { logger: silentLogger, tasks: serverTasks({ immediateResultMs }) });
  const entries = { count: 0 };
  mcp.tool("asks", { task: "optional" }, async () => {
    entries.count++;
    if (immediateResultMs === 0) await outlastTheWindow();
    return round as never;
  });
  return { mcp, entries };
}

const BAD_ROUNDS: [string, Record<string, unknown>][] = [
  ["asks nothing and keeps no state", { resultType: "input_required" }],
  ["asks an empty map and keeps no state", { resultType: "input_required", inputRequests: {} }],
  ["has a null inputRequests", { resultType: "input_required", inputRequests: null, requestState: "s" }],
  ["has a requestState that is not a string", { resultType: "input_required", requestState: 42 }],
];

describe("a task's InputRequiredResult is checked as the inline one is", () => {
  it.each(BAD_ROUNDS)("inline, a round that %s answers -32603", async (_label, round) => {
    const { mcp } = serving(round, 1_000);
    const response = await mcp.dispatch(request("tools/call", { name: "asks", arguments: {} }, TASKS));
    expect(errorOf(response)).toEqual(INVALID);
  });

  it.each(BAD_ROUNDS)(
    "in a task, a round that %s fails the task with the same -32603, without re-entering",
    async (_label, round) => {
      const { mcp, entries } = serving(round, 0);
      const created = resultOf(
        await mcp.dispatch(request("tools/call", { name: "asks", arguments: {} }, TASKS)),
      );
      expect(created.resultType).toBe("task");
      const deadline = Date.now() + 2_000;
      let task = created;
      while (task.status === "working" && Date.now() < deadline) {
        await outlastTheWindow();
        task = resultOf(await mcp.dispatch(request("tasks/get", { taskId: created.taskId }, TASKS)));
      }
      expect(task.status).toBe("failed");
      expect(task.error).toEqual(INVALID);
      expect(task.statusMessage).toBe("Tool execution failed: Handler returned an invalid result");
      expect(task.inputRequests).toBeUndefined();
      // A state-only round re-enters after 50 ms at the earliest: wait past it, then count.
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(entries.count).toBe(1);
      expect(unhandled).toEqual([]);
    },
  );
});
