/**
 * The validator against @cfworker/json-schema 4.1.6, the one it replaced (a devDependency now, kept
 * as the oracle): on random schemas of each draft's vocabulary and random values built from the
 * same names and literals, both must give the same verdict. The grammar leaves out what the two
 * read differently on purpose (see DIFFERENCES in formats.test.ts, and the notes below).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileJsonSchema, type Draft } from "../../../src/shared/json-schema/compile.js";

type Json = unknown;
type Entry = readonly [string, Json];

// Not "__proto__": cfworker looks some keys up in plain objects, and a "__proto__" key under
// `dependencies` finds Object.prototype there (its $ref is then unresolved). The corpus below and
// refs.test.ts check that name.
const NAMES = ["a", "b", "c", "x1"];
const STRINGS = [
  "",
  "a",
  "ab",
  "abc",
  "x1",
  "é",
  "😀",
  "2026-07-28",
  "10:00:00Z",
  "2026-07-28T10:00:00Z",
].concat([
  "ada@example.com",
  "https://example.com/a",
  "127.0.0.1",
  "::1",
  "example.com",
  "123e4567-e89b-12d3-a456-426614174000",
  "no format",
]);
const NUMBERS = [0, 1, -1, 2, 3, 0.1, 0.3, 1.5, 10, -0.5, 1e21];
const TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"];
const FORMATS = ["date", "time", "date-time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"];
const PATTERNS = ["^a", "b", "^\\p{L}+$", "\\d", "^$"];

/** JSON values made of the grammar's own names and literals, so that schemas often bite. */
const value: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthIdentifier: "value" },
    fc.constantFrom<Json>(null, true, false),
    fc.constantFrom(...NUMBERS),
    fc.constantFrom(...STRINGS),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...NAMES), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** Random schemas in the vocabulary of `draft`; `$ref`s lead to two root definitions (no loops). */
function schemas(draft: Draft): fc.Arbitrary<Json> {
  const modern = draft === "2020-12";
  const defs = draft === "2020-12" ? "$defs" : "definitions";
  const names = fc.subarray(NAMES, { maxLength: 3 });
  const small = fc.integer({ min: 0, max: 3 });
  const number = fc.constantFrom(...NUMBERS);
  const literal = fc.oneof(fc.constantFrom<Json>(null, true, 1, 1.5, "a", "x1"), value);
  const pair = (key: string, arbitrary: fc.Arbitrary<Json>) => arbitrary.map((x): Entry[] => [[key, x]]);

  const leaves: fc.Arbitrary<Entry[]>[] = [
    pair("type", fc.oneof(fc.constantFrom(...TYPES), fc.subarray(TYPES, { minLength: 1, maxLength: 2 }))),
    pair("enum", fc.array(literal, { minLength: 1, maxLength: 3 })),
    pair("multipleOf", fc.constantFrom(0.1, 0.5, 1, 2, 3)),
    pair("minimum", number),
    pair("maximum", number),
    pair("minLength", small),
    pair("maxLength", small),
    pair("pattern", fc.constantFrom(...PATTERNS)),
    pair("format", fc.constantFrom(...FORMATS)),
    pair("minItems", small),
    pair("maxItems", small),
    pair("uniqueItems", fc.boolean()),
    pair("required", names),
    pair("minProperties", small),
    pair("maxProperties", small),
  ];
  if (draft === "4") {
    // Draft-04 exclusives are booleans beside minimum/maximum (a number there is draft-06 on).
    leaves.push(
      fc.tuple(number, fc.boolean()).map(([x, b]): Entry[] => [
        ["minimum", x],
        ["exclusiveMinimum", b],
      ]),
      fc.tuple(number, fc.boolean()).map(([x, b]): Entry[] => [
        ["maximum", x],
        ["exclusiveMaximum", b],
      ]),
    );
  } else {
    leaves.push(pair("const", literal), pair("exclusiveMinimum", number), pair("exclusiveMaximum", number));
  }
  if (modern)
    leaves.push(pair("dependentRequired", fc.dictionary(fc.constantFrom(...NAMES), names, { maxKeys: 2 })));

  const keywordsOf = (entries: fc.Arbitrary<Entry[]>) =>
    fc.array(entries, { maxLength: 4 }).map((lists) => Object.fromEntries(lists.flat()));
  // The definitions hold no $ref: no reference loops.
  const leaf = fc.oneof(
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 6, arbitrary: keywordsOf(fc.oneof(...leaves)) },
  );
  const ref = pair("$ref", fc.constantFrom(`#/${defs}/d0`, `#/${defs}/d1`));

  const tree = fc.letrec<{ schema: Json }>((tie) => {
    const schema = tie("schema");
    const list = fc.array(schema, { minLength: 1, maxLength: 3 });
    const map = (keys: fc.Arbitrary<string>) => fc.dictionary(keys, schema, { maxKeys: 3 });
    const branches: fc.Arbitrary<Entry[]>[] = [
      pair("properties", map(fc.constantFrom(...NAMES))),
      pair("patternProperties", map(fc.constantFrom("^x", "^a", "\\d"))),
      pair("additionalProperties", schema),
      pair("items", schema),
      pair("allOf", list),
      pair("anyOf", list),
      pair("oneOf", list),
      pair("not", schema),
    ];
    if (draft !== "4") {
      branches.push(
        pair("propertyNames", schema),
        pair("contains", schema),
        fc
          .tuple(schema, fc.option(schema), fc.option(schema))
          .map(([c, t, e]): Entry[] => [
            ["if", c],
            ...(t === null ? [] : [["then", t] as Entry]),
            ...(e === null ? [] : [["else", e] as Entry]),
          ]),
      );
    }
    if (modern) {
      branches.push(
        pair("prefixItems", list),
        pair("dependentSchemas", map(fc.constantFrom(...NAMES))),
        fc
          .tuple(schema, small, fc.option(small))
          .map(([c, min, max]): Entry[] => [
            ["contains", c],
            ["minContains", min],
            ...(max === null ? [] : [["maxContains", max] as Entry]),
          ]),
      );
    } else {
      branches.push(
        fc
          .tuple(list, fc.option(schema))
          .map(([items, more]): Entry[] => [
            ["items", items],
            ...(more === null ? [] : [["additionalItems", more] as Entry]),
          ]),
        pair(
          "dependencies",
          fc.dictionary(fc.constantFrom(...NAMES), fc.oneof(names, schema), { maxKeys: 2 }),
        ),
      );
    }
    return {
      schema: fc.oneof(
        { maxDepth: 4, depthSize: "medium", depthIdentifier: "schema" },
        { weight: 1, arbitrary: leaf },
        {
          weight: 3,
          arbitrary: keywordsOf(
            fc.oneof(
              { weight: 1, arbitrary: fc.oneof(...leaves, ref) },
              { weight: 2, arbitrary: fc.oneof(...branches) },
            ),
          ),
        },
      ),
    };
  }).schema;

  // unevaluated* only at the root: below it, cfworker lets a subschema see what its parent
  // evaluated before it (the spec, and this validator, do not).
  const unevaluated = modern
    ? fc
        .subarray(["unevaluatedProperties", "unevaluatedItems"])
        .chain((keys) => fc.tuple(...keys.map((key) => leaf.map((x): Entry => [key, x]))))
    : fc.constant([] as Entry[]);
  return fc
    .tuple(tree, leaf, leaf, unevaluated)
    .map(([root, d0, d1, extra]) =>
      typeof root === "boolean"
        ? root
        : { ...(root as object), [defs]: { d0, d1 }, ...Object.fromEntries(extra) },
    );
}

/** A verdict, or the kind of error that stopped the validation. */
function outcome(run: () => boolean): string {
  try {
    return run() ? "valid" : "invalid";
  } catch (error) {
    return error instanceof RangeError ? "overflow" : "throws";
  }
}

function ours(schema: Json, data: Json, draft: Draft): string {
  return outcome(() => compileJsonSchema(schema, draft)(data).valid);
}

function theirs(schema: Json, data: Json, draft: Draft): string {
  return outcome(() => new Validator(schema as never, draft, false).validate(data).valid);
}

describe("the same verdicts as @cfworker/json-schema", () => {
  it.each(["4", "7", "2020-12"] as const)(
    "on 1,000 random schemas of draft %s, five values each",
    (draft) => {
      const seen = { valid: 0, invalid: 0 };
      fc.assert(
        fc.property(schemas(draft), fc.array(value, { minLength: 5, maxLength: 5 }), (schema, values) => {
          for (const data of values) {
            // Ours first: cfworker adds (non-enumerable) properties to the schema it is given.
            const verdict = ours(schema, data, draft);
            expect(verdict, `${JSON.stringify(schema)} on ${JSON.stringify(data)}`).toBe(
              theirs(schema, data, draft),
            );
            if (verdict === "valid" || verdict === "invalid") seen[verdict]++;
          }
        }),
        { numRuns: 1000, seed: 20260728 },
      );
      // Both verdicts are well represented.
      expect(seen.valid).toBeGreaterThan(500);
      expect(seen.invalid).toBeGreaterThan(500);
    },
  );

  const CORPUS: readonly (readonly [string, Json, readonly Json[], readonly Draft[]])[] = [
    [
      "a tree through $ref '#'",
      {
        type: "object",
        properties: { v: { type: "integer" }, kids: { items: { $ref: "#" } } },
        required: ["v"],
      },
      [
        { v: 1, kids: [{ v: 2, kids: [] }] },
        { v: 1, kids: [{ kids: [] }] },
        { v: 1, kids: [{ v: "2" }] },
      ],
      ["4", "7", "2020-12"],
    ],
    [
      "relative $ref against an embedded $id",
      {
        $id: "https://example.com/root.json",
        $defs: { inner: { $id: "dir/inner.json", $defs: { n: { type: "integer" } }, $ref: "#/$defs/n" } },
        properties: {
          x: { $ref: "dir/inner.json" },
          y: { $ref: "https://example.com/dir/inner.json#/$defs/n" },
        },
      },
      [{ x: 1 }, { x: "1" }, { y: 2 }, { y: 2.5 }],
      ["2020-12"],
    ],
    [
      "$anchor and a percent-escaped pointer",
      {
        $defs: { "a b": { $anchor: "ab", maxLength: 2 } },
        properties: { x: { $ref: "#ab" }, y: { $ref: "#/$defs/a%20b" } },
      },
      [{ x: "ab", y: "ab" }, { x: "abc" }, { y: "abc" }],
      ["2020-12"],
    ],
    [
      "a root $ref with siblings",
      {
        $ref: "#/definitions/s",
        definitions: { s: { type: "string" } },
        $defs: { s: { type: "string" } },
        maxLength: 1,
      },
      ["a", "ab", 1],
      ["4", "7", "2020-12"],
    ],
    [
      "decimal multipleOf",
      { multipleOf: 0.01 },
      [0.07, 1.1, 19.99, 0.005, 1e-7, 123456789.12, 4.35],
      ["4", "7", "2020-12"],
    ],
    [
      "uniqueItems on nested values",
      { uniqueItems: true },
      [
        [{ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }],
        [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
        [
          [1, 2],
          [2, 1],
        ],
        [0, false, null, "", []],
      ],
      ["4", "7", "2020-12"],
    ],
    [
      "unevaluatedProperties through allOf, anyOf, if/then/else and dependentSchemas",
      {
        allOf: [{ properties: { a: true } }],
        anyOf: [{ properties: { b: { type: "string" } } }, { required: ["z"] }],
        if: { required: ["k"] },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable.
        then: { properties: { k: true, t: true } },
        else: { properties: { e: true } },
        dependentSchemas: { d: { properties: { d: true, dd: true } } },
        unevaluatedProperties: false,
      },
      [
        { a: 1, b: "s" },
        { b: 1, z: 1 },
        { k: 1, t: 1, z: 1 },
        { t: 1, z: 1 },
        { e: 1, z: 1 },
        { d: 1, dd: 1, z: 1 },
        { dd: 1, z: 1 },
      ],
      ["2020-12"],
    ],
    [
      "unevaluatedItems through prefixItems, contains and anyOf",
      {
        anyOf: [{ prefixItems: [{ type: "string" }] }, { contains: { type: "null" } }],
        unevaluatedItems: { type: "number" },
      },
      [
        ["a", 1],
        ["a", "b"],
        [null, 1],
        [null, "b"],
        [1, null],
      ],
      ["2020-12"],
    ],
    [
      "draft-07 tuple items, additionalItems, contains",
      {
        items: [{ type: "string" }, { type: "number" }],
        additionalItems: false,
        contains: { type: "number" },
      },
      [["a", 1], ["a"], ["a", 1, 2], [1, 1]],
      ["7"],
    ],
    [
      "__proto__ and constructor as names",
      JSON.parse(
        '{"properties":{"__proto__":{"type":"number"}},"required":["constructor"],"patternProperties":{"^c":{"type":"string"}}}',
      ),
      [
        JSON.parse('{"__proto__":1,"constructor":"x"}'),
        JSON.parse('{"__proto__":"1","constructor":"x"}'),
        { constructor: 1 },
        {},
      ],
      ["4", "7", "2020-12"],
    ],
  ];

  it.each(CORPUS)("on %s", (_name, schema, values, drafts) => {
    for (const draft of drafts) {
      const got = values.map((data) => ours(schema, data, draft));
      expect(got).toEqual(values.map((data) => theirs(schema, data, draft)));
      expect(new Set(got).size, `${draft}: both verdicts`).toBeGreaterThan(1);
    }
  });
});

describe("the package no longer runs @cfworker/json-schema", () => {
  it("no file under src/ imports it", () => {
    const importers: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/["']@cfworker\/json-schema["']/.test(readFileSync(path, "utf8"))) importers.push(path);
      }
    };
    walk(join(import.meta.dirname, "../../../src"));
    expect(importers).toEqual([]);
  });
});
