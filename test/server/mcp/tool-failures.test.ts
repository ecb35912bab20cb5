import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MCPServer, type StandardSchemaV1, ToolError } from "../../../src/server/mcp/index.js";
import { recordingLogger, resultOf } from "../../helpers.js";
import { linesAt, send, stamp } from "./helpers.js";

const STAMP = stamp("tools");

function failed(text: string) {
  return { content: [{ type: "text", text }], isError: true, resultType: "complete", _meta: STAMP };
}

/** A Standard Schema whose validator itself throws (a library bug, a refinement calling out). */
const throwingSchema: StandardSchemaV1 = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: () => {
      throw new Error("validator crashed on secret-token");
    },
    jsonSchema: { input: () => ({ type: "object" }), output: () => ({ type: "object" }) },
  },
};

describe("tools/call failures outside the handler body are tool errors (isError), not -32603", () => {
  it("a zod transform that throws on the caller's argument", async () => {
    const logger = recordingLogger();
    const mcp = new MCPServer("tools", { logger });
    let ran = false;
    const input = z.object({ config: z.string().transform((text) => JSON.parse(text) as unknown) });
    mcp.tool("apply", { input }, () => {
      ran = true;
      return "ok";
    });
    const response = await send(mcp, "tools/call", { name: "apply", arguments: { config: "{not json" } });
    expect(resultOf(response)).toEqual(failed("Error executing tool apply"));
    expect(ran).toBe(false);
    expect(linesAt(logger, "error")).toEqual([expect.stringMatching(/^tool apply failed: SyntaxError/)]);
  });

  it("a refinement that throws a ToolError keeps its message", async () => {
    const mcp = new MCPServer("tools", { logger: recordingLogger() });
    const input = z.object({
      db: z.string().refine((db) => {
        if (db === "prod") throw new ToolError("prod is read-only");
        return true;
      }),
    });
    mcp.tool("drop", { input }, () => "dropped");
    const response = await send(mcp, "tools/call", { name: "drop", arguments: { db: "prod" } });
    expect(resultOf(response)).toEqual(failed("prod is read-only"));
  });

  it("a Standard Schema validator that throws, on input and on output, hides its message", async () => {
    const logger = recordingLogger();
    const mcp = new MCPServer("tools", { logger });
    mcp.tool("in", { input: throwingSchema }, () => "ok");
    mcp.tool("out", { output: throwingSchema }, () => ({ a: 1 }));
    const input = await send(mcp, "tools/call", { name: "in", arguments: {} });
    const output = await send(mcp, "tools/call", { name: "out", arguments: {} });
    expect(resultOf(input)).toEqual(failed("Error executing tool in"));
    expect(resultOf(output)).toEqual(failed("Error executing tool out"));
    expect(JSON.stringify([input, output])).not.toContain("secret-token");
    expect(linesAt(logger, "error")).toHaveLength(2);
  });

  it("a result that cannot become JSON (a BigInt, a cycle)", async () => {
    const mcp = new MCPServer("tools", { logger: recordingLogger() });
    mcp.tool("big", {}, () => ({ n: 1n }) as never);
    mcp.tool("cycle", {}, () => {
      const node: Record<string, unknown> = {};
      node.self = node;
      return node;
    });
    expect(resultOf(await send(mcp, "tools/call", { name: "big" }))).toEqual(
      failed("Error executing tool big"),
    );
    expect(resultOf(await send(mcp, "tools/call", { name: "cycle" }))).toEqual(
      failed("Error executing tool cycle"),
    );
  });
});
