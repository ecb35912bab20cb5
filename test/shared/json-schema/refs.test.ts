/**
 * The JSON Schema validator's references ($ref, $id, $anchor, JSON pointers), its compile-time
 * errors, and what it does with hostile schemas and data: loops, deep nesting, `__proto__`.
 */
import { describe, expect, it } from "vitest";
import { jsonSchema } from "../../../src/server/mcp/json-schema.js";
import { compileJsonSchema } from "../../../src/shared/json-schema/compile.js";
import { passes, validate, verdicts } from "./helpers.js";

describe("$ref", () => {
  it("resolves $defs and definitions, and JSON pointers with ~0, ~1 and percent-escapes", () => {
    const schema = {
      $defs: {
        "a/b": { type: "string" },
        "t~x": { type: "integer" },
        "sp ace": { minimum: 3 },
        é: { maxLength: 1 },
      },
      definitions: { n: { type: "number" } },
      properties: {
        slash: { $ref: "#/$defs/a~1b" },
        tilde: { $ref: "#/$defs/t~0x" },
        space: { $ref: "#/$defs/sp%20ace" },
        accent: { $ref: "#/$defs/%C3%A9" },
        old: { $ref: "#/definitions/n" },
        deep: { $ref: "#/properties/old" },
      },
    };
    expect(verdicts(schema, [{ slash: "s", tilde: 1, space: 3, accent: "a", old: 1, deep: 2 }])).toEqual([
      true,
    ]);
    for (const bad of [
      { slash: 1 },
      { tilde: 1.5 },
      { space: 2 },
      { accent: "ab" },
      { old: "1" },
      { deep: "1" },
    ]) {
      expect(passes(schema, bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("recurses through '#' when each step goes one level down the value", () => {
    const tree = {
      type: "object",
      properties: { value: { type: "integer" }, children: { type: "array", items: { $ref: "#" } } },
      additionalProperties: false,
    };
    expect(passes(tree, { value: 1, children: [{ value: 2, children: [{ value: 3 }] }] })).toBe(true);
    expect(passes(tree, { value: 1, children: [{ value: 2, children: [{ value: "3" }] }] })).toBe(false);
    const errors = validate(tree, { children: [{ extra: 1 }] }).errors;
    expect(errors.map((e) => `${e.keyword} ${e.instanceLocation}`)).toEqual([
      "properties #",
      "items #/children",
      "$ref #/children/0",
      "additionalProperties #/children/0",
      "false #/children/0/extra",
    ]);
  });

  it("hides its siblings in draft-04 to -07, and applies beside them in 2020-12", () => {
    const schema = { $defs: { s: { type: "string" } }, definitions: { s: { type: "string" } } };
    const draft7 = { ...schema, properties: { a: { $ref: "#/definitions/s", maxLength: 2 } } };
    expect(verdicts(draft7, [{ a: "long" }, { a: 1 }], "7")).toEqual([true, false]);
    expect(verdicts(draft7, [{ a: "long" }, { a: 1 }], "4")).toEqual([true, false]);
    expect(verdicts(draft7, [{ a: "long" }, { a: "ok" }, { a: 1 }], "2020-12")).toEqual([false, true, false]);
    // At the root too: a root $ref in draft-07 is the whole schema.
    expect(passes({ $ref: "#/definitions/s", definitions: { s: true }, type: "integer" }, "x", "7")).toBe(
      true,
    );
    expect(passes({ $ref: "#/$defs/s", $defs: { s: true }, type: "integer" }, "x")).toBe(false);
  });

  it("in draft-04 to -07 hides a sibling $id too: it neither moves the base nor names the schema", () => {
    // Beside the $ref, "other/" would make "kind.json" mean other/kind.json (a string); hidden,
    // the $ref resolves against the root: top/kind.json, a number.
    const schema = (id: string) => ({
      [id]: "https://example.com/top/",
      definitions: {
        num: { [id]: "kind.json", type: "number" },
        str: { [id]: "https://example.com/top/other/kind.json", type: "string" },
      },
      properties: { a: { [id]: "other/", $ref: "kind.json" } },
    });
    expect(verdicts(schema("$id"), [{ a: 1 }, { a: "x" }], "7")).toEqual([true, false]);
    expect(verdicts(schema("id"), [{ a: 1 }, { a: "x" }], "4")).toEqual([true, false]);
    expect(verdicts(schema("$id"), [{ a: 1 }, { a: "x" }], "2020-12")).toEqual([false, true]);
    // Nor is a fragment $id beside a $ref an anchor to refer to.
    const anchored = { definitions: { a: { $id: "#a", $ref: "#/definitions/b" }, b: {} }, $ref: "#a" };
    expect(() => compileJsonSchema(anchored, "7")).toThrow(/Unresolvable \$ref "#a"/);
  });

  it("resolves against the base an embedded $id sets, and reaches an embedded resource by its URI", () => {
    const schema = {
      $id: "https://example.com/root.json",
      $defs: {
        inner: {
          $id: "nested/inner.json",
          $defs: { n: { type: "integer" } },
          // Relative to nested/inner.json: its own $defs, not the root's.
          $ref: "#/$defs/n",
        },
        n: { type: "string" },
      },
      properties: {
        byRelative: { $ref: "nested/inner.json" },
        byAbsolute: { $ref: "https://example.com/nested/inner.json#/$defs/n" },
        root: { $ref: "#/$defs/n" },
      },
    };
    expect(
      verdicts(schema, [{ byRelative: 1 }, { byRelative: "1" }, { byAbsolute: 1 }, { byAbsolute: "1" }]),
    ).toEqual([true, false, true, false]);
    expect(verdicts(schema, [{ root: "1" }, { root: 1 }])).toEqual([true, false]);
  });

  it("resolves $anchor, a fragment-only $id (draft-06/07), draft-04 id, and $dynamicRef statically", () => {
    const anchored = {
      $defs: { a: { $anchor: "num", type: "number" } },
      properties: { x: { $ref: "#num" } },
    };
    expect(verdicts(anchored, [{ x: 1 }, { x: "1" }])).toEqual([true, false]);
    const draft7 = {
      definitions: { a: { $id: "#num", type: "number" } },
      properties: { x: { $ref: "#num" } },
    };
    expect(verdicts(draft7, [{ x: 1 }, { x: "1" }], "7")).toEqual([true, false]);
    const draft4 = {
      id: "http://example.com/s.json",
      definitions: { a: { id: "a.json", type: "number" } },
      properties: { x: { $ref: "a.json" } },
    };
    expect(verdicts(draft4, [{ x: 1 }, { x: "1" }], "4")).toEqual([true, false]);
    const dynamic = {
      $dynamicAnchor: "node",
      type: "object",
      properties: { next: { $dynamicRef: "#node" }, v: { type: "integer" } },
    };
    expect(verdicts(dynamic, [{ next: { next: { v: 1 } } }, { next: { next: { v: "1" } } }])).toEqual([
      true,
      false,
    ]);
  });

  it("refuses at compile time a reference to a place the schema does not have", () => {
    expect(() => compileJsonSchema({ $ref: "#/$defs/missing" }, "2020-12")).toThrow(
      new TypeError('Unresolvable $ref "#/$defs/missing": no such place in the schema'),
    );
    expect(() => compileJsonSchema({ properties: { a: { $ref: "#nope" } } }, "2020-12")).toThrow(TypeError);
    expect(() => compileJsonSchema({ $ref: "#/constructor" }, "2020-12")).toThrow(TypeError);
    expect(() => compileJsonSchema({ $ref: "#/$defs/a/__proto__", $defs: { a: {} } }, "2020-12")).toThrow(
      TypeError,
    );
    const embedded = {
      $defs: { e: { $id: "https://example.com/e.json" } },
      $ref: "https://example.com/e.json#/x",
    };
    expect(() => compileJsonSchema(embedded, "2020-12")).toThrow(TypeError);
    expect(() => jsonSchema({ $ref: "#/$defs/missing" })).toThrow(
      /^Cannot validate against this JSON Schema: Unresolvable \$ref/,
    );
  });

  it("never fetches another document: the validation that reaches its $ref fails", () => {
    const check = compileJsonSchema(
      { properties: { x: { $ref: "https://example.com/other.json" } } },
      "2020-12",
    );
    expect(check({}).valid).toBe(true);
    expect(() => check({ x: 1 })).toThrow('$ref "https://example.com/other.json" names another document');
    expect(() => compileJsonSchema({ $ref: "other.json#anchor" }, "2020-12")({})).toThrow(/another document/);
  });
});

describe("compile-time errors", () => {
  it("a schema is an object or a boolean, and so is each subschema", () => {
    for (const schema of [5, "x", null, [], undefined]) {
      expect(() => compileJsonSchema(schema, "2020-12"), String(schema)).toThrow(
        new TypeError("The schema is not a JSON Schema: an object or a boolean"),
      );
    }
    expect(() => compileJsonSchema({ properties: { a: "string" } }, "2020-12")).toThrow(
      new TypeError('A subschema of "properties" is not a JSON Schema: an object or a boolean'),
    );
    expect(() => compileJsonSchema({ items: null }, "2020-12")).toThrow(TypeError);
    expect(() => compileJsonSchema({ allOf: {} }, "2020-12")).toThrow(
      new TypeError('"allOf" must be an array'),
    );
    expect(() => compileJsonSchema({ enum: 3 }, "2020-12")).toThrow(new TypeError('"enum" must be an array'));
  });

  it("an $id that is not a URI reference, and a pattern that is not a regular expression", () => {
    expect(() => compileJsonSchema({ $id: "http://[bad" }, "2020-12")).toThrow(TypeError);
    expect(() => compileJsonSchema({ properties: { a: { pattern: "(" } } }, "2020-12")).toThrow(SyntaxError);
    expect(() => compileJsonSchema({ patternProperties: { "[": true } }, "2020-12")).toThrow(SyntaxError);
  });

  it("unknown keywords and data keywords hold no subschemas: nothing in them is compiled", () => {
    const schema = {
      "x-extension": { type: 5 },
      default: { $ref: "#/nowhere" },
      examples: [{ $id: "http://[bad" }],
    };
    expect(passes(schema, 1)).toBe(true);
  });

  it("an $id or anchor inside an unknown keyword names nothing: the real resource keeps its URI", () => {
    const uri = "https://example.com/id.json";
    // The extension comes after the real resource, so it would win a last-one-wins index.
    const schema = {
      $defs: { real: { $id: uri, type: "string" }, anchored: { $anchor: "a", type: "string" } },
      properties: { id: { $ref: uri }, anchor: { $ref: "#a" } },
      "x-sample": { nested: [{ $id: uri, type: "integer" }], other: { $anchor: "a", type: "integer" } },
    };
    const values = [{ id: "s", anchor: "s" }, { id: 1 }, { anchor: 1 }];
    expect(verdicts(schema, values)).toEqual([true, false, false]);
    expect(passes({ "x-sample": { $id: "http://[bad" } }, 1)).toBe(true);
  });
});

describe("hostile schemas and data", () => {
  it("a loop of references that never moves down the value fails the compilation, wherever it closes", () => {
    const loops = [
      { $ref: "#" },
      { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
      { allOf: [{ $ref: "#" }] },
      { anyOf: [{ type: "string" }, { not: { $ref: "#" } }] },
      { if: { type: "string" }, else: { $ref: "#" } },
      { dependentSchemas: { a: { $ref: "#" } } },
      // Reached first through a property (which moves down), then closed by allOf (which does not).
      {
        $defs: {
          p: { $ref: "#/$defs/q" },
          q: { properties: { x: { $ref: "#/$defs/p" } }, allOf: [{ $ref: "#/$defs/p" }] },
        },
        $ref: "#/$defs/q",
      },
    ];
    for (const schema of loops) {
      expect(() => compileJsonSchema(schema, "2020-12"), JSON.stringify(schema)).toThrow(
        new TypeError("The schema has a loop of references that never moves down the value"),
      );
      expect(() => jsonSchema(schema), JSON.stringify(schema)).toThrow(
        "Cannot validate against this JSON Schema: The schema has a loop of references that never moves down the value",
      );
    }
    expect(() => compileJsonSchema({ dependencies: { a: { $ref: "#" } } }, "7")).toThrow(TypeError);
  });

  it("a reference back to the schema that moves down the value is no loop", () => {
    const nested = [
      { items: { $ref: "#" } },
      { properties: { next: { $ref: "#" } } },
      { additionalProperties: { anyOf: [{ type: "integer" }, { $ref: "#" }] } },
      { propertyNames: { $ref: "#" } },
      { contains: { $ref: "#" } },
      { prefixItems: [{ $ref: "#" }] },
    ];
    for (const schema of nested) expect(() => compileJsonSchema(schema, "2020-12")).not.toThrow();
    expect(
      verdicts({ properties: { next: { $ref: "#" } }, type: "object" }, [
        { next: { next: {} } },
        { next: 1 },
      ]),
    ).toEqual([true, false]);
  });

  it("data nested 100,000 deep is refused, not a crash", () => {
    const nest = () => {
      let value: unknown = [];
      for (let i = 0; i < 100_000; i++) value = [value];
      return value;
    };
    const deep = nest();
    const nested = jsonSchema({ items: { $ref: "#" } })["~standard"];
    expect(nested.validate(deep)).toEqual({ issues: [{ message: "the schema could not be evaluated" }] });
    const unique = jsonSchema({ uniqueItems: true })["~standard"];
    expect(unique.validate([deep, nest()])).toEqual({
      issues: [{ message: "the schema could not be evaluated" }],
    });
    // A schema that does not walk down the value does not mind.
    expect(compileJsonSchema({ type: "array" }, "2020-12")(deep).valid).toBe(true);
  });

  it("subschemas that fan out exponentially stop at the budget: a RangeError, never a stall", () => {
    // 2^40 applications of the same two subschemas if nothing stopped them.
    let fan: Record<string, unknown> = { type: "integer" };
    for (let level = 0; level < 40; level++) fan = { allOf: [fan, fan] };
    const check = compileJsonSchema(fan, "2020-12");
    expect(() => check(1)).toThrow(
      new RangeError(
        "The validation needs more than 100000 schema applications: the schema's subschemas fan out too much",
      ),
    );
    expect(jsonSchema(fan)["~standard"].validate(1)).toEqual({
      issues: [{ message: "the schema could not be evaluated" }],
    });
    // The same check again starts with a whole budget: the next, shallower value passes.
    let shallow: Record<string, unknown> = { type: "integer" };
    for (let level = 0; level < 10; level++) shallow = { allOf: [shallow, shallow] };
    expect(passes(shallow, 1)).toBe(true);
  });

  it("a fan-out driven by the data's depth is bounded by the data's size", () => {
    // Each level of nesting doubles the work: both branches walk down the same array.
    const both = { anyOf: [{ items: { $ref: "#" } }, { items: { $ref: "#" }, minItems: 0 }] };
    const nest = (depth: number) => {
      let value: unknown = [];
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    const check = compileJsonSchema(both, "2020-12");
    expect(check(nest(12)).valid).toBe(true);
    expect(() => check(nest(60))).toThrow(RangeError);
  });

  it("a large value earns a larger budget: honest schemas make a million applications", () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `n${i}` }));
    const schema = {
      type: "array",
      items: {
        type: "object",
        properties: { id: { allOf: [{ type: "integer" }, { minimum: 0 }] }, name: { type: "string" } },
      },
    };
    const check = compileJsonSchema(schema, "2020-12");
    expect(check(rows).valid).toBe(true);
    rows[99_999] = { id: -1, name: "last" };
    expect(check(rows).errors.map((e) => e.instanceLocation)).toContain("#/99999/id");
  });

  it("__proto__ is a plain key in the schema and in the data, and nothing reaches Object.prototype", () => {
    const schema = JSON.parse(
      '{"properties":{"__proto__":{"type":"string"}},"required":["__proto__"],"additionalProperties":false}',
    );
    const check = compileJsonSchema(schema, "2020-12");
    expect(check(JSON.parse('{"__proto__":"x"}')).valid).toBe(true);
    expect(check(JSON.parse('{"__proto__":1}')).errors.map((e) => e.instanceLocation)).toEqual([
      "#",
      "#/__proto__",
    ]);
    expect(check({}).valid).toBe(false);
    const defs = JSON.parse('{"$defs":{"__proto__":{"const":1}},"$ref":"#/$defs/__proto__"}');
    expect(verdicts(defs, [1, 2])).toEqual([true, false]);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("type");
  });

  it("names an object inherits are not properties: constructor, toString", () => {
    expect(
      verdicts({ required: ["constructor", "toString"] }, [{}, { constructor: 1, toString: 2 }]),
    ).toEqual([false, true]);
    expect(verdicts({ additionalProperties: false }, [{}, { constructor: 1 }])).toEqual([true, false]);
    expect(
      verdicts({ properties: { hasOwnProperty: { type: "string" } } }, [{}, { hasOwnProperty: 1 }]),
    ).toEqual([true, false]);
    expect(verdicts({ dependentRequired: { toString: ["x"] } }, [{}])).toEqual([true]);
  });

  it("compiles a schema once, and its checks run again and again", () => {
    const check = compileJsonSchema(
      { type: "object", properties: { n: { type: "integer", minimum: 0 } }, required: ["n"] },
      "2020-12",
    );
    for (let i = 0; i < 1000; i++)
      expect(check({ n: i % 2 === 0 ? i : -i }).valid).toBe(i % 2 === 0 || i === 0);
  });
});
