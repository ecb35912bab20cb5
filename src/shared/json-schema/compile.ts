/**
 * A JSON Schema validator (draft-04, -06/-07 and 2020-12) that compiles a schema once into
 * closures: no code generation, so it runs wherever JavaScript does (Workers included). It never
 * fetches: a `$ref` to a document the schema does not embed fails the validation that reaches it.
 */
import type { SchemaError } from "../json-schema-errors.js";
import { type Check, KEYWORDS, reference, type Step } from "./keywords.js";
import { baseOf, type Draft, indexSchema, own, ROOT_URI } from "./refs.js";
import { jsonType } from "./values.js";

export type { Draft } from "./refs.js";

/** The outcome of a validation: every error found (none when valid). */
export interface SchemaValidation {
  readonly valid: boolean;
  readonly errors: SchemaError[];
}

const pass: Check = () => true;
const refuse: Check = (_value, at, out) => {
  out.push({ keyword: "false", instanceLocation: at, error: "False boolean schema." });
  return false;
};

/**
 * Compiles a JSON Schema for `draft` (which only decides whether a `$ref` hides its siblings, as
 * in draft-04/07, and whether `id` or `$id` names a resource). Throws a TypeError for what is not
 * a schema, an unresolvable `$ref` into the schema itself, or an invalid `pattern`. The validation
 * throws for a value that is not JSON (`undefined`…), a `$ref` to another document, and a
 * RangeError for a reference loop that makes no progress or data nested too deep to walk.
 *
 * @example
 * const validate = compileJsonSchema({ type: "object", required: ["a"] }, "2020-12");
 * validate({}).errors; // [{ keyword: "required", instanceLocation: "#", error: 'Missing required property "a".' }]
 */
export function compileJsonSchema(schema: unknown, draft: Draft): (value: unknown) => SchemaValidation {
  const resolve = indexSchema(schema, draft);
  const compiled = new Map<object, Check>();

  const compile = (node: unknown, outer: string, where: string): Check => {
    if (node === true) return pass;
    if (node === false) return refuse;
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      throw new TypeError(`${where} is not a JSON Schema: an object or a boolean`);
    }
    const known = compiled.get(node);
    if (known) return known;
    // Registered before its subschemas compile, so that a reference back to it finds it.
    let run: Check = pass;
    const check: Check = (value, at, out, seen) => run(value, at, out, seen);
    compiled.set(node, check);
    const base = baseOf(node, outer, draft);
    const steps: Step[] = [];
    // A reference, resolved now; a `$dynamicRef` (or 2019-09 `$recursiveRef`) to its static target.
    for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef"]) {
      const ref = own(node, keyword);
      if (ref === undefined) continue;
      const target = resolve(ref as string, base);
      steps.push(
        reference(
          target
            ? compile(target[0], target[1], `The target of ${keyword} "${ref}"`)
            : () => {
                throw new Error(`${keyword} "${ref}" names another document: it is never fetched`);
              },
        ),
      );
    }
    // Draft-04 to -07: a schema with `$ref` is that reference, whatever else it says.
    if (draft === "2020-12" || own(node, "$ref") === undefined) {
      for (const [keyword, make] of Object.entries(KEYWORDS)) {
        const value = own(node, keyword);
        const step =
          value === undefined
            ? undefined
            : make(value as never, node, (x) => compile(x, base, `A subschema of "${keyword}"`), keyword);
        if (step) steps.push(step);
      }
    }
    run = (value, at, out, seen) => {
      const type = jsonType(value);
      const before = out.length;
      for (const step of steps) step(value as never, at, out, seen, type);
      return out.length === before;
    };
    return check;
  };

  const root = compile(schema, ROOT_URI, "The schema");
  return (value) => {
    const errors: SchemaError[] = [];
    return { valid: root(value, "#", errors, new Set()), errors };
  };
}
