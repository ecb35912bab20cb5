/** How both ends word a JSON Schema validation failure (the validator's output units). */

/** One error of the JSON Schema validator's output (src/shared/json-schema/compile.ts). */
export interface SchemaError {
  readonly keyword: string;
  readonly instanceLocation: string;
  readonly error: string;
}

/** Keywords that only say "something below failed": the leaves below them say what. */
const WRAPPERS: ReadonlySet<string> = new Set(["properties", "allOf", "anyOf", "oneOf", "items", "$ref"]);

/**
 * The first three leaf errors, each prefixed with where it is (`region: …`).
 *
 * @example
 * explainSchemaErrors(validate(value).errors); // 'region: Expected one of ["eu","us"].'
 */
export function explainSchemaErrors(errors: readonly SchemaError[]): string {
  const leaves = errors.filter((e) => !WRAPPERS.has(e.keyword));
  return (leaves.length > 0 ? leaves : errors)
    .slice(0, 3)
    .map((e) => `${e.instanceLocation === "#" ? "" : `${e.instanceLocation.slice(2)}: `}${e.error}`)
    .join("; ");
}
