/**
 * The client's check of a tool's structured result against the `outputSchema` the server listed
 * for it (spec: clients SHOULD validate), without the schema's regular expressions. The JSON Schema
 * validator loads on first use, so a client that never meets an output schema does not pay for it.
 */
import { ProtocolError } from "../shared/errors.js";
import { explainSchemaErrors } from "../shared/json-schema-errors.js";
import {
  SUBSCHEMA_KEYWORDS,
  SUBSCHEMA_LIST_KEYWORDS,
  SUBSCHEMA_MAP_KEYWORDS,
} from "../shared/json-schema-keywords.js";
import type { CallToolResult, Tool } from "../types/index.js";
import { isRecord } from "../types/record.js";

type Check = (value: unknown) => string | undefined;

/**
 * A copy of a server's schema that never runs one of the server's regular expressions: `pattern`
 * is dropped, and so is `patternProperties` with the `additionalProperties` and
 * `unevaluatedProperties` beside it (which would now refuse what the patterns allowed). A hostile
 * server could otherwise freeze the client: `^(a+)+$` against forty characters runs for an hour,
 * and no timeout interrupts a regular expression. The schema only ever gets looser.
 */
function withoutRegularExpressions(schema: unknown): unknown {
  // Every node, however many: the validator walks them all anyway, and one left unwalked keeps its
  // expressions (a stack overflow on a deep schema is caught by `compile`).
  if (!isRecord(schema)) return schema;
  const copy: Record<string, unknown> = { ...schema };
  // Whatever its type: the validator passes it to `new RegExp`, which makes `["^(a+)+$"]` that string.
  if (copy.pattern !== undefined) delete copy.pattern;
  if (copy.patternProperties !== undefined) {
    delete copy.patternProperties;
    delete copy.additionalProperties;
    delete copy.unevaluatedProperties;
  }
  for (const key of SUBSCHEMA_KEYWORDS)
    if (isRecord(copy[key])) copy[key] = withoutRegularExpressions(copy[key]);
  for (const key of SUBSCHEMA_LIST_KEYWORDS) {
    const list = copy[key];
    if (Array.isArray(list)) copy[key] = list.map((item) => withoutRegularExpressions(item));
  }
  for (const key of ["properties", ...SUBSCHEMA_MAP_KEYWORDS]) {
    const map = copy[key];
    if (isRecord(map)) {
      copy[key] = Object.fromEntries(
        Object.entries(map).map(([name, item]) => [name, withoutRegularExpressions(item)]),
      );
    }
  }
  return copy;
}

/**
 * The check for one schema: why a value fails it, or undefined. A schema the validator cannot
 * evaluate (an unresolvable `$ref`, a reference loop, a nesting too deep to walk) refuses nothing:
 * it is the server's to fix.
 */
async function compile(schema: Record<string, unknown>): Promise<Check> {
  const { compileJsonSchema } = await import("../shared/json-schema/compile.js");
  let validate: ReturnType<typeof compileJsonSchema>;
  try {
    validate = compileJsonSchema(withoutRegularExpressions(schema), "2020-12");
  } catch {
    // A stack overflow here would otherwise fail every later call of the tool.
    return () => undefined;
  }
  return (value) => {
    let outcome: ReturnType<typeof validate>;
    try {
      outcome = validate(value);
    } catch {
      return undefined;
    }
    return outcome.valid ? undefined : explainSchemaErrors(outcome.errors);
  };
}

/**
 * The output schemas of the tools a client has listed, by tool name.
 *
 * @example
 * const schemas = new OutputSchemas();
 * schemas.remember((await session.listTools()).tools);
 * await schemas.check("forecast", result); // throws ProtocolError on a mismatch
 */
export class OutputSchemas {
  readonly #schemas = new Map<string, Record<string, unknown>>();
  readonly #checks = new WeakMap<object, Promise<Check>>();

  /** How many tools have a known output schema. */
  get size(): number {
    return this.#schemas.size;
  }

  /** Remembers (or forgets) each listed tool's output schema. */
  remember(tools: readonly Tool[]): void {
    for (const tool of tools) {
      if (isRecord(tool.outputSchema)) this.#schemas.set(tool.name, tool.outputSchema);
      else this.#schemas.delete(tool.name);
    }
  }

  /**
   * Forgets every schema: after `notifications/tools/list_changed` they may be out of date, and a
   * result of a tool's new shape checked against its old schema would fail a correct server.
   */
  forget(): void {
    this.#schemas.clear();
  }

  /**
   * Throws a `ProtocolError` when a successful result of a tool with a known output schema has no
   * `structuredContent`, or one that does not match. Error results (`isError`) are not checked.
   */
  async check(name: string, result: CallToolResult): Promise<void> {
    const schema = this.#schemas.get(name);
    if (schema === undefined || result.isError === true) return;
    if (result.structuredContent === undefined) {
      throw new ProtocolError(`Tool ${name} has an outputSchema but returned no structuredContent`);
    }
    let check = this.#checks.get(schema);
    if (check === undefined) {
      check = compile(schema);
      this.#checks.set(schema, check);
    }
    const problem = (await check)(result.structuredContent);
    if (problem !== undefined) {
      throw new ProtocolError(
        `Tool ${name} returned structuredContent that does not match its outputSchema (${problem})`,
      );
    }
  }
}
