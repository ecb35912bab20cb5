import { ErrorCode, isInputRequiredResult, McpError, validPromptMessage } from "../../types/core.js";
import type {
  GetPromptRequestParams,
  GetPromptResult,
  Icon,
  InputRequiredResult,
  Prompt,
  PromptArgument,
  PromptMessage,
} from "../../types/index.js";
import type { ServerRequestContext } from "../context.js";
import type { Context } from "./context.js";
import { withDefined } from "./definition.js";
import { type CompiledSchema, compileObjectSchema, type SchemaLike } from "./schema.js";
import { UnknownEntryError } from "./unknown-entry.js";
import { allows, listFor, type Visibility } from "./visibility.js";

/** Completes one argument value: the partial value and the other arguments already filled. */
export type ArgumentCompleter = (
  value: string,
  context: { arguments: Record<string, string> },
) => string[] | Promise<string[]>;

/** How a prompt describes itself. */
export interface PromptConfig {
  title?: string;
  description?: string;
  /**
   * The arguments: an object schema (zod, Standard Schema or JSON Schema). They arrive as strings;
   * a property typed number, integer or boolean (or that or null) takes a string that spells one ("5", "true").
   */
  arguments?: SchemaLike;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** Completion for argument values, by argument name. */
  complete?: Record<string, ArgumentCompleter>;
  /** Who may see and get the prompt (default: everyone); see `Visibility`. */
  visible?: Visibility;
}

/** What a prompt handler may return. */
export type PromptReturn = string | PromptMessage | PromptMessage[] | GetPromptResult | InputRequiredResult;

export type PromptRunner = (args: Record<string, string>, ctx: Context) => Promise<PromptReturn>;

interface RegisteredPrompt {
  readonly definition: Prompt;
  readonly visible: Visibility | undefined;
  readonly args: CompiledSchema<Record<string, string>> | undefined;
  /** The arguments whose schema wants a number, an integer or a boolean, by name. */
  readonly scalars: ReadonlyMap<string, ScalarType>;
  readonly run: PromptRunner;
  readonly complete: Record<string, ArgumentCompleter>;
}

function describeArguments(schema: Record<string, unknown>): PromptArgument[] {
  const properties = (schema.properties ?? {}) as Record<string, { description?: string; title?: string }>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => {
    const argument: PromptArgument = { name, required: required.has(name) };
    if (property.description !== undefined) argument.description = property.description;
    if (property.title !== undefined) argument.title = property.title;
    return argument;
  });
}

type ScalarType = "number" | "integer" | "boolean";

/**
 * The one type a schema takes besides null ("null" when only null): nullable is `["number", "null"]`
 * or an `anyOf`/`oneOf` with a `{ type: "null" }` branch (zod's nullable integer).
 */
function typeOf(schema: Record<string, unknown>): unknown {
  const { type, anyOf = schema.oneOf } = schema;
  const kept = (Array.isArray(anyOf) ? anyOf.map(typeOf) : [type].flat()).filter((t) => t !== "null");
  return kept.length > 1 ? undefined : kept.length ? kept[0] : "null";
}

/** The arguments typed as one non-string scalar (a schema that also takes a string is left alone). */
function scalarArguments(schema: Record<string, unknown>): Map<string, ScalarType> {
  const scalars = new Map<string, ScalarType>();
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, property] of Object.entries(properties)) {
    const type = typeOf(property);
    if (type === "number" || type === "integer" || type === "boolean") scalars.set(name, type);
  }
  return scalars;
}

/** JSON's number syntax: what a string must be to stand for a number argument. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Arguments arrive as strings; as the reference does, a property typed number, integer or boolean
 * takes its value from a string that spells one ("5", "2.5", "true"). Anything else is left for
 * the schema to refuse.
 */
function coerceArguments(
  args: Record<string, string>,
  scalars: ReadonlyMap<string, ScalarType>,
): Record<string, unknown> {
  if (scalars.size === 0) return args;
  const coerced: Record<string, unknown> = { ...args };
  for (const [name, type] of scalars) {
    const text = Object.hasOwn(args, name) ? args[name] : undefined;
    if (typeof text !== "string") continue;
    if (type === "boolean") {
      if (text === "true" || text === "false") coerced[name] = text === "true";
    } else if (JSON_NUMBER.test(text)) {
      const value = Number(text);
      // "1e400" spells no JSON number: left as a string for the schema to refuse.
      if (Number.isFinite(value)) coerced[name] = value;
    }
  }
  return coerced;
}

function isMessage(value: unknown): value is PromptMessage {
  return validPromptMessage(value);
}

function toGetPromptResult(
  value: PromptReturn,
  description: string | undefined,
): GetPromptResult | InputRequiredResult {
  if (isInputRequiredResult(value)) return value;
  if (typeof value === "string") {
    return withDescription(
      { messages: [{ role: "user", content: { type: "text", text: value } }] },
      description,
    );
  }
  if (Array.isArray(value)) return withDescription({ messages: value }, description);
  if (isMessage(value)) return withDescription({ messages: [value] }, description);
  return value;
}

function withDescription(result: GetPromptResult, description: string | undefined): GetPromptResult {
  return description === undefined ? result : { description, ...result };
}

/** The prompts of one MCPServer, in registration order. */
export class PromptRegistry {
  readonly #prompts = new Map<string, RegisteredPrompt>();

  add(name: string, config: PromptConfig, run: PromptRunner): Prompt {
    if (this.#prompts.has(name))
      throw new Error(`A prompt named ${JSON.stringify(name)} is already registered`);
    const args = config.arguments
      ? compileObjectSchema<Record<string, string>>(config.arguments, `The arguments of prompt ${name}`)
      : undefined;
    const definition = withDefined<Prompt>({ name }, config, ["title", "description", "icons", "_meta"]);
    if (args) definition.arguments = describeArguments(args.jsonSchema);
    this.#prompts.set(name, {
      definition,
      args,
      scalars: args ? scalarArguments(args.jsonSchema) : new Map(),
      run,
      complete: config.complete ?? {},
      visible: config.visible,
    });
    return definition;
  }

  /** `prompts/list` for the caller of `ctx`. */
  list(ctx: ServerRequestContext): { prompts: Prompt[]; cacheScope?: "private" } {
    return listFor("prompt", this.#prompts.values(), ctx);
  }

  /** Forgets a prompt; returns it, or undefined when there was none by that name. */
  remove(name: string): RegisteredPrompt | undefined {
    const prompt = this.#prompts.get(name);
    this.#prompts.delete(name);
    return prompt;
  }

  /** Serves `prompts/get`: unknown prompt or invalid arguments → -32602. */
  async get(params: GetPromptRequestParams, ctx: Context): Promise<GetPromptResult | InputRequiredResult> {
    const prompt = this.#prompts.get(params.name);
    // A prompt hidden from this caller is refused exactly as one that does not exist.
    if (!prompt || !allows(prompt.visible, `prompt ${params.name}`, ctx.request)) {
      throw new UnknownEntryError("prompt", params.name);
    }
    let args: Record<string, string> = params.arguments ?? {};
    if (prompt.args) {
      const checked = await prompt.args.validate(coerceArguments(args, prompt.scalars));
      if (!checked.ok) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Invalid arguments for prompt ${params.name}: ${checked.message}`,
        );
      }
      args = checked.value;
    }
    return toGetPromptResult(await prompt.run(args, ctx), prompt.definition.description);
  }

  /**
   * Completion of one argument, or undefined when the argument has no completer; null when the
   * prompt does not exist or is hidden from this caller (refused alike, as by `get`).
   */
  completer(name: string, argument: string, ctx: ServerRequestContext): ArgumentCompleter | undefined | null {
    const prompt = this.#prompts.get(name);
    if (!prompt || !allows(prompt.visible, `prompt ${name}`, ctx)) return null;
    return Object.hasOwn(prompt.complete, argument) ? prompt.complete[argument] : undefined;
  }
}
