import { messageOf } from "../../shared/errors.js";
import { compileJsonSchema, type SchemaValidation } from "../../shared/json-schema/compile.js";
import { explainSchemaErrors } from "../../shared/json-schema-errors.js";
import type { JsonSchemaObject, StandardSchemaV1 } from "./schema.js";

/** A raw JSON Schema with its validator: a Standard Schema whose JSON Schema form is the object itself. */
export type JsonSchemaInput<T = Record<string, unknown>> = StandardSchemaV1<T>;

/**
 * The validator's reading of the dialect `$schema` names: draft-04's boolean `exclusiveMinimum`
 * and draft-06/07's `$ref` that hides its siblings mean something else in 2020-12 (the default).
 */
function draftOf(dialect: unknown): "4" | "7" | "2020-12" {
  if (typeof dialect !== "string") return "2020-12";
  if (dialect.includes("draft-04")) return "4";
  return dialect.includes("draft-06") || dialect.includes("draft-07") ? "7" : "2020-12";
}

/**
 * Describes tool arguments, prompt arguments or a structured output with a raw JSON Schema
 * (2020-12, or draft-04, -06 or -07 when `$schema` says so), validated by a real JSON Schema validator that
 * needs no code generation (so it also runs on Workers). Local `$ref`s resolve, and one to a place
 * the schema lacks (or an invalid `pattern`) throws here; network `$ref`s are never fetched, and a
 * schema the validator cannot evaluate accepts nothing. The schema is
 * advertised exactly as given. Imported only by apps that use it, so a zod app's bundle never
 * carries the validator. Name the type of the valid value with `T`.
 *
 * @example
 * const input = jsonSchema<{ name: string }>({
 *   type: "object",
 *   properties: { name: { type: "string" } },
 *   required: ["name"],
 * });
 * mcp.tool("greet", { input }, ({ name }) => `Hello, ${name}!`);
 */
export function jsonSchema<T = Record<string, unknown>>(schema: JsonSchemaObject): JsonSchemaInput<T> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError("jsonSchema() takes a JSON Schema object");
  }
  const draft = draftOf(schema.$schema);
  let validate: (value: unknown) => SchemaValidation;
  try {
    validate = compileJsonSchema(schema, draft);
  } catch (error) {
    throw new Error(`Cannot validate against this JSON Schema: ${messageOf(error)}`);
  }
  const render = () => schema;
  return {
    "~standard": {
      version: 1,
      vendor: "roundtrip-json-schema",
      validate(value) {
        let result: SchemaValidation;
        try {
          result = validate(value);
        } catch {
          // Deny on error: a schema the validator cannot evaluate accepts nothing.
          return { issues: [{ message: "the schema could not be evaluated" }] };
        }
        if (result.valid) return { value: value as T };
        return { issues: [{ message: explainSchemaErrors(result.errors) }] };
      },
      jsonSchema: { input: render, output: render },
    },
  };
}
