import { compileJsonSchema, type Draft } from "../../../src/shared/json-schema/compile.js";

/** Validates `value` against `schema` (compiled for `draft`, 2020-12 unless told). */
export function validate(schema: unknown, value: unknown, draft: Draft = "2020-12") {
  return compileJsonSchema(schema, draft)(value);
}

/** Whether `value` passes `schema`. */
export function passes(schema: unknown, value: unknown, draft: Draft = "2020-12"): boolean {
  return validate(schema, value, draft).valid;
}

/** The verdict on each value, in order: a table a failing test prints whole. */
export function verdicts(schema: unknown, values: readonly unknown[], draft: Draft = "2020-12"): boolean[] {
  const check = compileJsonSchema(schema, draft);
  return values.map((value) => check(value).valid);
}
