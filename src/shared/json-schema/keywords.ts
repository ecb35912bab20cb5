/**
 * The keywords of JSON Schema validation (draft-04 to 2020-12, read alike where they do not
 * clash), each compiled once into a step run on every value the schema judges. A step pushes its
 * errors; an applicator pushes its own error before those of the subschema that failed.
 *
 * Annotations for `unevaluatedProperties`/`unevaluatedItems`: each schema gets the set `seen` of
 * the property names (or item indexes) it evaluated; a subschema applied to the same value (`$ref`,
 * `allOf`, `if`…) gets a set of its own, added to its parent's only when it passed.
 */
import type { SchemaError } from "../json-schema-errors.js";
import { FORMATS } from "./formats.js";
import { own } from "./refs.js";
import { codePoints, equal, isMultipleOf } from "./values.js";

type Errors = SchemaError[];
type Seen = Set<unknown>;
/** A JSON value as a step sees it: each step reads it as its type, which it checks first. */
type Json = Record<string, unknown> & unknown[];
type Key = string | number;

/** A compiled (sub)schema: whether the value passes, its errors pushed to `out`. */
export type Check = (value: unknown, at: string, out: Errors, seen: Seen) => boolean;

/** One keyword's check, given the value's JSON type. */
export type Step = (value: Json, at: string, out: Errors, seen: Seen, type: string) => void;

/** Compiles a subschema of the keyword at hand. */
type Sub = (schema: unknown) => Check;

type Make = (value: Json, schema: object, sub: Sub, keyword: string) => Step | undefined;

function fail(out: Errors, instanceLocation: string, keyword: string, error: string): void {
  out.push({ keyword, instanceLocation, error });
}

/**
 * Past this many errors a loop over properties or items stops at its next failure: the schema fails
 * either way (annotations of a failed schema are dropped), and 4 MB of wrong items made 4 million.
 */
const MANY_ERRORS = 100;

/** Puts the keyword's own error before the errors its subschema pushed since `before`. */
function wrap(out: Errors, before: number, instanceLocation: string, keyword: string, error: string): void {
  out.splice(before, 0, { keyword, instanceLocation, error });
}

/** Runs a subschema on the same value; what it evaluated counts for the parent only if it passed. */
function inPlace(check: Check, value: unknown, at: string, out: Errors, seen: Seen): boolean {
  const mine: Seen = new Set();
  const ok = check(value, at, out, mine);
  if (ok) for (const key of mine) seen.add(key);
  return ok;
}

/** The location of a property or item below `at`, as a JSON pointer. */
const below = (at: string, key: unknown) => `${at}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;

const tooMany = (most: boolean, what: string, n: unknown, limit: unknown) =>
  `Too ${most ? "many" : "few"} ${what} (${n} ${most ? ">" : "<"} ${limit}).`;

function list(value: unknown, keyword: string): unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`"${keyword}" must be an array`);
  return value;
}

/**
 * The step of a keyword that applies subschemas to the properties (or items) of a value of `type`:
 * `pick` names the subschema for each, if any. Each one it picks counts as evaluated.
 */
const each =
  (
    type: string,
    keyword: string,
    label: string,
    pick: (key: Key, seen: Seen) => Check | false | undefined,
  ): Step =>
  (v, at, out, seen, t) => {
    if (t !== type) return;
    // Indexes counted, not spread from keys(): that took ~0.5 s for the 2 million items of 4 MB.
    const names = Array.isArray(v) ? undefined : Object.keys(v);
    for (let i = 0; i < (names ?? v).length; i++) {
      const key = names ? (names[i] as string) : i;
      const check = pick(key, seen);
      if (!check) continue;
      seen.add(key);
      const before = out.length;
      if (!check(v[key as number], below(at, key), out, new Set())) {
        wrap(out, before, at, keyword, `${label} ${JSON.stringify(key)} is invalid.`);
        if (out.length > MANY_ERRORS) return;
      }
    }
  };

/** `unevaluatedProperties`, `unevaluatedItems`: for each property (item) nothing else evaluated. */
const unevaluated =
  (type: string, label: string): Make =>
  (value, _schema, sub, keyword) => {
    const check = sub(value);
    return each(type, keyword, label, (key, seen) => !seen.has(key) && check);
  };

/** The step of a reference (`$ref`, `$dynamicRef`, `$recursiveRef`) to the compiled `target`. */
export const reference =
  (target: Check): Step =>
  (v, at, out, seen) => {
    const before = out.length;
    if (!inPlace(target, v, at, out, seen)) wrap(out, before, at, "$ref", "A subschema had errors.");
  };

/** `anyOf`, `allOf`, `oneOf`: how many of their subschemas must pass. */
const combine =
  (passes: (matches: number, all: number) => boolean): Make =>
  (value, _schema, sub, keyword) => {
    const checks = list(value, keyword).map(sub);
    return (v, at, out, seen) => {
      const before = out.length;
      const matches = checks.filter((check) => inPlace(check, v, at, out, seen)).length;
      if (passes(matches, checks.length)) out.length = before;
      else wrap(out, before, at, keyword, `${matches} of ${checks.length} "${keyword}" subschemas match.`);
    };
  };

/** A count bound (`minLength`, `maxItems`…) on the values of one type. */
const size =
  (type: string, what: string, measure: (value: never) => number, most: boolean): Make =>
  (limit, _schema, _sub, keyword) =>
  (v, at, out, _seen, t) => {
    if (t !== type) return;
    const n = measure(v as never);
    if (most ? n > (limit as never) : n < (limit as never))
      fail(out, at, keyword, tooMany(most, what, n, limit));
  };

/**
 * A number bound. `exclusiveMinimum: true` beside `minimum` is draft-04's way to make it exclusive;
 * a number is the exclusive bound of draft-06 on: either is read, whatever the draft.
 */
const bound =
  (most: boolean): Make =>
  (limit, schema, _sub, keyword) => {
    const exclusive = keyword.startsWith("ex");
    if (exclusive && typeof limit !== "number") return undefined;
    const strict = exclusive || own(schema, most ? "exclusiveMaximum" : "exclusiveMinimum") === true;
    return (v, at, out, _seen, t) => {
      if (t === "number" && (v === limit ? strict : most ? v > limit : v < limit)) {
        fail(out, at, keyword, `Expected ${most ? "<" : ">"}${strict ? "" : "="} ${limit}, got ${v}.`);
      }
    };
  };

/** `dependentRequired`, `dependentSchemas`, `dependencies` (draft-04/07: either, by property). */
const dependent =
  (annotates: boolean): Make =>
  (value, _schema, sub, keyword) => {
    const entries = Object.entries(value).map(([key, x]) => [key, Array.isArray(x) ? x : sub(x)] as const);
    return (v, at, out, seen, t) => {
      if (t !== "object") return;
      for (const [key, x] of entries) {
        if (!Object.hasOwn(v, key)) continue;
        if (Array.isArray(x)) {
          for (const name of x)
            if (!Object.hasOwn(v, name)) fail(out, at, keyword, `Has "${key}" but not "${name}".`);
        } else {
          const before = out.length;
          if (!inPlace(x, v, at, out, annotates ? seen : new Set())) {
            wrap(out, before, at, keyword, `Has "${key}" but does not match its dependent schema.`);
          }
        }
      }
    };
  };

const patternsOf = (schema: object) =>
  Object.keys(own(schema, "patternProperties") ?? {}).map((pattern) => new RegExp(pattern, "u"));

/**
 * Every keyword but the references, in the order the checks run (after the references):
 * `unevaluated*` after all that evaluates.
 */
export const KEYWORDS: Readonly<Record<string, Make>> = {
  type: (value) => {
    const types = [value].flat();
    return (v, at, out, _seen, t) => {
      if (!types.some((type) => type === t || (type === "integer" && Number.isInteger(v)))) {
        fail(out, at, "type", `Expected ${types.join(" or ")}, got ${t}.`);
      }
    };
  },
  const: (value) => (v, at, out) => {
    if (!equal(v, value)) fail(out, at, "const", `Expected ${JSON.stringify(value)}.`);
  },
  enum: (value, _schema, _sub, keyword) => {
    const values = list(value, keyword);
    return (v, at, out) => {
      if (!values.some((x) => equal(v, x)))
        fail(out, at, "enum", `Expected one of ${JSON.stringify(values)}.`);
    };
  },
  not: (value, _schema, sub) => {
    const check = sub(value);
    return (v, at, out) => {
      if (check(v, at, [], new Set())) fail(out, at, "not", 'Matches the "not" schema.');
    };
  },
  anyOf: combine((matches) => matches > 0),
  allOf: combine((matches, all) => matches === all),
  oneOf: combine((matches) => matches === 1),
  if: (value, schema, sub) => {
    const condition = sub(value);
    const [then, otherwise] = ["then", "else"].map((key) => {
      const x = own(schema, key);
      return x === undefined ? undefined : sub(x);
    });
    return (v, at, out, seen) => {
      const passed = inPlace(condition, v, at, [], seen);
      const branch = passed ? then : otherwise;
      const before = out.length;
      if (branch && !inPlace(branch, v, at, out, seen)) {
        wrap(out, before, at, "if", `Does not match the "${passed ? "then" : "else"}" schema.`);
      }
    };
  },
  required: (value, _schema, _sub, keyword) => {
    const names = list(value, keyword);
    return (v, at, out, _seen, t) => {
      if (t !== "object") return;
      for (const name of names) {
        if (!Object.hasOwn(v, name as Key)) fail(out, at, keyword, `Missing required property "${name}".`);
      }
    };
  },
  minProperties: size("object", "properties", (v: object) => Object.keys(v).length, false),
  maxProperties: size("object", "properties", (v: object) => Object.keys(v).length, true),
  propertyNames: (value, _schema, sub, keyword) => {
    const check = sub(value);
    return (v, at, out, _seen, t) => {
      if (t !== "object") return;
      for (const key of Object.keys(v)) {
        const before = out.length;
        if (!check(key, below(at, key), out, new Set())) {
          wrap(out, before, at, keyword, `Property name ${JSON.stringify(key)} is invalid.`);
          if (out.length > MANY_ERRORS) return;
        }
      }
    };
  },
  dependentRequired: dependent(false),
  dependentSchemas: dependent(true),
  dependencies: dependent(false),
  properties: (value, _schema, sub, keyword) => {
    const checks = new Map(Object.entries(value).map(([key, x]) => [key, sub(x)]));
    return each("object", keyword, "Property", (key) => checks.get(key as string));
  },
  patternProperties: (value, _schema, sub, keyword) => {
    const entries = Object.entries(value).map(([p, x]) => [new RegExp(p, "u"), sub(x)] as const);
    // Each pattern in turn, as a property may match several.
    const steps = entries.map(([pattern, check]) =>
      each("object", keyword, "Property", (key) => pattern.test(key as string) && check),
    );
    return (...args) => {
      for (const step of steps) step(...args);
    };
  },
  additionalProperties: (value, schema, sub, keyword) => {
    const check = sub(value);
    const properties = own(schema, "properties") ?? {};
    const patterns = patternsOf(schema);
    return each(
      "object",
      keyword,
      "Additional property",
      (key) =>
        !Object.hasOwn(properties, key) && !patterns.some((pattern) => pattern.test(key as string)) && check,
    );
  },
  unevaluatedProperties: unevaluated("object", "Unevaluated property"),
  maxItems: size("array", "items", (v: unknown[]) => v.length, true),
  minItems: size("array", "items", (v: unknown[]) => v.length, false),
  prefixItems: (value, _schema, sub, keyword) => {
    const checks = list(value, keyword).map(sub);
    return each("array", keyword, "Item", (i) => checks[i as number]);
  },
  items: (value, schema, sub, keyword) => {
    const prefix = own(schema, "prefixItems");
    const start = Array.isArray(prefix) ? prefix.length : 0;
    if (!Array.isArray(value)) {
      const check = sub(value);
      return each("array", keyword, "Item", (i) => (i as number) >= start && check);
    }
    // Draft-04/07: a list of subschemas, then `additionalItems` for the items past them.
    const checks = value.map(sub);
    const head = each("array", keyword, "Item", (i) => (i as number) >= start && checks[i as number]);
    const more = own(schema, "additionalItems");
    if (more === undefined) return head;
    const after = Math.max(start, checks.length);
    const extra = sub(more);
    const tail = each("array", "additionalItems", "Additional item", (i) => (i as number) >= after && extra);
    return (...args) => {
      head(...args);
      tail(...args);
    };
  },
  contains: (value, schema, sub) => {
    const check = sub(value);
    const min = own(schema, "minContains");
    const max = own(schema, "maxContains");
    const least = typeof min === "number" ? min : 1;
    return (v, at, out, seen, t) => {
      if (t !== "array") return;
      let found = 0;
      for (const [i, item] of v.entries()) {
        if (check(item, below(at, i), [], new Set())) {
          seen.add(i);
          found++;
        }
      }
      const what = 'items match "contains"';
      if (found < least)
        fail(out, at, min === least ? "minContains" : "contains", tooMany(false, what, found, least));
      else if (typeof max === "number" && found > max)
        fail(out, at, "maxContains", tooMany(true, what, found, max));
    };
  },
  unevaluatedItems: unevaluated("array", "Unevaluated item"),
  // In linear time: a client's array of a million numbers must not cost a million squared.
  uniqueItems: (value) =>
    value
      ? (v, at, out, _seen, t) => {
          if (t !== "array") return;
          const first = new Map<string, number>();
          for (const [j, item] of v.entries()) {
            const key = JSON.stringify(item, (_key, x) =>
              x && typeof x === "object" && !Array.isArray(x)
                ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
                : x,
            );
            const i = first.get(key);
            if (i !== undefined && equal(v[i], item))
              return fail(out, at, "uniqueItems", `Items ${i} and ${j} are equal.`);
            first.set(key, i ?? j);
          }
        }
      : undefined,
  minimum: bound(false),
  maximum: bound(true),
  exclusiveMinimum: bound(false),
  exclusiveMaximum: bound(true),
  multipleOf: (value) => (v, at, out, _seen, t) => {
    if (t === "number" && !isMultipleOf(v as never, value as never))
      fail(out, at, "multipleOf", `${v} is not a multiple of ${value}.`);
  },
  minLength: size("string", "characters", codePoints, false),
  maxLength: size("string", "characters", codePoints, true),
  pattern: (value) => {
    const pattern = new RegExp(value as never, "u");
    return (v, at, out, _seen, t) => {
      if (t === "string" && !pattern.test(v as never))
        fail(out, at, "pattern", `Does not match the pattern ${value}.`);
    };
  },
  format: (value) => {
    const test = typeof value === "string" && Object.hasOwn(FORMATS, value) ? FORMATS[value] : undefined;
    return (
      test &&
      ((v, at, out, _seen, t) => {
        if (t === "string" && !test(v as never)) fail(out, at, "format", `Not a valid ${value}.`);
      })
    );
  },
};
