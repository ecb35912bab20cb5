/**
 * The command line of `roundtrip`: commands, the target (a URL, or `-- command args...` for a
 * stdio server) and options. Pure: no I/O, errors are `UsageError`s (exit 2).
 */
import { resolve } from "node:path";
import type { StdioTarget } from "../client/targets.js";
import { MAX_TIMER_DELAY_MS } from "../shared/timers.js";
import type { Root } from "../types/index.js";
import { parseArgsJson, parseCount, parseJsonValue, rootFrom, splitPair, targetFrom } from "./arg-values.js";
import { UsageError } from "./exit.js";

export const COMMANDS = [
  "discover",
  "tools",
  "call",
  "prompts",
  "prompt",
  "resources",
  "read",
  "task",
] as const;
export type CommandName = (typeof COMMANDS)[number];

/** The operands each command takes after its target. */
const OPERANDS: Record<CommandName, readonly string[]> = {
  discover: [],
  tools: [],
  call: ["tool"],
  prompts: [],
  prompt: ["name"],
  resources: [],
  read: ["uri"],
  task: ["taskId"],
};

/** Everything a run needs, parsed and checked. */
export interface CliOptions {
  command: CommandName;
  target: string | StdioTarget;
  /** The command's operands by name: `tool`, `name`, `uri` or `taskId`. */
  operands: Record<string, string>;
  /** `--arg k=v` (strings, typed later against the tool's input schema). */
  args: Record<string, string>;
  /** `--args '{...}'` (or `--json '{...}'`). */
  argsJson: Record<string, unknown> | undefined;
  /** `--json`: print the raw result JSON. */
  json: boolean;
  /** `--answer key=json`, by input-request key. */
  answers: Map<string, unknown>;
  roots: Root[];
  samplingCommand: string | undefined;
  open: boolean;
  trace: boolean;
  maxRounds: number | undefined;
  timeoutMs: number | undefined;
  /** Declare the Tasks extension (default; `--no-tasks` turns it off). */
  tasks: boolean;
  /** How to authenticate to an HTTP server. */
  auth: CliAuth;
}

/**
 * `--bearer-env NAME` (a token read from the environment, never from the command line) or
 * `--oauth` (sign in when the server asks), or nothing.
 */
export type CliAuth =
  | { readonly kind: "none" }
  | { readonly kind: "bearer"; readonly env: string }
  | {
      readonly kind: "oauth";
      readonly clientId: string | undefined;
      readonly port: number;
      /** `--oauth-store FILE`: keep the registration and tokens between runs (absolute path). */
      readonly store: string | undefined;
    };

export type ParsedCommandLine = { kind: "help" } | { kind: "version" } | { kind: "run"; options: CliOptions };

type OptionKind = "flag" | "value";
const OPTIONS: Record<string, OptionKind> = {
  "--arg": "value",
  "--args": "value",
  "--json": "flag",
  "--answer": "value",
  "--root": "value",
  "--sampling-command": "value",
  "--open": "flag",
  "--trace": "flag",
  "--no-tasks": "flag",
  "--max-rounds": "value",
  "--timeout": "value",
  "--env": "value",
  "--bearer-env": "value",
  "--oauth": "flag",
  "--oauth-client-id": "value",
  "--oauth-port": "value",
  "--oauth-store": "value",
  "--help": "flag",
  "--version": "flag",
};

/**
 * Parses `process.argv.slice(2)`.
 *
 * @example
 * parseCommandLine(["call", "http://127.0.0.1:8000/mcp", "provision", "--arg", "name=orders"], "/");
 */
export function parseCommandLine(argv: readonly string[], cwd: string): ParsedCommandLine {
  const separator = argv.indexOf("--");
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const stdio = separator === -1 ? undefined : argv.slice(separator + 1);

  const positionals: string[] = [];
  const args: Record<string, string> = {};
  const answers = new Map<string, unknown>();
  const roots: Root[] = [];
  const env: Record<string, string> = {};
  const options = {
    json: false,
    open: false,
    trace: false,
    noTasks: false,
    help: false,
    version: false,
    argsJson: undefined as Record<string, unknown> | undefined,
    samplingCommand: undefined as string | undefined,
    maxRounds: undefined as number | undefined,
    timeoutMs: undefined as number | undefined,
    bearerEnv: undefined as string | undefined,
    oauth: false,
    oauthClientId: undefined as string | undefined,
    oauthPort: undefined as number | undefined,
    oauthStore: undefined as string | undefined,
  };
  let argsUsed = false;

  for (let i = 0; i < own.length; i++) {
    const token = own[i] as string;
    if (token === "-h") options.help = true;
    else if (token === "-V") options.version = true;
    else if (token.startsWith("--")) {
      const eq = token.indexOf("=");
      const name = eq === -1 ? token : token.slice(0, eq);
      const inline = eq === -1 ? undefined : token.slice(eq + 1);
      const kind = OPTIONS[name];
      if (kind === undefined) throw new UsageError(`unknown option ${name}`);
      if (name === "--json") {
        // `--json` alone: raw output. `--json '{...}'` / `--json={...}`: the arguments, as in
        // `roundtrip call <target> <tool> --json '{...}'`.
        const next = own[i + 1];
        if (inline !== undefined) options.argsJson = parseArgsJson("--json", inline);
        else if (next?.trimStart().startsWith("{")) {
          options.argsJson = parseArgsJson("--json", next);
          i++;
        } else options.json = true;
        argsUsed ||= options.argsJson !== undefined;
        continue;
      }
      if (kind === "flag") {
        if (inline !== undefined) throw new UsageError(`${name} takes no value`);
        if (name === "--open") options.open = true;
        else if (name === "--trace") options.trace = true;
        else if (name === "--no-tasks") options.noTasks = true;
        else if (name === "--oauth") options.oauth = true;
        else if (name === "--help") options.help = true;
        else if (name === "--version") options.version = true;
        continue;
      }
      let value = inline;
      if (value === undefined) {
        if (i + 1 >= own.length) throw new UsageError(`${name} needs a value`);
        value = own[++i] as string;
      }
      switch (name) {
        case "--arg": {
          const [key, text] = splitPair(name, value);
          args[key] = text;
          argsUsed = true;
          break;
        }
        case "--args":
          options.argsJson = parseArgsJson(name, value);
          argsUsed = true;
          break;
        case "--answer": {
          const [key, text] = splitPair(name, value);
          answers.set(key, parseJsonValue(name, key, text));
          break;
        }
        case "--root":
          roots.push(rootFrom(value, cwd));
          break;
        case "--sampling-command":
          if (value.trim() === "") throw new UsageError("--sampling-command needs a command");
          options.samplingCommand = value;
          break;
        case "--max-rounds":
          options.maxRounds = parseCount(name, value, 0);
          break;
        case "--timeout":
          options.timeoutMs = parseCount(name, value, 1);
          if (options.timeoutMs > MAX_TIMER_DELAY_MS) {
            throw new UsageError(
              `--timeout is at most ${MAX_TIMER_DELAY_MS} ms (about 24 days), got ${value}`,
            );
          }
          break;
        case "--env": {
          const [key, text] = splitPair(name, value);
          env[key] = text;
          break;
        }
        case "--bearer-env":
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
            throw new UsageError("--bearer-env takes the name of an environment variable, not a token");
          }
          options.bearerEnv = value;
          break;
        case "--oauth-client-id":
          options.oauthClientId = value;
          break;
        case "--oauth-port":
          options.oauthPort = parseCount(name, value, 1);
          break;
        case "--oauth-store":
          if (value.trim() === "") throw new UsageError("--oauth-store needs a file");
          options.oauthStore = resolve(cwd, value);
          break;
      }
    } else positionals.push(token);
  }

  if (options.help) return { kind: "help" };
  if (options.version) return { kind: "version" };

  const [commandName, ...rest] = positionals;
  if (commandName === undefined) throw new UsageError("missing command");
  if (!(COMMANDS as readonly string[]).includes(commandName)) {
    throw new UsageError(`unknown command ${JSON.stringify(commandName)} (one of ${COMMANDS.join(", ")})`);
  }
  const command = commandName as CommandName;

  let target: string | StdioTarget;
  let operandValues: string[];
  if (stdio !== undefined) {
    const [program, ...programArgs] = stdio;
    if (program === undefined || program === "") throw new UsageError('"--" must be followed by a command');
    target =
      Object.keys(env).length > 0
        ? { command: program, args: programArgs, env }
        : { command: program, args: programArgs };
    operandValues = rest;
  } else {
    target = targetFrom(rest[0]);
    operandValues = rest.slice(1);
    if (Object.keys(env).length > 0)
      throw new UsageError("--env applies to a stdio server (-- command args...)");
  }
  const auth = authFrom(options);
  if (auth.kind !== "none" && typeof target !== "string") {
    throw new UsageError("--bearer-env and --oauth apply to an HTTP server, not a stdio one");
  }
  const names = OPERANDS[command];
  if (operandValues.length < names.length) {
    throw new UsageError(`${command} needs <${names.slice(operandValues.length).join("> <")}>`);
  }
  if (operandValues.length > names.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(operandValues[names.length])} for ${command}`);
  }
  if (argsUsed && command !== "call" && command !== "prompt") {
    throw new UsageError("--arg / --args apply to call and prompt only");
  }
  const operands: Record<string, string> = {};
  names.forEach((name, index) => {
    operands[name] = operandValues[index] as string;
  });

  return {
    kind: "run",
    options: {
      command,
      target,
      operands,
      args,
      argsJson: options.argsJson,
      json: options.json,
      answers,
      roots,
      samplingCommand: options.samplingCommand,
      open: options.open,
      trace: options.trace,
      maxRounds: options.maxRounds,
      timeoutMs: options.timeoutMs,
      tasks: !options.noTasks,
      auth,
    },
  };
}

function authFrom(options: {
  bearerEnv: string | undefined;
  oauth: boolean;
  oauthClientId: string | undefined;
  oauthPort: number | undefined;
  oauthStore: string | undefined;
}): CliAuth {
  const oauthOnly = [options.oauthClientId, options.oauthPort, options.oauthStore];
  if (!options.oauth && oauthOnly.some((value) => value !== undefined)) {
    throw new UsageError("--oauth-client-id, --oauth-port and --oauth-store go with --oauth");
  }
  if (options.oauth && options.bearerEnv !== undefined) {
    throw new UsageError("choose one of --bearer-env and --oauth");
  }
  if (options.bearerEnv !== undefined) return { kind: "bearer", env: options.bearerEnv };
  if (options.oauth) {
    if (options.oauthPort !== undefined && options.oauthPort > 65_535) {
      throw new UsageError("--oauth-port must be a port number");
    }
    return {
      kind: "oauth",
      clientId: options.oauthClientId,
      port: options.oauthPort ?? 0,
      store: options.oauthStore,
    };
  }
  return { kind: "none" };
}
