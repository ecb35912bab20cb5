// An MCPServer answers each list in one page and never hands out a cursor, so a cursor a client
// sends is one this server did not issue: the pagination utility says that is -32602.
import { describe, expect, it } from "vitest";
import { resultOf } from "../../helpers.js";
import { quietServer, send } from "./helpers.js";

function everything() {
  const mcp = quietServer("lists");
  mcp.tool("t", {}, () => "t");
  mcp.prompt("p", {}, () => "p");
  mcp.resource("file:///a.txt", {}, () => "a");
  mcp.resource("users://{id}", {}, ({ id }) => `user ${id}`);
  return mcp;
}

const LISTS = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"];

describe("list pagination", () => {
  it.each(LISTS)("%s answers a cursor it never issued with -32602", async (method) => {
    for (const cursor of ["garbage", ""]) {
      const response = await send(everything(), method, { cursor });
      expect(response).toEqual({
        jsonrpc: "2.0",
        id: response?.id,
        error: { code: -32602, message: "Invalid cursor" },
      });
    }
  });

  it.each(LISTS)("%s without a cursor is the whole list, with no nextCursor", async (method) => {
    const result = resultOf(await send(everything(), method));
    expect(result).not.toHaveProperty("nextCursor");
    expect(Object.values(result).some((value) => Array.isArray(value) && value.length > 0)).toBe(true);
  });
});
