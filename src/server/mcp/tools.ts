import { traceOf } from "../../shared/errors.js";
import { validateXMcpHeaders } from "../../shared/x-mcp-header.js";
import { isInputRequiredResult, McpError } from "../../types/core.js";
import type {
  CallToolRequestParams,
  CallToolResult,
  Icon,
  InputRequiredResult,
  Tool,
  ToolAnnotations,
} from "../../types/index.js";
import type { Logger, ServerRequestContext } from "../context.js";
import type { TaskSupport } from "../tasks/runner.js";
import type { Context } from "./context.js";
import { withDefined } from "./definition.js";
import {
  isCallToolResult,
  ToolError,
  type ToolReturn,
  toCallToolResult,
  toolErrorResult,
} from "./results.js";
import { type CompiledSchema, compileObjectSchema, compileSchema, type SchemaLike } from "./schema.js";
import { UnknownEntryError } from "./unknown-entry.js";
import { allows, listFor, type Visibility } from "./visibility.js";

/** How a tool describes itself. */
export interface ToolConfig<Input extends SchemaLike | undefined = SchemaLike | undefined> {
  title?: string;
  description?: string;
  /** The arguments: a zod object, a Standard Schema with a JSON Schema form, or a raw JSON Schema. */
  input?: Input;
  /** The structured result; when set, returned data is validated and sent as `structuredContent`. */
  output?: SchemaLike;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /**
   * Run as a task (the Tasks extension) for clients that declare it, when the call outlasts the
   * inline window (`serverTasks({ immediateResultMs })`, which the MCPServer needs for such tools).
   * `"required"` refuses other clients with -32021; `"optional"` runs inline for them. Default:
   * never a task.
   */
  task?: TaskSupport;
  /** Who may see and call the tool (default: everyone); see `Visibility`. */
  visible?: Visibility;
}

/** Runs one call of a registered tool with validated arguments. */
export type ToolRunner = (args: Record<string, unknown>, ctx: Context) => Promise<ToolReturn>;

interface RegisteredTool {
  readonly definition: Tool;
  readonly visible: Visibility | undefined;
  readonly input: CompiledSchema<Record<string, unknown>>;
  readonly output: CompiledSchema | undefined;
  readonly run: ToolRunner;
  readonly task: TaskSupport | undefined;
}

/** A tool without `input` takes any arguments object (the params check has made it one). */
const NO_ARGUMENTS: CompiledSchema<Record<string, unknown>> = {
  jsonSchema: { type: "object", properties: {} },
  validate: (value) => ({ ok: true, value: value as Record<string, unknown> }),
};

/** The tool names the spec recommends (1–128 ASCII letters, digits, `_`, `-`, `.`). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The tools of one MCPServer, in registration order (so `tools/list` is deterministic). */
export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * Registers a tool; the schema work happens here, once. `runnerFor` receives the compiled input
   * JSON Schema (resolver graphs are checked against it) and returns the per-call runner.
   */
  add(
    name: string,
    config: ToolConfig,
    runnerFor: (inputSchema: Record<string, unknown>) => ToolRunner,
  ): Tool {
    if (this.#tools.has(name)) throw new Error(`A tool named ${JSON.stringify(name)} is already registered`);
    if (!TOOL_NAME.test(name)) {
      // A SHOULD of the spec, so a warning: some hosts drop such a tool, or fail every model call.
      this.#logger.warn(
        `Tool name ${JSON.stringify(name)} is outside the spec's format (1-128 of A-Z a-z 0-9 _ - .): some clients refuse it`,
      );
    }
    const input = config.input
      ? compileObjectSchema<Record<string, unknown>>(config.input, `The input of tool ${name}`)
      : NO_ARGUMENTS;
    // HTTP clients must drop such a tool from their lists: refuse it here, where it can be fixed.
    const { problems } = validateXMcpHeaders(input.jsonSchema);
    if (problems.length > 0)
      throw new Error(`Tool ${name} would be dropped by HTTP clients: ${problems.join("; ")}`);
    const output = config.output ? compileSchema(config.output, "output") : undefined;
    const run = runnerFor(input.jsonSchema);
    const definition = withDefined<Tool>(
      { name, inputSchema: input.jsonSchema as Tool["inputSchema"] },
      config,
      ["title", "description", "annotations", "icons", "_meta"],
    );
    if (output) definition.outputSchema = output.jsonSchema;
    this.#tools.set(name, { definition, input, output, run, task: config.task, visible: config.visible });
    return definition;
  }

  /** `tools/list` for the caller of `ctx`. */
  list(ctx: ServerRequestContext): { tools: Tool[]; cacheScope?: "private" } {
    return listFor("tool", this.#tools.values(), ctx);
  }

  /** Forgets a tool; returns it, or undefined when there was none by that name. */
  remove(name: string): RegisteredTool | undefined {
    const tool = this.#tools.get(name);
    this.#tools.delete(name);
    return tool;
  }

  /** The tool `name` if the caller of `ctx` may see it; a hidden tool is refused exactly as an unknown one. */
  find(name: string, ctx: ServerRequestContext): RegisteredTool {
    const tool = this.#tools.get(name);
    if (!tool || !allows(tool.visible, `tool ${name}`, ctx)) {
      throw new UnknownEntryError("tool", name);
    }
    return tool;
  }

  /** The advertised input schema of a tool (for `x-mcp-header` checks), if it exists. */
  inputSchema(name: string): Record<string, unknown> | undefined {
    return this.#tools.get(name)?.definition.inputSchema;
  }

  /**
   * Runs one call of a tool `find` gave: bad arguments, failures and bad output → `isError`. A
   * schema or a result conversion that throws fails the call as the handler would, not the request.
   */
  async call(
    tool: RegisteredTool,
    params: CallToolRequestParams,
    ctx: Context,
  ): Promise<CallToolResult | InputRequiredResult> {
    // One try around it all, not a helper: this is every call's path, and an extra async layer shows.
    try {
      const validation = tool.input.validate(params.arguments ?? {});
      // Awaited only when pending: most schemas validate synchronously.
      const args = validation instanceof Promise ? await validation : validation;
      if (!args.ok) return toolErrorResult(`Invalid arguments for tool ${params.name}: ${args.message}`);
      const value = await tool.run(args.value, ctx);
      if (isInputRequiredResult(value) || !tool.output) return toCallToolResult(value, false);
      // A hand-built CallToolResult carries its own structuredContent: that is what must match. An
      // error result is not output: the schema binds successful results only. Anything else shaped
      // like one (data with a `content` array) is the structured data itself.
      const handBuilt =
        isCallToolResult(value) && (value.structuredContent !== undefined || value.isError === true)
          ? value
          : undefined;
      if (handBuilt?.isError === true) return handBuilt;
      const checked = await tool.output.validate(handBuilt ? handBuilt.structuredContent : value);
      // No JSON value is undefined: a schema that lets it through (z.any()) still got no output.
      if (!checked.ok || checked.value === undefined) {
        const why = checked.ok ? "it returned no value" : checked.message;
        this.#logger.error(
          `tool ${params.name} returned output that does not match its outputSchema: ${why}`,
        );
        return toolErrorResult(`Tool ${params.name} returned output that does not match its outputSchema`);
      }
      return handBuilt ?? toCallToolResult(checked.value, true);
    } catch (error) {
      if (error instanceof McpError) throw error;
      if (error instanceof ToolError) return toolErrorResult(error.message);
      this.#logger.error(`tool ${params.name} failed: ${traceOf(error)}`);
      return toolErrorResult(`Error executing tool ${params.name}`);
    }
  }
}
