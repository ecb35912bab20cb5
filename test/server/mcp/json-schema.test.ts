import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { request, resultOf } from "../../helpers.js";

/** Calls a tool whose input is a raw JSON Schema and tells whether the arguments were accepted. */
async function accepts(schema: Record<string, unknown>, args: Record<string, unknown>): Promise<boolean> {
  const mcp = new MCPServer("schemas", { logger: silentLogger });
  mcp.tool("t", { input: schema }, () => "ran");
  const result = resultOf(await mcp.dispatch(request("tools/call", { name: "t", arguments: args })));
  return result.isError !== true;
}

describe("raw JSON Schema (2020-12) tool inputs are validated by a real validator", () => {
  it("honours required inside allOf and additionalProperties: false next to it", async () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" } },
      allOf: [{ required: ["a"] }],
      additionalProperties: false,
    };
    expect(await accepts(schema, {})).toBe(false);
    expect(await accepts(schema, { a: "x", b: 1 })).toBe(false);
    expect(await accepts(schema, { a: "x" })).toBe(true);
  });

  it("honours anyOf branches and if/then/else", async () => {
    const anyOf = { type: "object", anyOf: [{ required: ["a"] }, { required: ["b"] }] };
    expect(await accepts(anyOf, {})).toBe(false);
    expect(await accepts(anyOf, { b: 1 })).toBe(true);
    const conditional = {
      type: "object",
      properties: { kind: { enum: ["card", "iban"] }, number: { type: "string" } },
      if: { properties: { kind: { const: "card" } } },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable.
      then: { required: ["number"] },
    };
    expect(await accepts(conditional, { kind: "card" })).toBe(false);
    expect(await accepts(conditional, { kind: "card", number: "4111" })).toBe(true);
    expect(await accepts(conditional, { kind: "iban" })).toBe(true);
  });

  it("resolves local $ref/$defs and never fetches a network $ref", async () => {
    const local = {
      type: "object",
      $defs: { id: { type: "integer", minimum: 1 } },
      properties: { id: { $ref: "#/$defs/id" } },
    };
    expect(await accepts(local, { id: 0 })).toBe(false);
    expect(await accepts(local, { id: 3 })).toBe(true);
    const remote = { type: "object", properties: { x: { $ref: "https://example.invalid/schema.json" } } };
    // Unresolvable: refused (deny on error) rather than fetched.
    expect(await accepts(remote, { x: 1 })).toBe(false);
  });

  it("advertises the schema exactly as given and says which argument is wrong", async () => {
    const schema = { type: "object", properties: { n: { type: "integer", maximum: 3 } }, required: ["n"] };
    const mcp = new MCPServer("schemas", { logger: silentLogger });
    mcp.tool("t", { input: schema }, () => "ran");
    expect(resultOf(await mcp.dispatch(request("tools/list"))).tools).toEqual([
      { name: "t", inputSchema: schema },
    ]);
    const result = resultOf(await mcp.dispatch(request("tools/call", { name: "t", arguments: { n: 9 } })));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("Invalid arguments for tool t: n:");
  });
});
