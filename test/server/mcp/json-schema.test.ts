import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/server/logger.js";
import { jsonSchema } from "../../../src/server/mcp/json-schema.js";
import { MCPServer } from "../../../src/server/mcp/mcp-server.js";
import { request, resultOf } from "../../helpers.js";

/** Calls a tool whose input is a raw JSON Schema (`jsonSchema`) and tells whether the arguments were accepted. */
async function accepts(schema: Record<string, unknown>, args: Record<string, unknown>): Promise<boolean> {
  const mcp = new MCPServer("schemas", { logger: silentLogger });
  mcp.tool("t", { input: jsonSchema(schema) }, () => "ran");
  const result = resultOf(await mcp.dispatch(request("tools/call", { name: "t", arguments: args })));
  return result.isError !== true;
}

describe("raw JSON Schema (2020-12) tool inputs, through jsonSchema(), are validated by a real validator", () => {
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
    mcp.tool("t", { input: jsonSchema(schema) }, () => "ran");
    expect(resultOf(await mcp.dispatch(request("tools/list"))).tools).toEqual([
      { name: "t", inputSchema: schema },
    ]);
    const result = resultOf(await mcp.dispatch(request("tools/call", { name: "t", arguments: { n: 9 } })));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("Invalid arguments for tool t: n:");
  });
});

describe("a hostile input cannot stall a raw-JSON-Schema tool", () => {
  it("arguments that make the schema fan out exponentially get a tool error, and the server serves on", async () => {
    // Both branches walk down the same array: each level of nesting doubles the work.
    const schema = {
      type: "object",
      properties: { tree: { $ref: "#/$defs/tree" } },
      $defs: { tree: { anyOf: [{ items: { $ref: "#/$defs/tree" } }, { items: { $ref: "#/$defs/tree" } }] } },
    };
    const mcp = new MCPServer("schemas", { logger: silentLogger });
    mcp.tool("t", { input: jsonSchema(schema) }, () => "ran");
    const nest = (depth: number) => {
      let value: unknown = [];
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    const call = async (depth: number) =>
      resultOf(await mcp.dispatch(request("tools/call", { name: "t", arguments: { tree: nest(depth) } })));
    const hostile = await call(64);
    expect(hostile.isError).toBe(true);
    expect(hostile.content).toEqual([
      { type: "text", text: "Invalid arguments for tool t: the schema could not be evaluated" },
    ]);
    expect((await call(8)).content).toEqual([{ type: "text", text: "ran" }]);
  });
});

describe("a plain JSON Schema object needs jsonSchema()", () => {
  const raw = { type: "object", properties: { n: { type: "integer" } } };
  const guidance =
    "A plain JSON Schema object needs its validator: pass jsonSchema(schema) (from roundtrip-mcp/server)";

  it.each([
    ["a tool input", (mcp: MCPServer) => mcp.tool("t", { input: raw as never }, () => "ran")],
    ["a tool output", (mcp: MCPServer) => mcp.tool("t", { output: raw as never }, () => "ran")],
    ["prompt arguments", (mcp: MCPServer) => mcp.prompt("p", { arguments: raw as never }, () => "hi")],
  ])(
    "refuses it as %s at registration, saying what to pass, and registers nothing",
    async (_label, register) => {
      const mcp = new MCPServer("schemas", { logger: silentLogger });
      expect(() => register(mcp)).toThrow(guidance);
      expect(mcp.server.hasHandler("tools/call")).toBe(false);
      expect(mcp.server.hasHandler("prompts/get")).toBe(false);
    },
  );

  it("jsonSchema() refuses what is not a schema object, and a schema its validator cannot compile", () => {
    expect(() => jsonSchema([] as never)).toThrow("jsonSchema() takes a JSON Schema object");
    expect(() => jsonSchema(null as never)).toThrow("jsonSchema() takes a JSON Schema object");
    expect(() => jsonSchema({ type: "object", $id: "http://[bad" })).toThrow(
      /^Cannot validate against this JSON Schema: /,
    );
  });

  it("jsonSchema() is a Standard Schema whose JSON Schema form is the object as given", () => {
    const schema = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", required: ["a"] };
    const standard = jsonSchema(schema)["~standard"];
    expect(standard.version).toBe(1);
    expect(standard.jsonSchema?.input({ target: "draft-2020-12" })).toBe(schema);
    expect(standard.validate({ a: 1 })).toEqual({ value: { a: 1 } });
    expect(standard.validate({})).toEqual({ issues: [{ message: expect.stringContaining("a") }] });
  });

  it("jsonSchema() describes a structured output: advertised as given, and a result that breaks it is an error", async () => {
    const output = { type: "object", properties: { count: { type: "integer" } }, required: ["count"] };
    const mcp = new MCPServer("schemas", { logger: silentLogger });
    let count: unknown = 3;
    mcp.tool("stats", { output: jsonSchema(output) }, () => ({ count }));
    const [tool] = resultOf(await mcp.dispatch(request("tools/list"))).tools as { outputSchema: unknown }[];
    expect(tool?.outputSchema).toBe(output);
    const ok = resultOf(await mcp.dispatch(request("tools/call", { name: "stats" })));
    expect(ok).toMatchObject({ structuredContent: { count: 3 } });
    count = "three";
    const bad = resultOf(await mcp.dispatch(request("tools/call", { name: "stats" })));
    expect(bad).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Tool stats returned output that does not match its outputSchema" }],
    });
  });
});

describe("jsonSchema() validates in the dialect `$schema` names", () => {
  it("draft-04: a boolean exclusiveMinimum/exclusiveMaximum makes minimum/maximum exclusive", async () => {
    const schema = {
      $schema: "http://json-schema.org/draft-04/schema#",
      type: "object",
      properties: {
        low: { type: "number", minimum: 5, exclusiveMinimum: true },
        high: { type: "number", maximum: 10, exclusiveMaximum: true },
      },
    };
    expect(await accepts(schema, { low: 5 })).toBe(false);
    expect(await accepts(schema, { low: 5.5 })).toBe(true);
    expect(await accepts(schema, { high: 10 })).toBe(false);
    expect(await accepts(schema, { high: 3 })).toBe(true);
  });

  it("draft-06: keywords beside a $ref are ignored, as in draft-07", async () => {
    const schema = {
      $schema: "http://json-schema.org/draft-06/schema#",
      type: "object",
      definitions: { name: { type: "string" } },
      properties: { name: { $ref: "#/definitions/name", maxLength: 2 } },
    };
    expect(await accepts(schema, { name: "long" })).toBe(true);
    expect(await accepts(schema, { name: 1 })).toBe(false);
  });
});
