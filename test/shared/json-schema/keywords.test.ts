/**
 * The JSON Schema validator (src/shared/json-schema), keyword by keyword: what passes, what fails,
 * and the errors it reports (keyword, instance location, sentence).
 */
import { describe, expect, it } from "vitest";
import { explainSchemaErrors } from "../../../src/shared/json-schema-errors.js";
import { passes, validate, verdicts } from "./helpers.js";

describe("boolean schemas and type", () => {
  it("true passes anything, false nothing", () => {
    expect(verdicts(true, [1, "a", null, [], {}])).toEqual([true, true, true, true, true]);
    expect(validate(false, 1)).toEqual({
      valid: false,
      errors: [{ keyword: "false", instanceLocation: "#", error: "False boolean schema." }],
    });
  });

  it("checks each JSON type, integer as a number with an integer value", () => {
    const values = [null, true, 1, 1.5, "a", [], {}];
    expect(verdicts({ type: "null" }, values)).toEqual([true, false, false, false, false, false, false]);
    expect(verdicts({ type: "boolean" }, values)).toEqual([false, true, false, false, false, false, false]);
    expect(verdicts({ type: "number" }, values)).toEqual([false, false, true, true, false, false, false]);
    expect(verdicts({ type: "integer" }, values)).toEqual([false, false, true, false, false, false, false]);
    expect(verdicts({ type: "string" }, values)).toEqual([false, false, false, false, true, false, false]);
    expect(verdicts({ type: "array" }, values)).toEqual([false, false, false, false, false, true, false]);
    expect(verdicts({ type: "object" }, values)).toEqual([false, false, false, false, false, false, true]);
    expect(verdicts({ type: "integer" }, [1.0, 1e300, -0, Number.NaN])).toEqual([true, true, true, false]);
  });

  it("takes a list of types, in every draft", () => {
    for (const draft of ["4", "7", "2020-12"] as const) {
      expect(verdicts({ type: ["integer", "null"] }, [1, null, 1.5, "1"], draft)).toEqual([
        true,
        true,
        false,
        false,
      ]);
    }
    expect(validate({ type: ["string", "null"] }, 3).errors).toEqual([
      { keyword: "type", instanceLocation: "#", error: "Expected string or null, got number." },
    ]);
  });
});

describe("enum and const", () => {
  it("compare JSON values deeply, objects whatever their key order", () => {
    const schema = { enum: [1, "a", null, [1, { x: 1, y: 2 }], { a: { b: [] } }] };
    expect(verdicts(schema, [1, 1.0, "a", null, [1, { y: 2, x: 1 }], { a: { b: [] } }])).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(
      verdicts(schema, ["1", true, [{ x: 1, y: 2 }, 1], { a: { b: [0] } }, { a: { b: [] }, c: 1 }, {}]),
    ).toEqual([false, false, false, false, false, false]);
    expect(verdicts({ const: { a: 1, b: [true] } }, [{ b: [true], a: 1 }, { a: 1 }, [1], null])).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect(verdicts({ const: null }, [null, 0, false, {}])).toEqual([true, false, false, false]);
    expect(verdicts({ const: [] }, [[], {}])).toEqual([true, false]);
  });

  it("say what was expected", () => {
    expect(validate({ enum: [1, 2] }, 3).errors).toEqual([
      { keyword: "enum", instanceLocation: "#", error: "Expected one of [1,2]." },
    ]);
    expect(validate({ const: "card" }, "iban").errors).toEqual([
      { keyword: "const", instanceLocation: "#", error: 'Expected "card".' },
    ]);
  });
});

describe("numbers", () => {
  it("multipleOf is exact in decimal: 0.3 is a multiple of 0.1", () => {
    expect(verdicts({ multipleOf: 0.1 }, [0.3, 0.7, 1.1, 12.3, 0.35, 1e308, -0.2])).toEqual([
      true,
      true,
      true,
      true,
      false,
      true,
      true,
    ]);
    expect(verdicts({ multipleOf: 0.01 }, [1.1, 19.99, 0.001])).toEqual([true, true, false]);
    expect(verdicts({ multipleOf: 2 }, [4, -4, 0, 7, 1e21, 4.5])).toEqual([
      true,
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(verdicts({ multipleOf: 3 }, [1e21])).toEqual([false]);
    expect(verdicts({ multipleOf: 1.5e-7 }, [4.5e-7, 4.4e-7])).toEqual([true, false]);
    // Strings are not numbers: multipleOf constrains nothing there.
    expect(passes({ multipleOf: 2 }, "3")).toBe(true);
    expect(validate({ multipleOf: 2 }, 3).errors).toEqual([
      { keyword: "multipleOf", instanceLocation: "#", error: "3 is not a multiple of 2." },
    ]);
  });

  it("minimum and maximum are inclusive, exclusiveMinimum and exclusiveMaximum numbers exclusive", () => {
    expect(verdicts({ minimum: 1, maximum: 3 }, [0.5, 1, 2, 3, 3.5])).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
    expect(verdicts({ exclusiveMinimum: 1, exclusiveMaximum: 3 }, [1, 1.5, 2.9, 3])).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(verdicts({ exclusiveMinimum: 1 }, [1, 2], "7")).toEqual([false, true]);
    expect(validate({ minimum: 1, exclusiveMaximum: 3 }, 0).errors).toEqual([
      { keyword: "minimum", instanceLocation: "#", error: "Expected >= 1, got 0." },
    ]);
    expect(validate({ exclusiveMaximum: 3 }, 3).errors).toEqual([
      { keyword: "exclusiveMaximum", instanceLocation: "#", error: "Expected < 3, got 3." },
    ]);
  });

  it("draft-04: exclusiveMinimum/exclusiveMaximum true make minimum/maximum exclusive", () => {
    const schema = { minimum: 5, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true };
    expect(verdicts(schema, [5, 5.5, 9.9, 10], "4")).toEqual([false, true, true, false]);
    const inclusive = { minimum: 5, exclusiveMinimum: false, maximum: 10, exclusiveMaximum: false };
    expect(verdicts(inclusive, [4, 5, 10, 11], "4")).toEqual([false, true, true, false]);
    expect(validate(schema, 5, "4").errors).toEqual([
      { keyword: "minimum", instanceLocation: "#", error: "Expected > 5, got 5." },
    ]);
  });

  it("number keywords constrain nothing but numbers", () => {
    expect(verdicts({ minimum: 5, maximum: 1, multipleOf: 7 }, ["3", null, [], {}])).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });
});

describe("strings", () => {
  it("count lengths in code points: an emoji is one", () => {
    expect(verdicts({ minLength: 2 }, ["😀", "😀😀", "ab", "é"])).toEqual([false, true, true, false]);
    expect(verdicts({ maxLength: 1 }, ["😀", "😀😀", "é", ""])).toEqual([true, false, true, true]);
    expect(validate({ maxLength: 2 }, "abc").errors).toEqual([
      { keyword: "maxLength", instanceLocation: "#", error: "Too many characters (3 > 2)." },
    ]);
    expect(validate({ minLength: 2 }, "😀").errors).toEqual([
      { keyword: "minLength", instanceLocation: "#", error: "Too few characters (1 < 2)." },
    ]);
  });

  it("pattern is a Unicode regular expression, unanchored", () => {
    expect(verdicts({ pattern: "^\\p{L}+$" }, ["héllo", "h3llo", ""])).toEqual([true, false, false]);
    expect(verdicts({ pattern: "b" }, ["abc", "xyz", 3])).toEqual([true, false, true]);
    expect(validate({ pattern: "^a" }, "b").errors).toEqual([
      { keyword: "pattern", instanceLocation: "#", error: "Does not match the pattern ^a." },
    ]);
  });

  it("format asserts the known formats on strings only, and ignores the others", () => {
    expect(verdicts({ format: "date" }, ["2024-02-29", "2023-02-29", 20240229])).toEqual([true, false, true]);
    expect(verdicts({ format: "no-such-format" }, ["anything"])).toEqual([true]);
    // Names an object has by inheritance are no formats.
    expect(verdicts({ format: "constructor" }, ["x"])).toEqual([true]);
    expect(verdicts({ format: "__proto__" }, ["x"])).toEqual([true]);
    expect(validate({ format: "email" }, "x").errors).toEqual([
      { keyword: "format", instanceLocation: "#", error: "Not a valid email." },
    ]);
  });
});

describe("arrays", () => {
  it("items applies to every item, after prefixItems in 2020-12", () => {
    expect(verdicts({ items: { type: "string" } }, [[], ["a"], ["a", 1]])).toEqual([true, true, false]);
    const schema = { prefixItems: [{ type: "integer" }, { type: "string" }], items: false };
    expect(verdicts(schema, [[], [1], [1, "a"], ["a"], [1, "a", null]])).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(validate(schema, [1, "a", null]).errors).toEqual([
      { keyword: "items", instanceLocation: "#", error: "Item 2 is invalid." },
      { keyword: "false", instanceLocation: "#/2", error: "False boolean schema." },
    ]);
  });

  it("draft-04/07: items as a list, and additionalItems past it", () => {
    for (const draft of ["4", "7"] as const) {
      const schema = {
        items: [{ type: "integer" }, { type: "string" }],
        additionalItems: { type: "boolean" },
      };
      expect(verdicts(schema, [[], [1], [1, "a", true], ["a"], [1, "a", null]], draft)).toEqual([
        true,
        true,
        true,
        false,
        false,
      ]);
      // additionalItems means nothing beside an items schema.
      expect(passes({ items: { type: "integer" }, additionalItems: false }, [1, 2], draft)).toBe(true);
      expect(validate(schema, [1, "a", 0], draft).errors).toEqual([
        { keyword: "additionalItems", instanceLocation: "#", error: "Additional item 2 is invalid." },
        { keyword: "type", instanceLocation: "#/2", error: "Expected boolean, got number." },
      ]);
    }
  });

  it("contains, with minContains and maxContains", () => {
    expect(verdicts({ contains: { type: "string" } }, [[], [1], [1, "a"]])).toEqual([false, false, true]);
    const bounded = { contains: { type: "string" }, minContains: 2, maxContains: 3 };
    expect(verdicts(bounded, [["a"], ["a", "b"], ["a", "b", "c", 1], ["a", "b", "c", "d"]])).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(verdicts({ contains: { type: "string" }, minContains: 0 }, [[], [1]])).toEqual([true, true]);
    // minContains and maxContains mean nothing without contains.
    expect(passes({ minContains: 2, maxContains: 0 }, [1])).toBe(true);
    expect(validate({ contains: { const: 1 } }, [2]).errors).toEqual([
      { keyword: "contains", instanceLocation: "#", error: 'Too few items match "contains" (0 < 1).' },
    ]);
    expect(validate(bounded, ["a", "b", "c", "d"]).errors).toEqual([
      { keyword: "maxContains", instanceLocation: "#", error: 'Too many items match "contains" (4 > 3).' },
    ]);
  });

  it("minItems, maxItems", () => {
    expect(verdicts({ minItems: 1, maxItems: 2 }, [[], [1], [1, 2], [1, 2, 3]])).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(validate({ maxItems: 0, minItems: 2 }, [1]).errors).toEqual([
      { keyword: "maxItems", instanceLocation: "#", error: "Too many items (1 > 0)." },
      { keyword: "minItems", instanceLocation: "#", error: "Too few items (1 < 2)." },
    ]);
  });

  it("uniqueItems compares items deeply", () => {
    expect(
      verdicts({ uniqueItems: true }, [
        [1, "1", true, null, [1], { a: 1 }],
        [1, 1.0],
        [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
        [
          [1, [2]],
          [1, [2]],
        ],
        [{ a: 1 }, { a: 1, b: 1 }],
      ]),
    ).toEqual([true, false, false, false, true]);
    expect(passes({ uniqueItems: false }, [1, 1])).toBe(true);
    // In linear time: 100,000 distinct items would be 5·10^9 comparisons pair by pair.
    const many = Array.from({ length: 100_000 }, (_, i) => (i % 2 ? i : { i, list: [i] }));
    expect(passes({ uniqueItems: true }, many)).toBe(true);
    expect(validate({ uniqueItems: true }, [...many, { list: [0], i: 0 }]).errors).toEqual([
      { keyword: "uniqueItems", instanceLocation: "#", error: "Items 0 and 100000 are equal." },
    ]);
    expect(validate({ uniqueItems: true }, [0, 1, 2, 1]).errors).toEqual([
      { keyword: "uniqueItems", instanceLocation: "#", error: "Items 1 and 3 are equal." },
    ]);
  });
});

describe("objects", () => {
  it("required, properties, additionalProperties", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "integer" } },
      required: ["a"],
      additionalProperties: false,
    };
    expect(
      verdicts(schema, [{ a: "x" }, { a: "x", b: 1 }, {}, { a: 1 }, { a: "x", c: 1 }, { b: 1 }]),
    ).toEqual([true, true, false, false, false, false]);
    expect(validate(schema, { b: 1.5, c: 1 }).errors).toEqual([
      { keyword: "required", instanceLocation: "#", error: 'Missing required property "a".' },
      { keyword: "properties", instanceLocation: "#", error: 'Property "b" is invalid.' },
      { keyword: "type", instanceLocation: "#/b", error: "Expected integer, got number." },
      {
        keyword: "additionalProperties",
        instanceLocation: "#",
        error: 'Additional property "c" is invalid.',
      },
      { keyword: "false", instanceLocation: "#/c", error: "False boolean schema." },
    ]);
  });

  it("patternProperties, and additionalProperties for the names no pattern matches", () => {
    const schema = {
      properties: { id: { type: "integer" } },
      patternProperties: { "^x-": { type: "string" }, "\\d$": { minimum: 0 } },
      additionalProperties: false,
    };
    expect(
      verdicts(schema, [
        { id: 1, "x-a": "s" },
        { "x-1": "s" },
        { "x-1": 1 },
        { a1: -1 },
        { a1: 1 },
        { y: 1 },
      ]),
    ).toEqual([true, true, false, false, true, false]);
    // A name may match several patterns: each applies.
    expect(validate(schema, { "x-1": -1 }).errors.map((e) => e.keyword)).toEqual([
      "patternProperties",
      "type",
      "patternProperties",
      "minimum",
    ]);
  });

  it("propertyNames, minProperties, maxProperties", () => {
    expect(verdicts({ propertyNames: { maxLength: 2 } }, [{}, { ab: 1 }, { abc: 1 }])).toEqual([
      true,
      true,
      false,
    ]);
    expect(validate({ propertyNames: { pattern: "^[a-z]+$" } }, { A: 1 }).errors).toEqual([
      { keyword: "propertyNames", instanceLocation: "#", error: 'Property name "A" is invalid.' },
      { keyword: "pattern", instanceLocation: "#/A", error: "Does not match the pattern ^[a-z]+$." },
    ]);
    expect(verdicts({ minProperties: 1, maxProperties: 2 }, [{}, { a: 1 }, { a: 1, b: 2, c: 3 }])).toEqual([
      false,
      true,
      false,
    ]);
    expect(validate({ maxProperties: 0 }, { a: 1 }).errors).toEqual([
      { keyword: "maxProperties", instanceLocation: "#", error: "Too many properties (1 > 0)." },
    ]);
  });

  it("dependentRequired, dependentSchemas (2020-12) and dependencies (draft-04/07)", () => {
    expect(
      verdicts({ dependentRequired: { a: ["b", "c"] } }, [
        {},
        { b: 1 },
        { a: 1, b: 1, c: 1 },
        { a: 1, b: 1 },
      ]),
    ).toEqual([true, true, true, false]);
    const schemas = { dependentSchemas: { a: { required: ["b"] } } };
    expect(verdicts(schemas, [{}, { a: 1 }, { a: 1, b: 1 }])).toEqual([true, false, true]);
    for (const draft of ["4", "7"] as const) {
      const schema = { dependencies: { a: ["b"], c: { properties: { d: { type: "string" } } } } };
      expect(
        verdicts(schema, [{ a: 1 }, { a: 1, b: 1 }, { c: 1, d: 1 }, { c: 1, d: "x" }, { d: 1 }], draft),
      ).toEqual([false, true, false, true, true]);
    }
    expect(validate({ dependentRequired: { a: ["b"] } }, { a: 1 }).errors).toEqual([
      { keyword: "dependentRequired", instanceLocation: "#", error: 'Has "a" but not "b".' },
    ]);
    expect(validate(schemas, { a: 1 }).errors).toEqual([
      {
        keyword: "dependentSchemas",
        instanceLocation: "#",
        error: 'Has "a" but does not match its dependent schema.',
      },
      { keyword: "required", instanceLocation: "#", error: 'Missing required property "b".' },
    ]);
  });

  it("object keywords constrain nothing but objects", () => {
    const schema = {
      required: ["a"],
      properties: { a: false },
      minProperties: 3,
      additionalProperties: false,
    };
    expect(verdicts(schema, [[1, 2], "a", 1, null])).toEqual([true, true, true, true]);
  });
});

describe("applicators", () => {
  it("allOf, anyOf, oneOf, not", () => {
    expect(verdicts({ allOf: [{ type: "number" }, { minimum: 3 }] }, [1, 3, "3"])).toEqual([
      false,
      true,
      false,
    ]);
    expect(verdicts({ anyOf: [{ type: "string" }, { minimum: 3 }] }, [1, 3, "a"])).toEqual([
      false,
      true,
      true,
    ]);
    expect(verdicts({ oneOf: [{ type: "number" }, { minimum: 3 }] }, [1, 3, "a"])).toEqual([
      true,
      false,
      true,
    ]);
    expect(verdicts({ not: { type: "string" } }, [1, "a"])).toEqual([true, false]);
    expect(verdicts({ anyOf: [] }, [1])).toEqual([false]);
    expect(verdicts({ allOf: [] }, [1])).toEqual([true]);
  });

  it("a failing combination says how many matched, before its subschemas' errors", () => {
    expect(validate({ anyOf: [{ type: "string" }, { minimum: 3 }] }, 2).errors).toEqual([
      { keyword: "anyOf", instanceLocation: "#", error: '0 of 2 "anyOf" subschemas match.' },
      { keyword: "type", instanceLocation: "#", error: "Expected string, got number." },
      { keyword: "minimum", instanceLocation: "#", error: "Expected >= 3, got 2." },
    ]);
    expect(validate({ oneOf: [{ type: "number" }, { minimum: 0 }] }, 1).errors).toEqual([
      { keyword: "oneOf", instanceLocation: "#", error: '2 of 2 "oneOf" subschemas match.' },
    ]);
    expect(validate({ not: {} }, 1).errors).toEqual([
      { keyword: "not", instanceLocation: "#", error: 'Matches the "not" schema.' },
    ]);
    // anyOf passes: the errors of the branches that failed are dropped.
    expect(validate({ anyOf: [{ type: "string" }, true] }, 1).errors).toEqual([]);
  });

  it("if/then/else (draft-07 and 2020-12); then and else alone mean nothing", () => {
    for (const draft of ["7", "2020-12"] as const) {
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable.
      const schema = { if: { type: "string" }, then: { minLength: 3 }, else: { minimum: 3 } };
      expect(verdicts(schema, ["abc", "ab", 3, 1], draft)).toEqual([true, false, true, false]);
    }
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable.
    expect(verdicts({ then: false, else: false }, [1])).toEqual([true]);
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable.
    expect(validate({ if: { type: "string" }, then: { minLength: 3 } }, "ab").errors).toEqual([
      { keyword: "if", instanceLocation: "#", error: 'Does not match the "then" schema.' },
      { keyword: "minLength", instanceLocation: "#", error: "Too few characters (2 < 3)." },
    ]);
  });
});

describe("errors", () => {
  it("locate each error in the value as a JSON pointer, ~ and / escaped", () => {
    const schema = {
      properties: {
        list: { items: { properties: { "a/b": { type: "string" }, "t~x": { type: "string" } } } },
      },
    };
    expect(
      validate(schema, { list: [{}, { "a/b": 1, "t~x": 2 }] }).errors.map((e) => e.instanceLocation),
    ).toEqual(["#", "#/list", "#/list/1", "#/list/1/a~1b", "#/list/1", "#/list/1/t~0x"]);
  });

  it("read well through explainSchemaErrors: the leaves, where they are", () => {
    const schema = {
      type: "object",
      properties: { region: { enum: ["eu", "us"] }, size: { type: "integer", maximum: 3 } },
      required: ["name"],
    };
    expect(explainSchemaErrors(validate(schema, { region: "mars", size: 9 }).errors)).toBe(
      'Missing required property "name".; region: Expected one of ["eu","us"].; size: Expected <= 3, got 9.',
    );
  });

  it("collects every error: no short-circuit", () => {
    const schema = { items: { type: "integer" }, minItems: 5 };
    expect(validate(schema, ["a", "b", 1]).errors.map((e) => `${e.keyword} ${e.instanceLocation}`)).toEqual([
      "minItems #",
      "items #",
      "type #/0",
      "items #",
      "type #/1",
    ]);
  });
});

describe("undefined, as JavaScript objects may carry", () => {
  it("a property set to undefined is present, and cannot be judged by a subschema", () => {
    expect(passes({ required: ["a"] }, { a: undefined })).toBe(true);
    expect(passes({ type: "object", minProperties: 1 }, { a: undefined })).toBe(true);
    expect(passes({ properties: { a: true } }, { a: undefined })).toBe(true);
    expect(() => validate({ properties: { a: { type: "string" } } }, { a: undefined })).toThrow(TypeError);
    expect(() => validate({ type: "object" }, undefined)).toThrow(TypeError);
  });
});

describe("a failing loop over many items or properties", () => {
  // Every wrong item made its own errors (4 million objects, ~800 MB, for the 2 million items of a
  // 4 MB body) though a refusal shows the first three: past 100 the loop stops at its next failure.
  it("stops collecting errors past a hundred, keeping the first ones and the verdict", () => {
    const items = validate(
      { type: "array", items: { type: "string" } },
      Array.from({ length: 10_000 }, () => 1),
    );
    expect(items.valid).toBe(false);
    expect(items.errors.length).toBeGreaterThan(100);
    expect(items.errors.length).toBeLessThanOrEqual(102);
    expect(items.errors[1]).toMatchObject({ instanceLocation: "#/0" });
    const names = validate(
      { type: "object", propertyNames: { maxLength: 1 } },
      Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key${i}`, i])),
    );
    expect(names.valid).toBe(false);
    expect(names.errors.length).toBeLessThanOrEqual(102);
    const properties = validate(
      { type: "object", additionalProperties: { type: "string" } },
      Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key${i}`, i])),
    );
    expect(properties.valid).toBe(false);
    expect(properties.errors.length).toBeLessThanOrEqual(102);
  });
});
