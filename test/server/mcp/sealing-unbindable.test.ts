import { expect, it } from "vitest";
import { z } from "zod";
import { elicitationRequest, inputRequired, MCPServer } from "../../../src/server/mcp/index.js";
import { recordingLogger, resultOf, unhandledRejections } from "../../helpers.js";
import { linesAt, send } from "./helpers.js";

const unhandled = unhandledRejections();
const ELICIT = { elicitation: { form: {} } };
/** Arguments nested 100,000 deep: JSON.parse reads them, a recursive walk overflows the stack. */
const DEEP = JSON.parse(`{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`) as Record<string, unknown>;

function asker() {
  const logger = recordingLogger();
  const mcp = new MCPServer("fleet", { logger });
  mcp.tool("ask", { input: z.object({ x: z.unknown() }) }, (_args, ctx) =>
    ctx.inputResponses === undefined
      ? inputRequired({
          inputRequests: { region: elicitationRequest("Which region?", z.object({ region: z.string() })) },
          requestState: "asked",
        })
      : "done",
  );
  return { mcp, logger };
}

it("answers -32602 to arguments too deep to bind a requestState to, and keeps serving", async () => {
  const { mcp, logger } = asker();
  const response = await send(mcp, "tools/call", { name: "ask", arguments: DEEP }, ELICIT);
  expect(response).toEqual({
    jsonrpc: "2.0",
    id: expect.any(Number),
    error: {
      code: -32602,
      message: "Invalid params: tools/call arguments are too deeply nested or not JSON",
    },
  });
  // The client's input, not a server fault: no error-level line.
  expect(linesAt(logger, "error")).toEqual([]);
  const next = resultOf(await send(mcp, "tools/call", { name: "ask", arguments: { x: 1 } }, ELICIT));
  expect(next.resultType).toBe("input_required");
  expect(unhandled).toEqual([]);
});
