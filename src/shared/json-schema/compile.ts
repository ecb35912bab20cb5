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

/**
 * The schema applications one validation may make: at least this many, and more for a larger
 * value, so that a schema whose subschemas fan out (nested `allOf: [A, A]`, an `anyOf` that refers
 * back to itself for each level of the value) costs time in proportion to the value it judges,
 * never exponential in it. Honest schemas apply a handful of subschemas to each value.
 */
const MIN_APPLICATIONS = 100_000;
const APPLICATIONS_PER_VALUE = 256;

/** The keywords that apply their subschemas to the value at hand (not to its properties or items). */
const IN_PLACE = new Set(["not", "anyOf", "allOf", "oneOf", "if", "dependentSchemas", "dependencies"]);

/** How many JSON values `value` holds, itself included; a walk without recursion, for any depth. */
function countValues(value: unknown): number {
  let count = 0;
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    count++;
    // One at a time: spreading a million items into push() would overflow the call's arguments.
    if (typeof next === "object" && next !== null) for (const item of Object.values(next)) stack.push(item);
  }
  return count;
}

/**
 * Whether the in-place edges loop: a schema reached again without moving down the value. Recursive,
 * as the compilation that found the edges is: a chain deep enough to overflow one overflows both.
 */
function hasLoop(edges: Map<object, object[]>): boolean {
  // false while the schema is on the path being walked, true once all it leads to is loop-free.
  const walked = new Map<object, boolean>();
  const loops = (node: object): boolean => {
    const done = walked.get(node);
    if (done !== undefined) return !done;
    walked.set(node, false);
    if (edges.get(node)?.some(loops)) return true;
    walked.set(node, true);
    return false;
  };
  return [...edges.keys()].some(loops);
}

const pass: Check = () => true;
const refuse: Check = (_value, at, out) => {
  out.push({ keyword: "false", instanceLocation: at, error: "False boolean schema." });
  return false;
};

/**
 * Compiles a JSON Schema for `draft` (which only decides whether a `$ref` hides its siblings, as
 * in draft-04/07, and whether `id` or `$id` names a resource). Throws a TypeError for what is not
 * a schema, an unresolvable `$ref` into the schema itself, or a loop of references that never
 * moves down the value (`{ "$ref": "#" }`); a SyntaxError for an invalid `pattern` (read with the
 * `u` flag, so `"\\-"` outside a class is one too). The validation throws for a value
 * that is not JSON (`undefined`…), a `$ref` to another document, and a RangeError for data nested
 * too deep to walk or a validation over its budget of schema applications (`MIN_APPLICATIONS`, or
 * `APPLICATIONS_PER_VALUE` for each value in the data).
 *
 * @example
 * const validate = compileJsonSchema({ type: "object", required: ["a"] }, "2020-12");
 * validate({}).errors; // [{ keyword: "required", instanceLocation: "#", error: 'Missing required property "a".' }]
 */
export function compileJsonSchema(schema: unknown, draft: Draft): (value: unknown) => SchemaValidation {
  const resolve = indexSchema(schema, draft);
  const compiled = new Map<object, Check>();
  /** Each schema's subschemas applied to the same value, for the loop check. */
  const inPlace = new Map<object, object[]>();
  const applyInPlace = (from: object, to: unknown) => {
    if (typeof to !== "object" || to === null) return;
    const targets = inPlace.get(from);
    if (targets) targets.push(to);
    else inPlace.set(from, [to]);
  };
  // Per validation: a validation is synchronous and never runs inside another of the same schema.
  let judged: unknown;
  let left = 0;
  let extended = false;
  const spend = () => {
    if (--left >= 0) return;
    // Counting the value's size costs a walk: only a validation that needs more than the minimum pays it.
    const budget = Math.max(MIN_APPLICATIONS, APPLICATIONS_PER_VALUE * countValues(judged));
    if (!extended && budget > MIN_APPLICATIONS) {
      extended = true;
      left = budget - MIN_APPLICATIONS - 1;
      return;
    }
    throw new RangeError(
      `The validation needs more than ${budget} schema applications: the schema's subschemas fan out too much`,
    );
  };

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
      applyInPlace(node, target?.[0]);
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
            : make(
                value as never,
                node,
                (x) => {
                  if (IN_PLACE.has(keyword)) applyInPlace(node, x);
                  return compile(x, base, `A subschema of "${keyword}"`);
                },
                keyword,
              );
        if (step) steps.push(step);
      }
    }
    run = (value, at, out, seen) => {
      spend();
      const type = jsonType(value);
      const before = out.length;
      for (const step of steps) step(value as never, at, out, seen, type);
      return out.length === before;
    };
    return check;
  };

  const root = compile(schema, ROOT_URI, "The schema");
  if (hasLoop(inPlace)) {
    throw new TypeError("The schema has a loop of references that never moves down the value");
  }
  return (data) => {
    judged = data;
    left = MIN_APPLICATIONS;
    extended = false;
    const errors: SchemaError[] = [];
    return { valid: root(data, "#", errors, new Set()), errors };
  };
}
