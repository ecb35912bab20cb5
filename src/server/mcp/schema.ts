import { Validator } from "@cfworker/json-schema";
import type * as z from "zod";
import { messageOf } from "../../shared/errors.js";
import { explainSchemaErrors } from "../../shared/json-schema-errors.js";
import { isThenable } from "../../shared/thenable.js";

/** The Standard Schema interface (v1), as implemented by zod, Valibot, ArkType and others. */
export interface StandardSchemaV1<Output = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    /** The Standard JSON Schema extension: how the library renders itself as JSON Schema. */
    readonly jsonSchema?: {
      readonly input: (options: JsonSchemaOptions) => Record<string, unknown>;
      readonly output: (options: JsonSchemaOptions) => Record<string, unknown>;
    };
    readonly types?: { readonly input: unknown; readonly output: Output };
  };
}

/** Options of the Standard JSON Schema methods; `libraryOptions` go to the library as they are. */
interface JsonSchemaOptions {
  readonly target: string;
  readonly libraryOptions?: Record<string, unknown>;
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string; readonly path?: readonly unknown[] }[] };

/** A raw JSON Schema object (2020-12 unless `$schema` says otherwise). */
export type JsonSchemaObject = Record<string, unknown>;

/** What a tool, prompt or resolver may use to describe its data. */
export type SchemaLike = z.ZodType | StandardSchemaV1 | JsonSchemaObject;

/** The value a schema produces, for typing handler arguments. */
export type InferSchema<S> = S extends z.ZodType
  ? z.output<S>
  : S extends StandardSchemaV1<infer O>
    ? O
    : Record<string, unknown>;

export type Validation<T> = { ok: true; value: T } | { ok: false; message: string };

/** A schema ready for use: its JSON Schema form and a validator. */
export interface CompiledSchema<T = unknown> {
  readonly jsonSchema: JsonSchemaObject;
  /** Synchronous where the schema library is (zod without async refinements, raw JSON Schema). */
  validate(value: unknown): Validation<T> | Promise<Validation<T>>;
}

function isZod(schema: unknown): schema is z.ZodType {
  return typeof schema === "object" && schema !== null && "_zod" in schema;
}

function isStandard(schema: unknown): schema is StandardSchemaV1 {
  return typeof schema === "object" && schema !== null && "~standard" in schema;
}

function describePath(path: readonly unknown[] | undefined): string {
  if (!path || path.length === 0) return "";
  return `${path.map((p) => (typeof p === "object" && p !== null && "key" in p ? String(p.key) : String(p))).join(".")}: `;
}

function summarize(issues: readonly { message: string; path?: readonly unknown[] }[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${describePath(issue.path)}${issue.message}`)
    .join("; ");
}

function zodOutcome<T>(parsed: ReturnType<z.ZodType["safeParse"]>): Validation<T> {
  return parsed.success
    ? { ok: true, value: parsed.data as T }
    : { ok: false, message: summarize(parsed.error.issues) };
}

// zod/mini leaves the method out on purpose (it would defeat tree shaking), as zod before 4.2 did.
function jsonSchemaMethod(schema: StandardSchemaV1, io: "input" | "output") {
  const render = schema["~standard"].jsonSchema?.[io];
  if (render) return render;
  throw new Error(
    `This ${schema["~standard"].vendor} schema has no JSON Schema form (Standard JSON Schema; zod/mini and ` +
      "zod before 4.2 have none): pass a schema whose library has one, or a raw JSON Schema object",
  );
}

// Through the schema's own Standard JSON Schema method, so that roundtrip never imports zod itself.
function fromZod<T>(schema: z.ZodType, io: "input" | "output"): CompiledSchema<T> {
  // Set once a synchronous parse met an async refinement: from then on this schema parses async
  // (that first call ran the refinements seen before the async one twice).
  let needsAsync = false;
  const render = jsonSchemaMethod(schema as unknown as StandardSchemaV1, io);
  return {
    jsonSchema: render({ target: "draft-2020-12", libraryOptions: { unrepresentable: "any" } }),
    validate(value) {
      if (!needsAsync) {
        try {
          // The synchronous parse skips zod's async machinery; a schema with async refinements throws.
          return zodOutcome<T>(schema.safeParse(value));
        } catch {
          needsAsync = true;
        }
      }
      return schema.safeParseAsync(value).then(zodOutcome<T>);
    },
  };
}

function standardOutcome<T>(result: StandardResult<unknown>): Validation<T> {
  return result.issues
    ? { ok: false, message: summarize(result.issues) }
    : { ok: true, value: result.value as T };
}

function fromStandard<T>(schema: StandardSchemaV1, io: "input" | "output"): CompiledSchema<T> {
  const render = jsonSchemaMethod(schema, io);
  return {
    jsonSchema: render({ target: "draft-2020-12" }),
    validate(value) {
      const result = schema["~standard"].validate(value);
      return isThenable<StandardResult<unknown>>(result)
        ? Promise.resolve(result).then(standardOutcome<T>)
        : standardOutcome<T>(result);
    },
  };
}

/**
 * A raw JSON Schema is validated by a real 2020-12 validator (compiled once, no code generation,
 * so it also runs on Workers); local `$ref`s resolve, network `$ref`s are never fetched. The schema
 * is advertised exactly as given.
 */
function fromJsonSchema<T>(schema: JsonSchemaObject): CompiledSchema<T> {
  const draft = typeof schema.$schema === "string" && schema.$schema.includes("draft-07") ? "7" : "2020-12";
  let validator: Validator;
  try {
    validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], draft, false);
  } catch (error) {
    throw new Error(`Cannot validate against this JSON Schema: ${messageOf(error)}`);
  }
  return {
    jsonSchema: schema,
    validate(value) {
      let result: ReturnType<Validator["validate"]>;
      try {
        result = validator.validate(value);
      } catch {
        // Deny on error: a schema the validator cannot evaluate accepts nothing.
        return { ok: false, message: "the input schema could not be evaluated" };
      }
      if (result.valid) return { ok: true, value: value as T };
      return { ok: false, message: explainSchemaErrors(result.errors) };
    },
  };
}

const compiledInputs = new WeakMap<object, CompiledSchema>();
const compiledOutputs = new WeakMap<object, CompiledSchema>();

/**
 * Compiles a zod schema, a Standard Schema with a JSON Schema form, or a raw JSON Schema object
 * once, at registration, so each call only validates.
 */
export function compileSchema<T = unknown>(
  schema: SchemaLike,
  io: "input" | "output" = "input",
): CompiledSchema<T> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError("Expected a zod schema, a Standard Schema or a JSON Schema object");
  }
  // Resolvers build their questions on every round from the same schema objects: compile once.
  const cache = io === "input" ? compiledInputs : compiledOutputs;
  const known = cache.get(schema);
  if (known) return known as CompiledSchema<T>;
  const compiled = isZod(schema)
    ? fromZod<T>(schema, io)
    : isStandard(schema)
      ? fromStandard<T>(schema, io)
      : fromJsonSchema<T>(schema);
  cache.set(schema, compiled);
  return compiled;
}

/** Compiles an input schema that must describe an object (tool arguments). */
export function compileObjectSchema<T = Record<string, unknown>>(
  schema: SchemaLike,
  what: string,
): CompiledSchema<T> {
  const compiled = compileSchema<T>(schema, "input");
  if (compiled.jsonSchema.type !== "object") {
    throw new Error(`${what} must describe an object (its JSON Schema needs "type": "object" at the root)`);
  }
  return compiled;
}
