import { expect, it } from "vitest";
import { jsonSchema } from "../../../src/server/mcp/index.js";
import { quietServer, send, stamp } from "./helpers.js";

it("refuses 2 million wrong items with the first three, and keeps serving", async () => {
  const mcp = quietServer("p");
  const input = jsonSchema({
    type: "object",
    properties: { tags: { type: "array", items: { type: "string" } } },
  });
  mcp.tool("tag", { input }, ({ tags }) => `${(tags as string[]).length} tags`);
  // "1," two million times: 4 MB, what one request may carry (the error count is bounded below).
  const tags = JSON.parse(`[${"1,".repeat(2_000_000 - 1)}1]`) as unknown[];
  const refused = await send(mcp, "tools/call", { name: "tag", arguments: { tags } });
  const wrong = (i: number) => `tags/${i}: Expected string, got number.`;
  expect(refused).toEqual({
    jsonrpc: "2.0",
    id: expect.any(Number),
    result: {
      content: [{ type: "text", text: `Invalid arguments for tool tag: ${[0, 1, 2].map(wrong).join("; ")}` }],
      isError: true,
      resultType: "complete",
      _meta: stamp("p"),
    },
  });
  const served = await send(mcp, "tools/call", { name: "tag", arguments: { tags: ["a"] } });
  expect(served).toMatchObject({ result: { content: [{ type: "text", text: "1 tags" }] } });
});
