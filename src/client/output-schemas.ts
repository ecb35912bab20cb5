/**
 * The client's check of a tool's structured result against the `outputSchema` the server listed
 * for it (spec: clients SHOULD validate). The JSON Schema validator loads on first use, so a client
 * that never meets an output schema does not pay for it.
 */
import { ProtocolError } from "../shared/errors.js";
import { explainSchemaErrors } from "../shared/json-schema-errors.js";
import type { CallToolResult, Tool } from "../types/index.js";
import { isRecord } from "../types/record.js";

type Check = (value: unknown) => string | undefined;

/**
 * The check for one schema: why a value fails it, or undefined. A schema the validator cannot
 * evaluate (an unresolvable `$ref`, a reference loop) refuses nothing: it is the server's to fix.
 */
async function compile(schema: Record<string, unknown>): Promise<Check> {
  const { Validator } = await import("@cfworker/json-schema");
  const validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], "2020-12", false);
  return (value) => {
    let outcome: ReturnType<typeof validator.validate>;
    try {
      outcome = validator.validate(value);
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
