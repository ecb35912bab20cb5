import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  acceptedContent,
  elicitationRequest,
  inputRequired,
  inputResponse,
} from "../../../src/server/mcp/index.js";
import { resultOf } from "../../helpers.js";
import { contextWith, quietServer, send, stamp } from "./helpers.js";

// Regression: an answer was read through the prototype chain, so a key such as "constructor" that
// the client left unanswered read as Object's own function, i.e. `invalid`, and acceptedContent
// failed the call with -32602 instead of letting the handler ask again (the spec: missing answers
// are asked again, not an error).
describe("inputResponse reads own answers only", () => {
  it.each(["constructor", "toString", "hasOwnProperty"])(
    "reads an unanswered key named %s as missing, not as an inherited member",
    async (key) => {
      const ctx = contextWith({ other: { action: "accept" } });
      expect(inputResponse(ctx, key)).toEqual({ kind: "missing" });
      expect(await acceptedContent(ctx, key)).toBeUndefined();
    },
  );

  it("still reads an answer given under such a key", () => {
    const ctx = contextWith({ constructor: { action: "decline" } });
    expect(inputResponse(ctx, "constructor")).toEqual({ kind: "decline" });
  });

  it("asks again on the wire when a retry leaves a key named constructor unanswered", async () => {
    const mcp = quietServer("helpers");
    const Confirm = z.object({ ok: z.boolean() });
    const ask = elicitationRequest("Sure?", Confirm);
    mcp.tool("t", {}, async (_a, ctx) =>
      (await acceptedContent(ctx, "constructor", Confirm))?.ok
        ? "done"
        : inputRequired({ inputRequests: { constructor: ask } }),
    );
    const response = await send(
      mcp,
      "tools/call",
      { name: "t", inputResponses: { other: { action: "accept" } } },
      { elicitation: {} },
    );
    expect(resultOf(response)).toEqual({
      resultType: "input_required",
      inputRequests: { constructor: ask },
      _meta: stamp("helpers"),
    });
  });
});
