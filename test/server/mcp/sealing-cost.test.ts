import { expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "../../../src/server/logger.js";
import { elicitationRequest, inputRequired, MCPServer } from "../../../src/server/mcp/index.js";
import { resultOf } from "../../helpers.js";
import { send, stamp } from "./helpers.js";

const ELICIT = { elicitation: { form: {} } };

it("binds a requestState to 4 MB of non-ASCII arguments and completes the retry", async () => {
  const mcp = new MCPServer("fleet", { logger: silentLogger });
  mcp.tool("ask", { input: z.object({ text: z.string() }) }, ({ text }, ctx) =>
    ctx.inputResponses === undefined
      ? inputRequired({
          inputRequests: { ok: elicitationRequest("Go?", z.object({ go: z.boolean() })) },
          requestState: "asked",
        })
      : `${text.length} characters`,
  );
  // 2,000,000 "é": 4 MB of UTF-8, what one request may carry, digested on the seal and the verify
  // (its cost is measured in bench/PROFILE.md; test/server/state/claims.test.ts checks the escapes).
  const args = { text: "é".repeat(2_000_000) };
  const first = resultOf(await send(mcp, "tools/call", { name: "ask", arguments: args }, ELICIT));
  const retry = { name: "ask", arguments: args, requestState: first.requestState };
  const answer = { ok: { action: "accept", content: { go: true } } };
  const done = await send(mcp, "tools/call", { ...retry, inputResponses: answer }, ELICIT);
  expect(done).toEqual({
    jsonrpc: "2.0",
    id: expect.any(Number),
    result: {
      content: [{ type: "text", text: "2000000 characters" }],
      resultType: "complete",
      _meta: stamp("fleet"),
    },
  });
});
