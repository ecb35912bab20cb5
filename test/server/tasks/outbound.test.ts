import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { finishResult } from "../../../src/server/outbound.js";
import { Server } from "../../../src/server/server.js";
import { checkCreateTaskResult } from "../../../src/server/tasks/outbound.js";
import { TASKS_EXTENSION } from "../../../src/types/tasks.js";

const RULES = { serverInfo: { name: "s", version: "1" }, cacheHints: {}, checkTask: checkCreateTaskResult };
const DECLARED = { extensions: { [TASKS_EXTENSION]: {} } };
const TASK = {
  resultType: "task",
  taskId: "t-1",
  status: "working",
  createdAt: "2026-11-30T10:00:00Z",
  lastUpdatedAt: "2026-11-30T10:00:00Z",
  ttlMs: 60_000,
};

describe("the outbound rules for a CreateTaskResult", () => {
  it("passes a task handle on tools/call to a declaring request, stamped like any result", () => {
    expect(finishResult("tools/call", TASK, DECLARED, RULES)).toEqual({
      ...TASK,
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } },
    });
  });

  it.each([
    [
      "a request that did not declare the extension",
      "tools/call",
      TASK,
      {},
      /did not declare the tasks extension/,
    ],
    ["another method", "prompts/get", TASK, DECLARED, /prompts\/get cannot answer with a task/],
    ["a bad status", "tools/call", { ...TASK, status: "done" }, DECLARED, /needs a task status/],
    [
      "a fractional ttlMs",
      "tools/call",
      { ...TASK, ttlMs: 1.5 },
      DECLARED,
      /ttlMs must be null or a positive integer/,
    ],
    ["a legacy ttl-less shape", "tools/call", { ...TASK, ttlMs: undefined }, DECLARED, /ttlMs/],
    [
      "MRTR's requestState",
      "tools/call",
      { ...TASK, requestState: "s" },
      DECLARED,
      /cannot carry requestState/,
    ],
    ["an inlined result", "tools/call", { ...TASK, result: {} }, DECLARED, /cannot carry result/],
  ])("refuses %s", (_label, method, result, declared, detail) => {
    let thrown: unknown;
    try {
      finishResult(method, result, declared, RULES);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: -32603, message: "Handler returned an invalid result" });
    expect(String((thrown as { data: { detail: string } }).data.detail)).toMatch(detail);
  });
});

describe("a low-level Server answering with a task handle", () => {
  const declaringCall = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "export",
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": DECLARED,
      },
    },
  };

  it("is refused (-32603) until the server accepts task results, then checked and sent", async () => {
    const server = new Server("jobs", { logger: silentLogger });
    server.setRequestHandler("tools/call", () => TASK);
    expect(await server.dispatch(declaringCall)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Handler returned an invalid result" },
    });
    server.acceptTaskResults(checkCreateTaskResult);
    expect(await server.dispatch(declaringCall)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { ...TASK, _meta: { "io.modelcontextprotocol/serverInfo": { name: "jobs", version: "" } } },
    });
  });
});
