import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { silentLogger } from "../../../src/server/logger.js";
import { jsonSchema, MCPServer, type StandardSchemaV1, ToolError } from "../../../src/server/mcp/index.js";
import { compileSchema } from "../../../src/server/mcp/schema.js";
import { McpError } from "../../../src/types/index.js";
import { errorOf, recordingLogger, request, resultOf, unhandledRejections } from "../../helpers.js";
import { connect, linesAt, quietServer, send, stamp } from "./helpers.js";

const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";
const STAMP = stamp("tools");
// A rejection nobody handled would end a server under Node's default: none may happen here.
const unhandled = unhandledRejections();

/** A hand-made Standard Schema (with the Standard JSON Schema extension) for `{ city: string }`. */
function cityStandardSchema() {
  const seen = { validations: 0, targets: [] as string[] };
  const json = {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
  };
  const schema: StandardSchemaV1<{ city: string }> = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate(value) {
        seen.validations++;
        const city = (value as { city?: unknown } | null)?.city;
        return typeof city === "string"
          ? { value: { city: city.toUpperCase() } }
          : { issues: [{ message: "city must be a string", path: ["city"] }] };
      },
      jsonSchema: {
        input: ({ target }) => {
          seen.targets.push(target);
          return json;
        },
        output: () => json,
      },
    },
  };
  return { schema, seen };
}

/** The same shape with no JSON Schema form. */
const opaqueStandardSchema: StandardSchemaV1 = {
  "~standard": { version: 1, vendor: "opaque", validate: (value) => ({ value }) },
};

describe("tools/list", () => {
  it("lists tools in registration order with JSON Schema 2020-12 input schemas", async () => {
    const mcp = quietServer("tools");
    mcp.tool(
      "greet",
      {
        title: "Greeter",
        description: "Says hello",
        input: z.object({ name: z.string().describe("Who to greet"), times: z.number().int().optional() }),
      },
      ({ name }) => `Hello, ${name}!`,
    );
    mcp.tool("ping", { description: "No input" }, () => "pong");
    mcp.tool("add", { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));

    expect(resultOf(await send(mcp, "tools/list"))).toEqual({
      tools: [
        {
          name: "greet",
          title: "Greeter",
          description: "Says hello",
          inputSchema: {
            $schema: DRAFT_2020_12,
            type: "object",
            properties: {
              name: { type: "string", description: "Who to greet" },
              times: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
            },
            required: ["name"],
          },
        },
        { name: "ping", description: "No input", inputSchema: { type: "object", properties: {} } },
        {
          name: "add",
          inputSchema: {
            $schema: DRAFT_2020_12,
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" } },
            required: ["a", "b"],
          },
        },
      ],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: STAMP,
    });
  });

  it("advertises a raw JSON Schema input (jsonSchema) verbatim and validates against it ($defs/$ref included)", async () => {
    const mcp = quietServer("tools");
    const input = {
      type: "object",
      $defs: { count: { type: "integer", minimum: 1 } },
      properties: { n: { $ref: "#/$defs/count" } },
      required: ["n"],
    };
    mcp.tool("repeat", { input: jsonSchema(input) }, (args) => JSON.stringify(args));
    const listed = resultOf(await send(mcp, "tools/list")).tools as { inputSchema: unknown }[];
    expect(listed[0]?.inputSchema).toEqual(input);

    const ok = resultOf(await send(mcp, "tools/call", { name: "repeat", arguments: { n: 2 } }));
    expect(ok.content).toEqual([{ type: "text", text: '{"n":2}' }]);
    const bad = resultOf(await send(mcp, "tools/call", { name: "repeat", arguments: { n: 0 } }));
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0]?.text).toMatch(/^Invalid arguments for tool repeat: n: /);
  });

  it("takes a hand-made Standard Schema: its JSON Schema (draft-2020-12 target) is advertised, its validator runs", async () => {
    const mcp = quietServer("tools");
    const { schema, seen } = cityStandardSchema();
    mcp.tool("weather", { input: schema }, ({ city }) => `Sunny in ${city}`);
    expect(seen.targets).toEqual(["draft-2020-12"]);
    expect(mcp.toolInputSchema("weather")).toEqual({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
    expect(resultOf(await send(mcp, "tools/call", { name: "weather", arguments: { city: "oslo" } }))).toEqual(
      {
        content: [{ type: "text", text: "Sunny in OSLO" }],
        resultType: "complete",
        _meta: STAMP,
      },
    );
  });

  it.each([
    ["a promise", (result: unknown) => Promise.resolve(result)],
    [
      "a bare thenable",
      (result: unknown) => ({
        // biome-ignore lint/suspicious/noThenProperty: a non-promise thenable is the point of this case.
        then: (resolve: (value: unknown) => void) => resolve(result),
      }),
    ],
  ])(
    "awaits a Standard Schema whose validator answers with %s, for valid and invalid arguments",
    async (_, wrap) => {
      const mcp = quietServer("tools");
      const { schema, seen } = cityStandardSchema();
      const standard = schema["~standard"];
      const asyncSchema = {
        "~standard": { ...standard, validate: (value: unknown) => wrap(standard.validate(value)) },
      } as StandardSchemaV1<{ city: string }>;
      mcp.tool("weather", { input: asyncSchema }, ({ city }) => `Sunny in ${city}`);
      const call = async (args: Record<string, unknown>) =>
        resultOf(await send(mcp, "tools/call", { name: "weather", arguments: args }));
      expect(await call({ city: "oslo" })).toEqual({
        content: [{ type: "text", text: "Sunny in OSLO" }],
        resultType: "complete",
        _meta: STAMP,
      });
      expect(await call({ city: 7 })).toEqual({
        content: [{ type: "text", text: "Invalid arguments for tool weather: city: city must be a string" }],
        isError: true,
        resultType: "complete",
        _meta: STAMP,
      });
      expect(seen.validations).toBe(2);
    },
  );

  it("rejects a Standard Schema without a JSON Schema form at registration, with a clear message", () => {
    const mcp = quietServer("tools");
    expect(() => mcp.tool("opaque", { input: opaqueStandardSchema }, () => "x")).toThrow(
      /This opaque schema has no JSON Schema form \(Standard JSON Schema; zod\/mini and zod before 4.2 have none\): pass a schema whose library has one, or a raw JSON Schema through jsonSchema\(\)$/,
    );
    expect(mcp.toolInputSchema("opaque")).toBeUndefined();
  });

  it("rejects a zod/mini schema at registration, saying why and what to pass instead", () => {
    const mcp = quietServer("tools");
    expect(() => mcp.tool("mini", { input: zm.object({ city: zm.string() }) }, () => "x")).toThrow(
      "This zod schema has no JSON Schema form (Standard JSON Schema; zod/mini and zod before 4.2 have none)",
    );
    expect(mcp.toolInputSchema("mini")).toBeUndefined();
  });

  it.each([
    ["a zod string", z.string()],
    ["a zod array", z.array(z.string())],
    ["a raw JSON Schema string", jsonSchema({ type: "string" })],
  ])("rejects a non-object input (%s) at registration", (_label, input) => {
    const mcp = quietServer("tools");
    expect(() => mcp.tool("bad", { input }, () => "x")).toThrow(
      'The input of tool bad must describe an object (its JSON Schema needs "type": "object" at the root)',
    );
    expect(mcp.server.hasHandler("tools/call")).toBe(false);
  });

  it.each([
    [
      "a name that is not an HTTP token (zod metadata)",
      z.object({ region: z.string().meta({ "x-mcp-header": "Cloud Region" }) }),
      'x-mcp-header "Cloud Region" on property region is not an HTTP token',
    ],
    [
      "a case-insensitive duplicate",
      jsonSchema({
        type: "object",
        properties: {
          a: { type: "string", "x-mcp-header": "Region" },
          b: { type: "string", "x-mcp-header": "region" },
        },
      }),
      'x-mcp-header "region" is declared more than once',
    ],
    [
      "a number property",
      jsonSchema({ type: "object", properties: { size: { type: "number", "x-mcp-header": "Size" } } }),
      "x-mcp-header on property size needs type string, integer or boolean",
    ],
    [
      "a declaration inside items",
      z.object({ tags: z.array(z.string().meta({ "x-mcp-header": "Tag" })) }),
      "x-mcp-header on #/properties/tags/items is not reachable purely through properties",
    ],
  ])(
    "refuses a tool whose x-mcp-header HTTP clients must drop (%s), at registration",
    (_label, input, problem) => {
      const mcp = quietServer("tools");
      expect(() => mcp.tool("route", { input }, () => "x")).toThrow(
        `Tool route would be dropped by HTTP clients: ${problem}`,
      );
      expect(mcp.toolInputSchema("route")).toBeUndefined();
      expect(mcp.server.hasHandler("tools/call")).toBe(false);
    },
  );

  it("registers a tool whose x-mcp-header declarations are valid, and lists them as declared", async () => {
    const mcp = quietServer("tools");
    mcp.tool(
      "route",
      { input: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }), dryRun: z.boolean() }) },
      ({ region }) => region,
    );
    const [tool] = resultOf(await send(mcp, "tools/list")).tools as {
      inputSchema: { properties: unknown };
    }[];
    expect(tool?.inputSchema.properties).toEqual({
      region: { type: "string", "x-mcp-header": "Region" },
      dryRun: { type: "boolean" },
    });
  });

  it("rejects a duplicate tool name and keeps the first registration", async () => {
    const mcp = quietServer("tools");
    mcp.tool("dup", { description: "first" }, () => "first");
    expect(() => mcp.tool("dup", { description: "second" }, () => "second")).toThrow(
      'A tool named "dup" is already registered',
    );
    const tools = resultOf(await send(mcp, "tools/list")).tools as { description: string }[];
    expect(tools.map((t) => t.description)).toEqual(["first"]);
    expect(resultOf(await send(mcp, "tools/call", { name: "dup" })).content).toEqual([
      { type: "text", text: "first" },
    ]);
  });

  it("toolInputSchema returns the advertised schema, undefined for an unknown tool", () => {
    const mcp = quietServer("tools");
    mcp.tool("a", { input: z.object({ x: z.string() }) }, () => "x");
    mcp.tool("b", {}, () => "y");
    expect(mcp.toolInputSchema("a")).toEqual({
      $schema: DRAFT_2020_12,
      type: "object",
      properties: { x: { type: "string" } },
      required: ["x"],
    });
    expect(mcp.toolInputSchema("b")).toEqual({ type: "object", properties: {} });
    expect(mcp.toolInputSchema("nope")).toBeUndefined();
  });
});

describe("tools/call arguments", () => {
  it("validates the arguments exactly once per call", async () => {
    const mcp = quietServer("tools");
    const { schema, seen } = cityStandardSchema();
    const received: unknown[] = [];
    mcp.tool("weather", { input: schema }, (args) => {
      received.push(args);
      return "ok";
    });
    await send(mcp, "tools/call", { name: "weather", arguments: { city: "rome" } });
    expect(seen.validations).toBe(1);
    expect(received).toEqual([{ city: "ROME" }]);
  });

  it("validates a zod schema once, even when it has side effects", async () => {
    const mcp = quietServer("tools");
    let parses = 0;
    const input = z
      .object({ n: z.number() })
      .transform((v) => {
        parses++;
        return v;
      })
      .pipe(z.object({ n: z.number() }));
    // A transform/pipe is still an object schema at the input side.
    mcp.tool("count", { input }, ({ n }) => String(n));
    await send(mcp, "tools/call", { name: "count", arguments: { n: 1 } });
    expect(parses).toBe(1);
  });

  it("validates a zod schema with an async refinement (parsed asynchronously from then on)", async () => {
    const mcp = quietServer("tools");
    let checks = 0;
    const input = z.object({
      name: z.string().refine(async (name) => {
        checks++;
        return name !== "taken";
      }, "that name is taken"),
    });
    mcp.tool("claim", { input }, ({ name }) => `claimed ${name}`);
    const ok = resultOf(await send(mcp, "tools/call", { name: "claim", arguments: { name: "free" } }));
    expect(ok.content).toEqual([{ type: "text", text: "claimed free" }]);
    const taken = resultOf(await send(mcp, "tools/call", { name: "claim", arguments: { name: "taken" } }));
    expect(taken).toMatchObject({ isError: true });
    expect(JSON.stringify(taken.content)).toContain("that name is taken");
    // Parsed asynchronously from the first call: the refinement runs once per call.
    expect(checks).toBe(2);
  });

  // Regression: a synchronous parse that met the refinement dropped its promise, so a refinement
  // rejecting on the first call (a client's crafted argument) was an unhandled rejection: a crash.
  it("answers a rejecting async refinement on the first call without an unhandled rejection", async () => {
    const mcp = quietServer("tools");
    const input = z.object({
      name: z.string(),
      owner: z
        .string()
        .optional()
        .refine(async (owner) => {
          if (owner === "boom") throw new Error("directory down");
          return true;
        }),
    });
    mcp.tool("claim", { input }, ({ name }) => `claimed ${name}`);
    const failed = resultOf(
      await send(mcp, "tools/call", { name: "claim", arguments: { name: "a", owner: "boom" } }),
    );
    expect(failed).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Error executing tool claim" }],
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
  });

  it("keeps the synchronous parse for schemas that run no user code, and only for them", () => {
    const parse = (schema: z.ZodType) => compileSchema(schema).validate({ n: 1 });
    expect(parse(z.object({ n: z.number().int().min(0), s: z.email().optional() }))).toEqual({
      ok: true,
      value: { n: 1 },
    });
    expect(parse(z.object({ n: z.union([z.number(), z.array(z.tuple([z.string()]))]).nullable() }))).toEqual({
      ok: true,
      value: { n: 1 },
    });
    const user = [
      z.object({ n: z.number().refine((n) => n > 0) }),
      z.object({ n: z.number() }).transform((v) => v),
      z.object({ n: z.lazy(() => z.number()) }),
      z.object({ n: z.union([z.string(), z.number().refine(() => true)]) }),
      z.object({
        n: z
          .number()
          .refine(() => true)
          .optional(),
      }),
      z.object({ n: z.custom<number>(() => true) }),
      z.object({
        n: z.array(
          z.record(
            z.string(),
            z
              .number()
              .optional()
              .refine(() => true),
          ),
        ),
      }),
      z.object({ n: z.number() }).catchall(z.string().superRefine(() => {})),
    ];
    for (const schema of user) expect(parse(schema)).toBeInstanceOf(Promise);
  });

  it("answers invalid arguments with an isError result naming the tool, without running it", async () => {
    const mcp = quietServer("tools");
    let ran = false;
    mcp.tool("add", { input: z.object({ a: z.number(), b: z.number() }) }, () => {
      ran = true;
      return "x";
    });
    const result = resultOf(await send(mcp, "tools/call", { name: "add", arguments: { a: "1" } }));
    expect(result).toEqual({
      content: [{ type: "text", text: expect.stringMatching(/^Invalid arguments for tool add: /) }],
      isError: true,
      resultType: "complete",
      _meta: STAMP,
    });
    const text = (result.content as { text: string }[])[0]?.text ?? "";
    expect(text).toContain("a: ");
    expect(text).toContain("b: ");
    expect(ran).toBe(false);
  });

  it("applies zod defaults before the handler runs (absent arguments read as {})", async () => {
    const mcp = quietServer("tools");
    const seen: unknown[] = [];
    mcp.tool(
      "page",
      { input: z.object({ limit: z.number().default(20), cursor: z.string().optional() }) },
      (args) => {
        seen.push(args);
        return "ok";
      },
    );
    await send(mcp, "tools/call", { name: "page" });
    await send(mcp, "tools/call", { name: "page", arguments: { limit: 5, cursor: "c" } });
    expect(seen).toEqual([{ limit: 20 }, { limit: 5, cursor: "c" }]);
    const schema = mcp.toolInputSchema("page") as { required?: string[] };
    expect(schema.required).toBeUndefined();
  });

  it("answers an unknown tool with -32602 'Unknown tool: x'", async () => {
    const mcp = quietServer("tools");
    mcp.tool("known", {}, () => "x");
    expect(errorOf(await send(mcp, "tools/call", { name: "x" }))).toEqual({
      code: -32602,
      message: "Unknown tool: x",
    });
  });
});

describe("tools/call return conversions", () => {
  const cases: [string, unknown, Record<string, unknown>][] = [
    ["a string", "hello", { content: [{ type: "text", text: "hello" }] }],
    [
      "one content block",
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
    ],
    [
      "a content array",
      [
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ],
      {
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
    ],
    [
      "a CallToolResult (as-is)",
      { content: [{ type: "text", text: "raw" }], isError: true, _meta: { "com.example/x": 1 } },
      { content: [{ type: "text", text: "raw" }], isError: true, _meta: { "com.example/x": 1, ...STAMP } },
    ],
    [
      "a plain object without output (JSON text)",
      { id: 7, tags: ["a"] },
      { content: [{ type: "text", text: '{"id":7,"tags":["a"]}' }] },
    ],
    ["a number", 42, { content: [{ type: "text", text: "42" }] }],
    ["undefined", undefined, { content: [] }],
  ];

  it.each(cases)("converts %s", async (_label, value, expected) => {
    const mcp = quietServer("tools");
    mcp.tool("t", {}, () => value as never);
    expect(resultOf(await send(mcp, "tools/call", { name: "t" }))).toEqual({
      _meta: STAMP,
      ...expected,
      resultType: "complete",
    });
  });

  it("sends structured data as structuredContent plus its JSON text when the tool has an output schema", async () => {
    const mcp = quietServer("tools");
    mcp.tool("stats", { output: z.object({ count: z.number(), label: z.string().default("n/a") }) }, () => ({
      count: 3,
    }));
    expect(resultOf(await send(mcp, "tools/call", { name: "stats" }))).toEqual({
      content: [{ type: "text", text: '{"count":3,"label":"n/a"}' }],
      structuredContent: { count: 3, label: "n/a" },
      resultType: "complete",
      _meta: STAMP,
    });
    const listed = resultOf(await send(mcp, "tools/list")).tools as { outputSchema: unknown }[];
    expect(listed[0]?.outputSchema).toEqual({
      $schema: DRAFT_2020_12,
      type: "object",
      properties: { count: { type: "number" }, label: { type: "string", default: "n/a" } },
      required: ["count", "label"],
      additionalProperties: false,
    });
  });

  it("allows a non-object output schema (array structuredContent)", async () => {
    const mcp = quietServer("tools");
    mcp.tool("nums", { output: z.array(z.number()) }, () => [1, 2]);
    expect(resultOf(await send(mcp, "tools/call", { name: "nums" }))).toEqual({
      content: [{ type: "text", text: "[1,2]" }],
      structuredContent: [1, 2],
      resultType: "complete",
      _meta: STAMP,
    });
  });

  it("answers output that fails the output schema with isError and logs the mismatch", async () => {
    const logger = recordingLogger();
    const mcp = new MCPServer("tools", { logger });
    mcp.tool("stats", { output: z.object({ count: z.number() }) }, () => ({ count: "three" }));
    expect(resultOf(await send(mcp, "tools/call", { name: "stats" }))).toEqual({
      content: [{ type: "text", text: "Tool stats returned output that does not match its outputSchema" }],
      isError: true,
      resultType: "complete",
      _meta: STAMP,
    });
    expect(linesAt(logger, "error")).toEqual([
      expect.stringMatching(/^tool stats returned output that does not match its outputSchema: count: /),
    ]);
  });

  // Regression: a schema that lets undefined through (z.any(), z.unknown()) made a tool that returned
  // nothing answer -32603 "Handler returned an invalid result" (its text was undefined) where any
  // other schema gives the isError result the spec asks for output problems.
  it("answers no output from a tool whose output schema accepts anything with isError", async () => {
    const logger = recordingLogger();
    const mcp = new MCPServer("tools", { logger });
    const store = new Map<string, Record<string, unknown>>();
    mcp.tool("get", { input: z.object({ key: z.string() }), output: z.any() }, ({ key }) => store.get(key));
    expect(resultOf(await send(mcp, "tools/call", { name: "get", arguments: { key: "k" } }))).toEqual({
      content: [{ type: "text", text: "Tool get returned output that does not match its outputSchema" }],
      isError: true,
      resultType: "complete",
      _meta: STAMP,
    });
    expect(linesAt(logger, "error")).toEqual([
      "tool get returned output that does not match its outputSchema: it returned no value",
    ]);
  });

  // Regression: a tool with an `output` schema cannot return a hand-built CallToolResult: the whole
  // result object is validated as if it were the structured data, so even a result whose
  // structuredContent conforms is turned into "returned output that does not match its
  // outputSchema". MCPServer.tool documents a CallToolResult as a valid return
  // (src/server/mcp/mcp-server.ts: "it returns text, content, structured data (with `output`),
  // a `CallToolResult`, or an `InputRequiredResult`"), and results.ts passes CallToolResults as-is
  // for tools without `output`.
  it("passes a hand-built CallToolResult as-is from a tool that declares an output schema", async () => {
    const mcp = quietServer("tools");
    mcp.tool("stats", { output: z.object({ count: z.number() }) }, () => ({
      content: [{ type: "text", text: "3 items" }],
      structuredContent: { count: 3 },
    }));
    expect(resultOf(await send(mcp, "tools/call", { name: "stats" }))).toEqual({
      content: [{ type: "text", text: "3 items" }],
      structuredContent: { count: 3 },
      resultType: "complete",
      _meta: STAMP,
    });
  });

  it("passes a hand-built isError result as-is: the output schema binds successful results only", async () => {
    const mcp = quietServer("tools");
    mcp.tool(
      "lookup",
      { input: z.object({ id: z.string() }), output: z.object({ name: z.string() }) },
      ({ id }) => ({
        content: [{ type: "text", text: `No record ${id}` }],
        isError: true,
      }),
    );
    expect(resultOf(await send(mcp, "tools/call", { name: "lookup", arguments: { id: "7" } }))).toEqual({
      content: [{ type: "text", text: "No record 7" }],
      isError: true,
      resultType: "complete",
      _meta: STAMP,
    });
  });

  it("still checks a hand-built result that is not an error against the output schema", async () => {
    const mcp = quietServer("tools");
    mcp.tool("lookup", { output: z.object({ name: z.string() }) }, () => ({
      content: [{ type: "text", text: "found" }],
      isError: false,
      structuredContent: { name: 7 },
    }));
    expect(resultOf(await send(mcp, "tools/call", { name: "lookup" }))).toMatchObject({
      content: [{ type: "text", text: "Tool lookup returned output that does not match its outputSchema" }],
      isError: true,
    });
  });

  // Regression: structured data with a `content` array ([] is every() of anything) was taken for a
  // hand-built CallToolResult with no structuredContent, and failed its own output schema.
  it("takes data whose `content` array is empty as structured data, not as a hand-built result", async () => {
    const mcp = quietServer("tools");
    mcp.tool("chunks", { output: z.object({ content: z.array(z.string()) }) }, () => ({ content: [] }));
    expect(resultOf(await send(mcp, "tools/call", { name: "chunks" }))).toEqual({
      content: [{ type: "text", text: '{"content":[]}' }],
      structuredContent: { content: [] },
      resultType: "complete",
      _meta: STAMP,
    });
  });

  it("passes an InputRequiredResult through even when the tool has an output schema", async () => {
    const mcp = quietServer("tools");
    mcp.tool("ask", { output: z.object({ count: z.number() }) }, () => ({
      resultType: "input_required" as const,
      inputRequests: { confirm: { method: "roots/list" as const, params: {} } },
    }));
    expect(resultOf(await send(mcp, "tools/call", { name: "ask" }, { roots: {} }))).toEqual({
      resultType: "input_required",
      inputRequests: { confirm: { method: "roots/list", params: {} } },
      _meta: STAMP,
    });
  });
});

describe("tools/call failures", () => {
  it("turns a ToolError into an isError result carrying its message", async () => {
    const mcp = quietServer("tools");
    mcp.tool("drop", { input: z.object({ db: z.string() }) }, ({ db }) => {
      throw new ToolError(`No database named ${db}`);
    });
    expect(resultOf(await send(mcp, "tools/call", { name: "drop", arguments: { db: "orders" } }))).toEqual({
      content: [{ type: "text", text: "No database named orders" }],
      isError: true,
      resultType: "complete",
      _meta: STAMP,
    });
  });

  it.each([
    ["an Error", () => new Error("db password is hunter2")],
    ["a thrown string", () => "db password is hunter2"],
  ])("hides %s behind 'Error executing tool <name>' and logs the real message", async (_label, make) => {
    const logger = recordingLogger();
    const mcp = new MCPServer("tools", { logger });
    mcp.tool("boom", {}, () => {
      throw make();
    });
    const response = await send(mcp, "tools/call", { name: "boom" });
    expect(resultOf(response)).toEqual({
      content: [{ type: "text", text: "Error executing tool boom" }],
      isError: true,
      resultType: "complete",
      _meta: STAMP,
    });
    expect(JSON.stringify(response)).not.toContain("hunter2");
    const errors = linesAt(logger, "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^tool boom failed: /);
    expect(errors[0]).toContain("db password is hunter2");
  });

  it("lets an async rejection follow the same path", async () => {
    const mcp = quietServer("tools");
    mcp.tool("later", {}, async () => {
      await Promise.resolve();
      throw new Error("nope");
    });
    expect(resultOf(await send(mcp, "tools/call", { name: "later" })).content).toEqual([
      { type: "text", text: "Error executing tool later" },
    ]);
  });

  it("keeps an McpError's code, message and data as a top-level JSON-RPC error", async () => {
    const mcp = quietServer("tools");
    mcp.tool("sign-in", {}, () => {
      throw new McpError(-32021, "This tool needs URL elicitation", {
        requiredCapabilities: { elicitation: { url: {} } },
      });
    });
    expect(await send(mcp, "tools/call", { name: "sign-in" })).toEqual({
      jsonrpc: "2.0",
      id: expect.any(Number),
      error: {
        code: -32021,
        message: "This tool needs URL elicitation",
        data: { requiredCapabilities: { elicitation: { url: {} } } },
      },
    });
  });
});

describe("capabilities", () => {
  it("advertises only logging before anything is registered", async () => {
    const mcp = quietServer("tools");
    expect(resultOf(await send(mcp, "server/discover")).capabilities).toEqual({ logging: {} });
  });

  it("advertises tools (and logging) once a tool is registered, nothing for kinds never registered", async () => {
    const mcp = quietServer("tools");
    mcp.tool("t", {}, () => "x");
    const discovered = resultOf(await send(mcp, "server/discover"));
    expect(discovered).toEqual({
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {}, logging: {} },
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: STAMP,
    });
    for (const method of ["prompts/list", "resources/list", "completion/complete"]) {
      expect(errorOf(await send(mcp, method)).code).toBe(-32601);
    }
  });
});

describe("end to end through ClientSession", () => {
  it("lists and calls tools over the in-memory wire", async () => {
    const mcp = new MCPServer("tools", { logger: silentLogger, version: "1.2.3" });
    mcp.tool("add", { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
    const session = await connect(mcp);
    const listed = await session.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(["add"]);
    const result = await session.callTool("add", { a: 2, b: 3 });
    expect(result.content).toEqual([{ type: "text", text: "5" }]);
    expect(session.serverInfo).toEqual({ name: "tools", version: "1.2.3" });
    expect([mcp.name, mcp.version]).toEqual(["tools", "1.2.3"]);
    const invalid = await session.callTool("add", { a: 2 });
    expect(invalid.isError).toBe(true);
    await expect(session.callTool("nope")).rejects.toMatchObject({
      code: -32602,
      message: "Unknown tool: nope",
    });
    await session.close();
  });
});

describe("tool names", () => {
  it("warns at registration about a name outside the spec's format, and still serves it", async () => {
    const logger = recordingLogger();
    const mcp = new MCPServer("tools", { logger });
    const names = [
      "get_user",
      "admin.tools-list",
      "x".repeat(128),
      "a b",
      "café",
      "",
      "x".repeat(129),
      "user/update",
    ];
    for (const name of names) mcp.tool(name, {}, () => `ran ${name}`);
    const format = "is outside the spec's format (1-128 of A-Z a-z 0-9 _ - .): some clients refuse it";
    expect(linesAt(logger, "warn")).toEqual(
      ["a b", "café", "", "x".repeat(129), "user/update"].map(
        (name) => `Tool name ${JSON.stringify(name)} ${format}`,
      ),
    );
    const result = await mcp.dispatch(request("tools/call", { name: "a b", arguments: {} }));
    expect(resultOf(result)).toMatchObject({ content: [{ type: "text", text: "ran a b" }] });
  });
});
