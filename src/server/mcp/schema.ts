import type * as z from "zod";
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

/**
 * What a tool, prompt or resolver may use to describe its data: a zod schema or any Standard Schema
 * with a JSON Schema form, `jsonSchema(raw)` included.
 */
export type SchemaLike = z.ZodType | StandardSchemaV1;

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
      "zod before 4.2 have none): pass a schema whose library has one, or a raw JSON Schema through jsonSchema()",
  );
}

// Refinements, transforms and lazy, custom or promise schemas run user code, which may be async:
// zod's synchronous parse throws when it meets a promise and drops it (rejecting, it kills the
// process as an unhandled rejection), so schemas holding one always parse asynchronously.
const USER_CODE = /^(custom|transform|lazy|promise|function|property)$/;

/** The parts of a zod definition the walk reads: its kind, its checks and its children. */
type ZodDef = { type: string; checks?: ZodNode[]; options?: unknown[]; items?: unknown[] } & Record<
  string,
  unknown
>;
type ZodNode = { _zod?: { def?: ZodDef & { check?: string } } } | null;

/** True when no part of a zod schema runs user code, so its synchronous parse never meets a promise. */
function parsesSync(schema: unknown, seen = new Set<unknown>()): boolean {
  const def = (schema as ZodNode)?._zod?.def;
  if (def === undefined || seen.has(def)) return def !== undefined;
  seen.add(def);
  if (
    USER_CODE.test(def.type) ||
    def.checks?.some((check) => USER_CODE.test(check?._zod?.def?.check ?? ""))
  ) {
    return false;
  }
  const { innerType, element, keyType, valueType, left, right, in: input, out, rest, catchall } = def;
  return [innerType, element, keyType, valueType, left, right, input, out, rest, catchall]
    .concat(def.options ?? [], def.items ?? [], Object.values((def.shape as object | undefined) ?? {}))
    .every((child) => child == null || parsesSync(child, seen));
}

// Through the schema's own Standard JSON Schema method, so that roundtrip never imports zod itself.
function fromZod<T>(schema: z.ZodType, io: "input" | "output"): CompiledSchema<T> {
  const sync = parsesSync(schema);
  const render = jsonSchemaMethod(schema as unknown as StandardSchemaV1, io);
  return {
    jsonSchema: render({ target: "draft-2020-12", libraryOptions: { unrepresentable: "any" } }),
    validate: (value) =>
      sync ? zodOutcome<T>(schema.safeParse(value)) : schema.safeParseAsync(value).then(zodOutcome<T>),
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

const compiledInputs = new WeakMap<object, CompiledSchema>();
const compiledOutputs = new WeakMap<object, CompiledSchema>();

/** True for a plain object that is neither a zod schema nor a Standard Schema: a raw JSON Schema. */
export function isRawJsonSchema(schema: unknown): schema is JsonSchemaObject {
  return (
    typeof schema === "object" &&
    schema !== null &&
    !Array.isArray(schema) &&
    !isZod(schema) &&
    !isStandard(schema)
  );
}

/**
 * Compiles a zod schema or a Standard Schema with a JSON Schema form once, at registration, so each
 * call only validates. A raw JSON Schema object is refused with the way out: `jsonSchema(raw)`
 * brings the validator only to the apps that need it.
 */
export function compileSchema<T = unknown>(
  schema: SchemaLike,
  io: "input" | "output" = "input",
): CompiledSchema<T> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError("Expected a zod schema or a Standard Schema");
  }
  // Resolvers build their questions on every round from the same schema objects: compile once.
  const cache = io === "input" ? compiledInputs : compiledOutputs;
  const known = cache.get(schema);
  if (known) return known as CompiledSchema<T>;
  let compiled: CompiledSchema<T>;
  if (isZod(schema)) compiled = fromZod<T>(schema, io);
  else if (isStandard(schema)) compiled = fromStandard<T>(schema, io);
  else {
    throw new TypeError(
      "A plain JSON Schema object needs its validator: pass jsonSchema(schema) (from roundtrip-mcp/server)",
    );
  }
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
