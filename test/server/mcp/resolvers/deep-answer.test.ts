// An answer nested too deep to keep for the next round is the client's doing: the tool answers it
// as an unusable answer (isError), not as a server failure logged at error level.
import { expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "../../../../src/server/logger.js";
import { elicit, resolver, sample } from "../../../../src/server/mcp/index.js";
import type { JSONRPCRequest } from "../../../../src/types/index.js";
import { request } from "../../../helpers.js";
import { quietServer } from "../helpers.js";
import { ALL, asked, Flow, SAMPLED, textOf } from "./helpers.js";

it("refuses a sampling answer whose _meta is nested 100,000 deep, then serves the next call", async () => {
  const errors: string[] = [];
  const mcp = quietServer("srv", { logger: { ...silentLogger, error: (message) => errors.push(message) } });
  const summary = resolver("summary", () => sample({ prompt: "Summarize", maxTokens: 10 }));
  const confirm = resolver("confirm", { deps: { summary } }, () =>
    elicit("Publish it?", z.object({ publish: z.boolean() })),
  );
  mcp.tool("publish", { resolve: { summary, confirm } }, () => "published");
  const flow = new Flow(mcp, "publish", {}, ALL);
  expect(Object.keys(asked(await flow.round()))).toEqual(["summary"]);
  // Built as text and parsed: JSON.parse copes with the depth, JSON.stringify would not.
  const depth = 100_000;
  const deep = JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`) as unknown;
  const retry = request(
    "tools/call",
    {
      name: "publish",
      arguments: {},
      requestState: flow.state,
      inputResponses: { summary: { ...SAMPLED("short"), _meta: { deep } } },
    },
    ALL,
  ) as JSONRPCRequest;
  const answer = (await mcp.dispatch(retry)) as { result: Record<string, unknown> };
  expect(textOf(answer.result)).toEqual({
    text: "Resolver 'summary' answer is nested too deeply to keep for the next round",
    isError: true,
  });
  expect(errors).toEqual([]);
  const again = new Flow(mcp, "publish", {}, ALL);
  expect(Object.keys(asked(await again.round()))).toEqual(["summary"]);
});
