// isResourceNotFound accepts both codes a missing resource may come with (spec §7 client: accept
// -32602 and -32002): our server's 2026-07-28 answer, and its answer on a 2025 session.
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { isResourceNotFound } from "../../src/client/errors.js";
import { McpError } from "../../src/types/index.js";
import { quietServer } from "../server/mcp/helpers.js";

function library() {
  const mcp = quietServer("library");
  mcp.resource("books://{id}", {}, ({ id }) => {
    if (id === "bad") throw new McpError(-32602, "Invalid book id");
    return `book ${id}`;
  });
  return mcp;
}

describe("isResourceNotFound", () => {
  it.each(["2026-07-28", "legacy"] as const)("recognizes a missing resource (%s)", async (mode) => {
    const client = await Client.connect(library(), { mode });
    const missing = await client.readResource("nowhere://x").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(McpError);
    expect((missing as McpError).code).toBe(mode === "legacy" ? -32002 : -32602);
    expect(isResourceNotFound(missing)).toBe(true);
    await client.close();
  });

  it("is false for other failures, -32602 without a uri included", async () => {
    const client = await Client.connect(library());
    const invalid = await client.readResource("books://bad").catch((error: unknown) => error);
    expect((invalid as McpError).code).toBe(-32602);
    expect(isResourceNotFound(invalid)).toBe(false);
    expect(isResourceNotFound(new Error("boom"))).toBe(false);
    expect(isResourceNotFound(new McpError(-32603, "Internal error", { uri: "x://1" }))).toBe(false);
  });
});
