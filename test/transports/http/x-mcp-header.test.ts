import { describe, expect, it } from "vitest";
import { acceptsJsonAndEventStream } from "../../../src/transports/http/body.js";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  isPlainHeaderValue,
} from "../../../src/transports/http/headers.js";
import {
  filterToolsWithValidHeaders,
  paramHeadersFor,
  validateXMcpHeaders,
} from "../../../src/transports/http/x-mcp-header.js";

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});

describe("validateXMcpHeaders", () => {
  it("collects declarations reachable through properties chains", () => {
    expect(
      validateXMcpHeaders(
        object({
          region: { type: "string", "x-mcp-header": "Region" },
          count: { type: ["integer", "null"], "x-mcp-header": "Count", maximum: 100 },
          nested: object({ flag: { type: "boolean", "x-mcp-header": "Flag" } }),
          plain: { type: "string" },
        }),
      ),
    ).toEqual({
      ok: true,
      problems: [],
      headers: [
        { name: "Region", path: ["region"], type: "string" },
        { name: "Count", path: ["count"], type: "integer" },
        { name: "Flag", path: ["nested", "flag"], type: "boolean" },
      ],
    });
    expect(validateXMcpHeaders({ type: "object" })).toEqual({ ok: true, problems: [], headers: [] });
  });

  it.each([
    [
      "an empty name",
      object({ a: { type: "string", "x-mcp-header": "" } }),
      "x-mcp-header on property a must be a non-empty string",
    ],
    [
      "a non-string name",
      object({ a: { type: "string", "x-mcp-header": 7 } }),
      "x-mcp-header on property a must be a non-empty string",
    ],
    [
      "a space",
      object({ a: { type: "string", "x-mcp-header": "My Region" } }),
      'x-mcp-header "My Region" on property a is not an HTTP token',
    ],
    [
      "CR/LF",
      object({ a: { type: "string", "x-mcp-header": "A\r\nX-Evil" } }),
      'x-mcp-header "A\\r\\nX-Evil" on property a is not an HTTP token',
    ],
    [
      "a colon",
      object({ a: { type: "string", "x-mcp-header": "A:B" } }),
      'x-mcp-header "A:B" on property a is not an HTTP token',
    ],
    [
      "non-ASCII",
      object({ a: { type: "string", "x-mcp-header": "Régión" } }),
      'x-mcp-header "Régión" on property a is not an HTTP token',
    ],
    [
      "a case-insensitive duplicate",
      object({
        a: { type: "string", "x-mcp-header": "Region" },
        b: { type: "string", "x-mcp-header": "REGION" },
      }),
      'x-mcp-header "REGION" is declared more than once',
    ],
    [
      "a number property",
      object({ a: { type: "number", "x-mcp-header": "A" } }),
      "x-mcp-header on property a needs type string, integer or boolean",
    ],
    [
      "an object property",
      object({ a: object({}, { "x-mcp-header": "A" }) }),
      "x-mcp-header on property a needs type string, integer or boolean",
    ],
    [
      "an untyped property",
      object({ a: { "x-mcp-header": "A" } }),
      "x-mcp-header on property a needs type string, integer or boolean",
    ],
    [
      "an integer beyond 2^53",
      object({ a: { type: "integer", "x-mcp-header": "A", maximum: 2 ** 60 } }),
      "x-mcp-header on property a allows integers beyond ±(2^53−1)",
    ],
    [
      "items",
      object({ a: { type: "array", items: { type: "string", "x-mcp-header": "A" } } }),
      "x-mcp-header on #/properties/a/items is not reachable purely through properties",
    ],
    [
      "anyOf",
      object({ a: { anyOf: [{ type: "string", "x-mcp-header": "A" }] } }),
      "x-mcp-header on #/properties/a/anyOf/0 is not reachable purely through properties",
    ],
    [
      "$defs",
      { type: "object", $defs: { "r/x": { type: "string", "x-mcp-header": "A" } } },
      "x-mcp-header on #/$defs/r~1x is not reachable purely through properties",
    ],
    [
      "then",
      JSON.parse('{"type":"object","then":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}'),
      "x-mcp-header on #/then/properties/a is not reachable purely through properties",
    ],
    [
      "the root",
      { type: "object", "x-mcp-header": "Root" },
      "x-mcp-header on the schema root is not reachable purely through properties",
    ],
  ])("refuses %s", (_label, schema, problem) => {
    const result = validateXMcpHeaders(schema);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([problem]);
  });

  it("never dereferences $ref and survives absurd depth", () => {
    expect(validateXMcpHeaders(object({ a: { $ref: "https://evil.example/schema.json" } })).ok).toBe(true);
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 200; i++) deep = object({ d: deep });
    expect(validateXMcpHeaders(deep).problems).toEqual(["inputSchema is too large or too deep to check"]);
  });

  it("checks a schema object used at two places once per place, as its JSON would be read", () => {
    const region = { type: "string", "x-mcp-header": "Region" };
    expect(validateXMcpHeaders(object({ from: region, to: region })).problems).toEqual([
      'x-mcp-header "Region" is declared more than once',
    ]);
    expect(validateXMcpHeaders(object({ region, other: { anyOf: [region] } })).problems).toEqual([
      "x-mcp-header on #/properties/other/anyOf/0 is not reachable purely through properties",
    ]);
  });

  it("stops at a schema object that contains itself", () => {
    const loop: Record<string, unknown> = { type: "object" };
    loop.properties = { again: loop, region: { type: "string", "x-mcp-header": "Region" } };
    expect(validateXMcpHeaders(loop)).toEqual({
      ok: true,
      headers: [{ name: "Region", path: ["region"], type: "string" }],
      problems: [],
    });
  });

  it("treats a property literally named x-mcp-header as a property", () => {
    expect(validateXMcpHeaders(object({ "x-mcp-header": { type: "object" } })).ok).toBe(true);
  });
});

describe("filterToolsWithValidHeaders", () => {
  it("drops violating tools with one warning each", () => {
    const warnings: string[] = [];
    const tools = [
      { name: "good", inputSchema: object({ r: { type: "string", "x-mcp-header": "R" } }) },
      { name: "bad", inputSchema: object({ r: { type: "number", "x-mcp-header": "R" } }) },
      { name: "plain", inputSchema: { type: "object" } },
    ];
    expect(filterToolsWithValidHeaders(tools, (w) => warnings.push(w)).map((t) => t.name)).toEqual([
      "good",
      "plain",
    ]);
    expect(warnings).toEqual([
      'Dropping tool "bad": x-mcp-header on property r needs type string, integer or boolean',
    ]);
  });
});

describe("header values", () => {
  it("stay plain only when safe visible ASCII", () => {
    expect(["eu-west-1", "a b", "file:///x?y=1"].map(isPlainHeaderValue)).toEqual([true, true, true]);
    expect([" lead", "trail ", "tab\t", "é", "", "=?base64?x?="].map(isPlainHeaderValue)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("round-trip through the sentinel", () => {
    for (const value of ["café ☕", " padded ", "", "=?base64?eA==?=", "line\nbreak", "plain"]) {
      const encoded = encodeHeaderValue(value);
      expect(encoded).toMatch(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/);
      expect(decodeHeaderValue(encoded)).toEqual({ ok: true, value });
    }
  });

  it("mirror arguments by type and skip what cannot be mirrored", () => {
    const declared = [
      { name: "S", path: ["s"], type: "string" as const },
      { name: "I", path: ["i"], type: "integer" as const },
      { name: "B", path: ["b"], type: "boolean" as const },
      { name: "F", path: ["f"], type: "integer" as const },
      { name: "N", path: ["n", "x"], type: "string" as const },
    ];
    expect(paramHeadersFor(declared, { s: "ü", i: -7, b: false, f: 1.5, n: null })).toEqual({
      "Mcp-Param-S": "=?base64?w7w=?=",
      "Mcp-Param-I": "-7",
      "Mcp-Param-B": "false",
    });
  });

  it("skip a string with a lone surrogate, which UTF-8 cannot carry, but mirror a paired one", () => {
    const declared = [
      { name: "Lone", path: ["lone"], type: "string" as const },
      { name: "Pair", path: ["pair"], type: "string" as const },
    ];
    expect(paramHeadersFor(declared, { lone: "ab\ud800cd", pair: "\ud83d\ude00" })).toEqual({
      "Mcp-Param-Pair": "=?base64?8J+YgA==?=",
    });
  });
});

describe("Accept negotiation", () => {
  it.each([
    ["application/json, text/event-stream", true],
    ["text/event-stream, application/json", true],
    ["*/*", true],
    ["application/*, text/*", true],
    ["application/json;q=0.9, */*;q=0.1", true],
    ["application/json", false],
    ["text/event-stream", false],
    ["*/*, text/event-stream;q=0", false],
    ["text/html", false],
  ])("%s → %s", (accept, expected) => {
    expect(acceptsJsonAndEventStream(accept)).toBe(expected);
  });
});
