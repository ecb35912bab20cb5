/**
 * One run of the `roundtrip` command: parse, connect, do the command (answering the server's
 * questions on the way), print, and choose the exit code. No process globals: `main.ts` hands in
 * the streams, the environment and the Ctrl-C signal.
 */
import { readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { Client } from "../client/client.js";
import { listAll } from "../client/pages.js";
import type { CallOptions } from "../client/session.js";
import { RequestTimeoutError } from "../shared/errors.js";
import { ErrorCode, McpError } from "../types/core.js";
import type {
  CallToolResult,
  DetailedTask,
  Implementation,
  ProgressNotificationParams,
  ResourceTemplate,
  Tool,
} from "../types/index.js";
import { type CliOptions, parseCommandLine } from "./args.js";
import { type CliAuthSession, cliAuth } from "./auth.js";
import { createCallbacks } from "./callbacks.js";
import { describeError, ExitCode, exitCodeFor, UsageError } from "./exit.js";
import { DECIMAL_NUMBER } from "./form.js";
import {
  formatDiscover,
  formatPromptResult,
  formatPrompts,
  formatReadResult,
  formatResources,
  formatToolResult,
  formatTools,
} from "./format.js";
import { clackPrompter, type Prompter } from "./prompter.js";
import { colorEnabled, createStyle, jsonSafe, sanitize } from "./terminal.js";
import { Tracer } from "./trace.js";
import { type TerminalStream, Ui } from "./ui.js";
import { openUrl } from "./url.js";
import { USAGE } from "./usage.js";

/** What a run reads and writes. */
export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: TerminalStream;
  readonly stdin: Readable & { isTTY?: boolean };
  readonly env: Record<string, string | undefined>;
  readonly cwd: string;
  readonly platform: NodeJS.Platform;
  /** Aborted on Ctrl-C: the current request is abandoned. */
  readonly signal?: AbortSignal;
}

/** The package's version, read from package.json next to `src/` or `dist/`. */
export function cliVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * Writes to stdout; fails on a write error, except EPIPE: a reader that stopped early (`| head`)
 * is not a failure of the run, which keeps its exit code.
 */
function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text.endsWith("\n") ? text : `${text}\n`, (error) => {
      if (error && (error as NodeJS.ErrnoException).code !== "EPIPE") reject(error);
      else resolve();
    });
  });
}

function ownTypes(schema: unknown): string[] {
  const type = (schema as { type?: unknown } | undefined)?.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

/**
 * The JSON types a property takes: its `type`, else those of its `anyOf` / `oneOf` branches, the
 * way generators write an optional or nullable argument (Pydantic's `Optional[int]` is
 * `{"anyOf": [{"type": "integer"}, {"type": "null"}]}`). A branch without a `type` of its own (a
 * `$ref`, say) could take anything, so the whole property is then left untyped.
 */
function typesOf(property: unknown): string[] {
  const own = ownTypes(property);
  if (own.length > 0) return own;
  const { anyOf, oneOf } = (property ?? {}) as { anyOf?: unknown; oneOf?: unknown };
  const branches = [anyOf, oneOf].filter(Array.isArray).flat();
  const types = branches.map(ownTypes);
  return types.some((branch) => branch.length === 0) ? [] : [...new Set(types.flat())];
}

/**
 * A `--arg` value typed by the tool's input schema: strings stay strings; numbers (decimal only,
 * whole for an integer), booleans, objects and arrays are parsed. Without a schema for the
 * argument, the value is a string.
 *
 * @example
 * coerceArgument("count", "3", { type: "integer" }); // 3
 */
export function coerceArgument(key: string, text: string, property: unknown): unknown {
  const types = typesOf(property);
  if (types.length === 0 || types.includes("string")) return text;
  if (types.includes("number") || types.includes("integer")) {
    const trimmed = text.trim();
    const value = Number(trimmed);
    if (DECIMAL_NUMBER.test(trimmed) && Number.isFinite(value)) {
      if (types.includes("number") || Number.isInteger(value)) return value;
      throw new UsageError(`--arg ${key}: ${JSON.stringify(text)} is not an integer`);
    }
  }
  if (types.includes("boolean") && (text === "true" || text === "false")) return text === "true";
  if (types.some((type) => type === "object" || type === "array" || type === "null")) {
    try {
      return JSON.parse(text);
    } catch {
      // reported below
    }
  }
  throw new UsageError(`--arg ${key}: ${JSON.stringify(text)} is not a valid ${types.join(" | ")}`);
}

async function toolArguments(
  client: Client,
  options: CliOptions,
  call: CallOptions,
): Promise<Record<string, unknown>> {
  const pairs = Object.entries(options.args);
  if (pairs.length === 0) return options.argsJson ?? {};
  let tool: Tool | undefined;
  try {
    const tools = await listAll(client, "tools", call);
    tool = tools.find((candidate) => candidate.name === options.operands.tool);
  } catch {
    tool = undefined;
  }
  const properties =
    (tool?.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  const typed: Record<string, unknown> = {};
  for (const [key, text] of pairs) typed[key] = coerceArgument(key, text, properties[key]);
  return { ...options.argsJson, ...typed };
}

function promptArguments(options: CliOptions): Record<string, string> {
  const args: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.argsJson ?? {})) {
    if (typeof value !== "string") throw new UsageError(`prompt argument ${key} must be a string`);
    args[key] = value;
  }
  return { ...args, ...options.args };
}

/**
 * Runs the CLI and returns its exit code.
 *
 * @example
 * process.exitCode = await run(process.argv.slice(2), { stdout, stderr, stdin, env, cwd, platform });
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const style = createStyle(colorEnabled(io.stderr, io.env));
  const ui = new Ui(io.stderr, style);
  let options: CliOptions;
  try {
    const parsed = parseCommandLine(argv, io.cwd);
    if (parsed.kind === "help") {
      await write(io.stdout, USAGE);
      return ExitCode.Ok;
    }
    if (parsed.kind === "version") {
      await write(io.stdout, cliVersion());
      return ExitCode.Ok;
    }
    options = parsed.options;
  } catch (error) {
    if (!(error instanceof UsageError)) {
      // Writing the help or the version failed.
      ui.line(`roundtrip: ${sanitize(describeError(error), true)}`);
      return exitCodeFor(error);
    }
    ui.line(`roundtrip: ${error.message}`);
    ui.line("Run roundtrip --help for the usage.");
    return ExitCode.Usage;
  }

  const tracer = new Tracer((line) => ui.line(style.dim(line)), options.trace);
  let prompter: Prompter | undefined;
  const { callbacks, used } = createCallbacks({
    answers: options.answers,
    // The prompts are drawn on stderr: with stderr redirected they would wait, unseen, for keys.
    interactive: io.stdin.isTTY === true && io.stderr.isTTY === true,
    prompter: () => {
      prompter ??= clackPrompter(io.stdin, io.stderr);
      return prompter;
    },
    ui,
    tracer,
    open: options.open,
    opener: (href) => openUrl(href, io.platform),
    roots: options.roots,
    samplingCommand: options.samplingCommand,
  });
  const clientInfo: Implementation = { name: "roundtrip-cli", version: cliVersion() };
  const call = {
    signal: io.signal,
    onProgress: (params: ProgressNotificationParams) => ui.progress(params),
    // The id first: it is what `roundtrip task` needs to resume a run that was cut off.
    // Server text: sanitized, so a status message cannot drive the terminal.
    onTask: (task: DetailedTask) => {
      ui.line(
        style.dim(
          sanitize(
            `roundtrip: task ${task.taskId} ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
            true,
          ),
        ),
      );
      tracer.task(task);
    },
  };
  let client: Client | undefined;
  let auth: CliAuthSession | undefined;
  try {
    auth = await cliAuth(options.auth, {
      env: io.env,
      ui,
      open: options.open,
      opener: (href) => openUrl(href, io.platform),
      signal: io.signal,
    });
    const http =
      auth.provider !== undefined && typeof options.target === "string"
        ? { http: { authProvider: auth.provider } }
        : {};
    client = await Client.connect(options.target, {
      ...callbacks,
      ...http,
      clientInfo,
      signal: io.signal,
      inputRequiredMaxRounds: options.maxRounds,
      timeoutMs: options.timeoutMs,
      tasks: options.tasks,
      onRound: (round) => tracer.round(round),
      // The SDK's default prints them raw, and they can quote the server (a property name).
      onWarning: (message) => ui.line(style.yellow(`roundtrip: warning: ${sanitize(message, true)}`)),
    });
    const { text, json, code } = await execute(client, options, call, tracer);
    ui.clearProgress();
    if (code === ExitCode.ToolError)
      ui.line(style.red("roundtrip: the tool reported an error (isError: true)"));
    await write(io.stdout, options.json ? jsonSafe(JSON.stringify(json, null, 2)) : text);
    for (const key of options.answers.keys()) {
      if (!used.has(key)) ui.line(style.yellow(`roundtrip: warning: --answer ${key} was never asked for`));
    }
    return code;
  } catch (error) {
    ui.clearProgress();
    // One line: a "\n" in a server's error text must not start a forged "roundtrip: …" line.
    const message =
      error instanceof RequestTimeoutError && auth?.signInPending() === true
        ? signInTimedOut(options.timeoutMs)
        : sanitize(describeError(error), true);
    ui.line(style.red(`roundtrip: ${message}`));
    return exitCodeFor(error, io.signal?.aborted === true);
  } finally {
    await client?.close().catch(() => {});
    await auth?.close();
  }
}

/**
 * Why a request timed out while the user was signing in: the browser step counts against the
 * --timeout of the request that met the 401, which "Request … timed out" alone does not tell.
 */
function signInTimedOut(timeoutMs: number | undefined): string {
  const limit = timeoutMs === undefined ? "60000 ms by default" : `${timeoutMs} ms`;
  return (
    `the sign-in was not finished within --timeout (${limit}), which also bounds the browser step; ` +
    "raise --timeout to allow a slower sign-in"
  );
}

interface Outcome {
  text: string;
  json: unknown;
  code: number;
}

function toolOutcome(result: CallToolResult): Outcome {
  return {
    text: formatToolResult(result),
    json: result,
    code: result.isError === true ? ExitCode.ToolError : ExitCode.Ok,
  };
}

async function execute(
  client: Client,
  options: CliOptions,
  call: CallOptions,
  tracer: Tracer,
): Promise<Outcome> {
  const ok = (text: string, json: unknown): Outcome => ({ text, json, code: ExitCode.Ok });
  switch (options.command) {
    case "discover": {
      const result = await client.discover({ ...call, cacheMode: "bypass" });
      return ok(formatDiscover(result, client.serverInfo, client.protocolVersion), result);
    }
    case "tools": {
      const tools = await listAll(client, "tools", call);
      return ok(formatTools(tools), { tools });
    }
    case "call": {
      const name = options.operands.tool as string;
      const args = await toolArguments(client, options, call);
      tracer.start("tools/call", name);
      const result = await client.callTool(name, args, call);
      tracer.done();
      return toolOutcome(result);
    }
    case "task":
      return toolOutcome(await client.waitForTask(options.operands.taskId as string, call));
    case "prompts": {
      const prompts = await listAll(client, "prompts", call);
      return ok(formatPrompts(prompts), { prompts });
    }
    case "prompt": {
      const name = options.operands.name as string;
      const args = promptArguments(options);
      tracer.start("prompts/get", name);
      const result = await client.getPrompt(name, Object.keys(args).length > 0 ? args : undefined, call);
      tracer.done();
      return ok(formatPromptResult(result), result);
    }
    case "resources": {
      const resources = await listAll(client, "resources", call);
      let resourceTemplates: ResourceTemplate[] = [];
      try {
        resourceTemplates = await listAll(client, "resourceTemplates", call);
      } catch (error) {
        if (!(error instanceof McpError && error.code === ErrorCode.MethodNotFound)) throw error;
      }
      return ok(formatResources(resources, resourceTemplates), { resources, resourceTemplates });
    }
    case "read": {
      const uri = options.operands.uri as string;
      tracer.start("resources/read", uri);
      const result = await client.readResource(uri, { ...call, cacheMode: "bypass" });
      tracer.done();
      return ok(formatReadResult(result), result);
    }
  }
}
