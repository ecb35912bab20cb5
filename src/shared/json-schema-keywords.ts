/**
 * Where JSON Schema (2020-12 and draft-07) keeps subschemas, for code that walks a peer's schema.
 * `properties` and `patternProperties` are left to each walker: they are where walkers differ.
 */

/** Keywords whose value is one subschema (`items` is a list in draft-07: it is in both lists). */
export const SUBSCHEMA_KEYWORDS = [
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
] as const;

/** Keywords whose value is a list of subschemas. */
export const SUBSCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"] as const;

/** Keywords whose value maps names to subschemas (draft-07 `dependencies` may also map to name lists). */
export const SUBSCHEMA_MAP_KEYWORDS = ["$defs", "definitions", "dependentSchemas", "dependencies"] as const;
