/**
 * Validation of answers to a form given as a plain object: the flat schema a form elicitation may
 * carry (strings, numbers, integers, booleans, single and multi-select enums), checked keyword by
 * keyword with no JSON Schema library. Anything beyond that vocabulary is refused when the form is
 * compiled, so no keyword is ever silently ignored: wrap such a schema in `jsonSchema()`.
 */
import { isDate, isDateTime, isEmail, isUri } from "../../shared/json-schema/formats.js";
import { isRecord } from "../../types/record.js";
import type { CompiledSchema, JsonSchemaObject, Validation } from "./schema.js";

type Check = (value: unknown) => string | undefined;

const ROOT_KEYWORDS = new Set(["$schema", "type", "properties", "required", "title", "description"]);
// As in JSON Schema, a keyword of another type than the property's constrains nothing.
const PROPERTY_KEYWORDS = new Set([
  ...["type", "title", "description", "default", "minLength", "maxLength", "format", "minimum"],
  ...["maximum", "enum", "enumNames", "oneOf", "items", "minItems", "maxItems"],
]);

// The formats a form may name (src/types/input.ts).
const FORMATS: Record<string, (text: string) => boolean> = {
  date: isDate,
  "date-time": isDateTime,
  email: isEmail,
  uri: isUri,
};

function refuse(where: string, keyword: string): never {
  throw new Error(
    `The form's ${where} uses ${JSON.stringify(keyword)}, which a plain form does not check: ` +
      "wrap the schema in jsonSchema() to validate it with a full JSON Schema validator",
  );
}

function unsupported(schema: Record<string, unknown>, allowed: ReadonlySet<string>, where: string): void {
  const extra = Object.keys(schema).find((key) => !allowed.has(key));
  if (extra !== undefined) refuse(where, extra);
}

const TYPES: Record<string, Check> = {
  string: (value) => (typeof value === "string" ? undefined : "expected a string"),
  number: (value) => (typeof value === "number" ? undefined : "expected a number"),
  integer: (value) => (Number.isInteger(value) ? undefined : "expected an integer"),
  boolean: (value) => (typeof value === "boolean" ? undefined : "expected a boolean"),
  array: (value) => (Array.isArray(value) ? undefined : "expected an array"),
};

/** The values `enum` lists, or the `const` of each `oneOf`/`anyOf` option. */
function options(list: unknown[]): readonly unknown[] {
  return list.map((option) => (isRecord(option) ? option.const : option));
}

type Size = (value: unknown) => number;
const characters: Size = (value) => [...(value as string)].length; // code points, as JSON Schema counts
const itself: Size = (value) => value as number;
const count: Size = (value) => (value as unknown[]).length;

/** The checks of one property, its type's first; each later check may rely on the type. */
function propertyChecks(schema: Record<string, unknown>, where: string): Check[] {
  unsupported(schema, PROPERTY_KEYWORDS, where);
  const type = schema.type as string;
  const checks = [TYPES[type] as Check];
  const bound = (keyword: string, size: Size, least: boolean, unit: string) => {
    const limit = schema[keyword] as number | undefined;
    if (limit === undefined) return;
    const message = `expected ${least ? "at least" : "at most"} ${limit}${unit}`;
    checks.push((value) => ((least ? size(value) >= limit : size(value) <= limit) ? undefined : message));
  };
  const listed = (list: unknown[]): Check => {
    const allowed = options(list);
    return (value) => (allowed.includes(value) ? undefined : "expected one of the options");
  };
  if (type === "string") {
    bound("minLength", characters, true, " characters");
    bound("maxLength", characters, false, " characters");
    const format = schema.format as string | undefined;
    const valid = format === undefined ? undefined : FORMATS[format];
    if (valid) checks.push((value) => (valid(value as string) ? undefined : `expected a valid ${format}`));
  } else if (type === "array") {
    bound("minItems", count, true, " choices");
    bound("maxItems", count, false, " choices");
    const items = schema.items as Record<string, unknown>;
    unsupported(items, new Set(["type", "enum", "anyOf"]), `${where} items`);
    const choice = listed((items.anyOf ?? items.enum) as unknown[]);
    checks.push((value) =>
      (value as unknown[]).every((item) => choice(item) === undefined)
        ? undefined
        : "expected only listed options",
    );
  } else if (type !== "boolean") {
    bound("minimum", itself, true, "");
    bound("maximum", itself, false, "");
  }
  // Unlike the keywords above, these bind a value of any type (a number's enum too), and both apply.
  for (const keyword of ["enum", "oneOf"]) {
    const list = schema[keyword];
    if (list === undefined) continue;
    // An array is compared by content, and an option without `const` is a subschema: beyond a plain form.
    const plain =
      Array.isArray(list) &&
      type !== "array" &&
      (keyword === "enum" || list.every((option) => isRecord(option) && Object.hasOwn(option, "const")));
    if (!plain) refuse(where, keyword);
    checks.push(listed(list));
  }
  return checks;
}

/**
 * Compiles a form schema already checked to have the shape of a `RequestedSchema` (types known,
 * limits numbers, formats known, options listed; `compileFormSchema` checks it first): each
 * property's keywords are checked as JSON Schema would, `required` and `additionalProperties:
 * false` included. Throws when the form uses a keyword outside that vocabulary.
 *
 * @example
 * compileForm({ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] })
 *   .validate({ ok: "yes" }); // { ok: false, message: "ok: expected a boolean" }
 */
export function compileForm<T>(schema: JsonSchemaObject): CompiledSchema<T> {
  const { additionalProperties, ...rest } = schema;
  unsupported(rest, ROOT_KEYWORDS, "root");
  // A subschema there would check the extra fields: beyond a plain form.
  if (additionalProperties !== undefined && typeof additionalProperties !== "boolean") {
    refuse("root", "additionalProperties");
  }
  const declared = schema.properties as Record<string, Record<string, unknown>>;
  const properties = Object.entries(declared).map(
    ([name, property]) => [name, propertyChecks(property, `property ${JSON.stringify(name)}`)] as const,
  );
  const required = (schema.required ?? []) as readonly string[];
  return {
    jsonSchema: schema,
    validate(value): Validation<T> {
      if (!isRecord(value)) return { ok: false, message: "expected an object" };
      const missing = required.find((name) => !Object.hasOwn(value, name));
      if (missing !== undefined) return { ok: false, message: `${missing}: required` };
      const extra =
        additionalProperties === false
          ? Object.keys(value).find((name) => !Object.hasOwn(declared, name))
          : undefined;
      if (extra !== undefined) return { ok: false, message: `${extra}: not in the form` };
      for (const [name, checks] of properties) {
        if (!Object.hasOwn(value, name)) continue;
        for (const check of checks) {
          const problem = check(value[name]);
          if (problem !== undefined) return { ok: false, message: `${name}: ${problem}` };
        }
      }
      return { ok: true, value: value as T };
    },
  };
}
