import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/index.js";
import { serverTasks } from "../../../src/server/tasks/index.js";
import { errorOf, resultOf } from "../../helpers.js";
import { send } from "./helpers.js";

describe("a task tool whose registration throws is not registered", () => {
  it("without a runner: not listed, not callable, and the name stays free to register again", async () => {
    const mcp = new MCPServer("bare", { logger: silentLogger });
    mcp.tool("other", {}, () => "other");
    expect(() => mcp.tool("slow", { task: "required" }, () => "ran inline")).toThrow(/runs no tasks/);
    expect(resultOf(await send(mcp, "tools/list")).tools).toEqual([
      { name: "other", inputSchema: { type: "object", properties: {} } },
    ]);
    expect(errorOf(await send(mcp, "tools/call", { name: "slow" }))).toEqual({
      code: -32602,
      message: "Unknown tool: slow",
    });
    mcp.tool("slow", {}, () => "now inline on purpose");
    expect(resultOf(await send(mcp, "tools/call", { name: "slow" })).content).toEqual([
      { type: "text", text: "now inline on purpose" },
    ]);
  });

  it("with a runner already serving another server: the same", async () => {
    const runner = serverTasks();
    new MCPServer("one", { logger: silentLogger, tasks: runner }).tool("a", { task: "optional" }, () => "x");
    const two = new MCPServer("two", { logger: silentLogger, tasks: runner });
    expect(() => two.tool("b", { task: "optional" }, () => "x")).toThrow(/already serves another server/);
    expect(two.toolInputSchema("b")).toBeUndefined();
    expect(two.server.hasHandler("tools/call")).toBe(false);
  });
});
