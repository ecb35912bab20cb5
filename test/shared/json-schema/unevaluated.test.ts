/**
 * unevaluatedProperties and unevaluatedItems (2020-12): what counts as evaluated flows up from the
 * subschemas applied to the same value, and only from those that passed.
 */
import { describe, expect, it } from "vitest";
import { validate, verdicts } from "./helpers.js";

describe("unevaluatedProperties", () => {
  it("refuses what no properties, patternProperties or additionalProperties beside it evaluated", () => {
    const schema = {
      properties: { a: true },
      patternProperties: { "^x": true },
      unevaluatedProperties: false,
    };
    expect(verdicts(schema, [{ a: 1 }, { a: 1, x1: 1 }, { a: 1, b: 1 }])).toEqual([true, true, false]);
    expect(validate(schema, { b: 1 }).errors).toEqual([
      {
        keyword: "unevaluatedProperties",
        instanceLocation: "#",
        error: 'Unevaluated property "b" is invalid.',
      },
      { keyword: "false", instanceLocation: "#/b", error: "False boolean schema." },
    ]);
    expect(verdicts({ additionalProperties: true, unevaluatedProperties: false }, [{ x: 1 }])).toEqual([
      true,
    ]);
    expect(verdicts({ unevaluatedProperties: { type: "string" } }, [{ a: "s" }, { a: 1 }])).toEqual([
      true,
      false,
    ]);
  });

  it("sees through allOf, $ref and dependentSchemas", () => {
    const allOf = {
      allOf: [{ properties: { a: true } }, { allOf: [{ properties: { b: true } }] }],
      unevaluatedProperties: false,
    };
    expect(
      verdicts(allOf, [
        { a: 1, b: 1 },
        { a: 1, c: 1 },
      ]),
    ).toEqual([true, false]);
    const ref = {
      $ref: "#/$defs/a",
      $defs: { a: { properties: { a: true } } },
      unevaluatedProperties: false,
    };
    expect(verdicts(ref, [{ a: 1 }, { b: 1 }])).toEqual([true, false]);
    const dependent = {
      properties: { a: true },
      dependentSchemas: { a: { properties: { b: true } } },
      unevaluatedProperties: false,
    };
    expect(verdicts(dependent, [{ a: 1, b: 1 }, { b: 1 }])).toEqual([true, false]);
  });

  it("counts only the anyOf and oneOf branches that passed", () => {
    const anyOf = {
      anyOf: [
        { properties: { a: true }, required: ["a"] },
        { properties: { b: true }, required: ["b"] },
      ],
      unevaluatedProperties: false,
    };
    expect(verdicts(anyOf, [{ a: 1 }, { a: 1, b: 1 }, { b: 1 }, { a: 1, c: 1 }])).toEqual([
      true,
      true,
      true,
      false,
    ]);
    // The first branch fails on a: it evaluated nothing, so a is left unevaluated.
    const failing = {
      anyOf: [{ properties: { a: { type: "string" } } }, true],
      unevaluatedProperties: false,
    };
    expect(verdicts(failing, [{ a: "s" }, { a: 1 }])).toEqual([true, false]);
    const oneOf = {
      oneOf: [
        { properties: { a: true }, required: ["a"] },
        { properties: { b: true }, required: ["b"] },
      ],
      unevaluatedProperties: false,
    };
    expect(verdicts(oneOf, [{ a: 1 }, { b: 1 }, { a: 1, b: 1 }])).toEqual([true, true, false]);
  });

  it("counts if when it passed, then or else, and never not", () => {
    const schema = {
      if: { properties: { kind: { const: "a" } }, required: ["kind"] },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable.
      then: { properties: { x: true } },
      else: { properties: { y: true } },
      unevaluatedProperties: false,
    };
    expect(
      verdicts(schema, [{ kind: "a", x: 1 }, { kind: "a", y: 1 }, { y: 1 }, { kind: "b", y: 1 }]),
    ).toEqual([
      true,
      false,
      true,
      // if failed: its evaluation of kind does not count.
      false,
    ]);
    expect(
      verdicts({ not: { not: { properties: { a: true } } }, unevaluatedProperties: false }, [{ a: 1 }]),
    ).toEqual([false]);
  });

  it("in a subschema, sees only what that subschema and its own subschemas evaluated", () => {
    const nested = { properties: { a: true }, allOf: [{ unevaluatedProperties: false }] };
    expect(verdicts(nested, [{}, { a: 1 }])).toEqual([true, false]);
    // The $ref beside anyOf evaluated a, but for the anyOf branch it is unevaluated (cfworker: passes).
    const beside = {
      $ref: "#/$defs/p",
      anyOf: [{ unevaluatedProperties: false }],
      $defs: { p: { properties: { a: true } } },
    };
    expect(verdicts(beside, [{}, { a: 1 }])).toEqual([true, false]);
    // Properties of a property are its own business.
    const deep = { properties: { o: { properties: { a: true } } }, unevaluatedProperties: false };
    expect(verdicts(deep, [{ o: { a: 1, b: 2 } }, { o: {}, p: 1 }])).toEqual([true, false]);
  });
});

describe("unevaluatedItems", () => {
  it("refuses the items no prefixItems, items or contains evaluated, here or in passing subschemas", () => {
    const prefix = { prefixItems: [true], unevaluatedItems: false };
    expect(verdicts(prefix, [[], [1], [1, 2]])).toEqual([true, true, false]);
    expect(validate(prefix, [1, 2]).errors).toEqual([
      { keyword: "unevaluatedItems", instanceLocation: "#", error: "Unevaluated item 1 is invalid." },
      { keyword: "false", instanceLocation: "#/1", error: "False boolean schema." },
    ]);
    expect(verdicts({ items: true, unevaluatedItems: false }, [[1, 2, 3]])).toEqual([true]);
    const contains = { contains: { type: "string" }, unevaluatedItems: { type: "number" } };
    expect(verdicts(contains, [["a", 1], ["a", true], [1]])).toEqual([true, false, false]);
    const allOf = { allOf: [{ prefixItems: [true, true] }], unevaluatedItems: false };
    expect(
      verdicts(allOf, [
        [1, 2],
        [1, 2, 3],
      ]),
    ).toEqual([true, false]);
    const anyOf = { anyOf: [{ prefixItems: [{ type: "string" }] }, true], unevaluatedItems: false };
    expect(verdicts(anyOf, [["a"], [1]])).toEqual([true, false]);
  });
});
