/**
 * Where a schema's references lead. The schema is one document, with any number of embedded
 * resources (subschemas with an `$id`, draft-04 `id`) and anchors (`$anchor`, `$dynamicAnchor`, an
 * `$id` that is only a fragment). A reference resolves to one of them, then down a JSON pointer;
 * nothing is ever fetched.
 */

export type Draft = "4" | "7" | "2020-12";

/** The base URI of a schema with no `$id`: any absolute URI would do, it only anchors relative ones. */
export const ROOT_URI = "https://json-schema.invalid/root";

/** The keywords holding subschemas by name. */
const MAPS = ["$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies"];

/**
 * The keywords holding subschemas: one, a list, or by name (`MAPS`). Anywhere else (`enum`,
 * `default`, an `x-` extension…) an `$id` or an anchor is data and names nothing.
 */
const APPLICATORS = new Set([
  ...MAPS,
  ...["additionalProperties", "unevaluatedProperties", "propertyNames", "contains", "not", "if", "then"],
  ...["else", "allOf", "anyOf", "oneOf", "items", "prefixItems", "additionalItems", "unevaluatedItems"],
]);

/** The value of an own property, never an inherited one (`constructor`, `__proto__`…). */
export const own = (object: object, key: string): unknown =>
  Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;

/** A schema's `$id` (draft-04: `id`); none beside a draft-04/07 `$ref`, which hides its siblings. */
const idOf = (schema: object, draft: Draft): unknown =>
  draft === "2020-12" || own(schema, "$ref") === undefined
    ? own(schema, draft === "4" ? "id" : "$id")
    : undefined;

/**
 * The base URI inside a schema: its `$id` (draft-04: `id`) resolved against the `outer` one, unless
 * that `$id` only names a fragment (an anchor). Throws for an `$id` that is not a URI reference.
 */
export function baseOf(schema: object, outer: string, draft: Draft): string {
  const id = idOf(schema, draft);
  if (typeof id !== "string") return outer;
  const url = new URL(id, outer);
  if (url.hash.length > 1) return outer;
  url.hash = "";
  return url.href;
}

/** What a reference leads to: the subschema, and the base URI around it. */
export type Target = readonly [schema: unknown, outer: string];

/**
 * Indexes the resources and anchors of a schema. The answer resolves a reference against a base
 * URI: the subschema and the base around it; undefined when it names another document (never
 * fetched); a TypeError when it names a place in this one that is not there.
 */
export function indexSchema(root: unknown, draft: Draft): (ref: string, base: string) => Target | undefined {
  const places = new Map<string, unknown>();
  const outers = new Map<object, string>();
  const walk = (node: unknown, outer: string): void => {
    if (typeof node !== "object" || node === null || outers.has(node)) return;
    outers.set(node, outer);
    const base = baseOf(node, outer, draft);
    if (base !== outer || node === root) places.set(base, node);
    const id = idOf(node, draft);
    if (typeof id === "string" && base === outer && id.includes("#"))
      places.set(new URL(id, base).href, node);
    for (const keyword of ["$anchor", "$dynamicAnchor"]) {
      const anchor = own(node, keyword);
      if (typeof anchor === "string") places.set(new URL(`#${anchor}`, base).href, node);
    }
    for (const [key, value] of Object.entries(node)) {
      if (APPLICATORS.has(key))
        for (const x of MAPS.includes(key) ? Object.values(Object(value)) : [value].flat()) walk(x, base);
    }
  };
  walk(root, ROOT_URI);
  return (ref, base) => {
    const url = new URL(ref, base);
    const fragment = url.hash.slice(1);
    url.hash = "";
    const document = url.href;
    let target = places.get(
      fragment.startsWith("/") || fragment === "" ? document : `${document}#${fragment}`,
    );
    if (fragment.startsWith("/")) {
      for (const token of fragment.slice(1).split("/")) {
        const key = decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~");
        target = typeof target === "object" && target !== null ? own(target, key) : undefined;
      }
    }
    if (target === undefined) {
      if (places.has(document))
        throw new TypeError(`Unresolvable $ref "${ref}": no such place in the schema`);
      return undefined;
    }
    return [target, (typeof target === "object" && target !== null && outers.get(target)) || document];
  };
}
