/**
 * Exit codes of the `roundtrip` CLI and the errors that choose them.
 */
import { InputRequiredRoundsExceededError } from "../client/errors.js";
import { RequestAbortedError, RoundtripError } from "../shared/errors.js";
import { McpError } from "../types/core.js";

/**
 * What the process exits with.
 *
 * @example
 * process.exitCode = ExitCode.Usage;
 */
export const ExitCode = {
  /** The request completed. */
  Ok: 0,
  /** The tool answered `isError: true` (or a local answerer such as `--sampling-command` failed). */
  ToolError: 1,
  /**
   * Bad arguments (a busy `--oauth-port` too), or a question arrived that nobody can answer (no
   * `--answer`, no terminal).
   */
  Usage: 2,
  /**
   * The server answered a JSON-RPC error, the transport failed, or the rounds ran out (also: the
   * result could not be written to stdout).
   */
  Protocol: 3,
  /** The user stopped the command (Ctrl-C, or refused a sampling request). */
  Aborted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Bad command-line arguments (exit 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * A question arrived without an `--answer` while there is no terminal to ask it in: stdin or
 * stderr (where the prompts are drawn) is not one (exit 2).
 */
export class MissingAnswerError extends UsageError {
  readonly key: string;

  constructor(key: string, what: string) {
    super(
      `The server asked '${key}' (${what}) but no answer was given and there is ` +
        "no terminal to ask in (stdin and stderr must both be one). " +
        `Pass --answer ${key}=<json>, or run the command in a terminal to answer interactively.`,
    );
    this.name = "MissingAnswerError";
    this.key = key;
  }
}

/** The user stopped the flow (exit 130). */
export class UserAbortError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserAbortError";
  }
}

/** A local answerer (the `--sampling-command`) failed, so the request cannot go on (exit 1). */
export class LocalAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LocalAnswerError";
  }
}

/**
 * The exit code for an error that ended the command.
 *
 * @example
 * exitCodeFor(new McpError(-32602, "Unknown tool")); // 3
 */
export function exitCodeFor(error: unknown, interrupted = false): ExitCodeValue {
  if (error instanceof UsageError) return ExitCode.Usage;
  if (error instanceof UserAbortError) return ExitCode.Aborted;
  if (interrupted && error instanceof RequestAbortedError) return ExitCode.Aborted;
  if (error instanceof LocalAnswerError) return ExitCode.ToolError;
  return ExitCode.Protocol;
}

/**
 * One line (or a few) saying what went wrong, for stderr.
 *
 * @example
 * describeError(new McpError(-32602, "Unknown tool: nope")); // "the server answered error -32602: Unknown tool: nope"
 */
export function describeError(error: unknown): string {
  if (error instanceof McpError) {
    const data =
      error.data === undefined ? "" : ` (data: ${JSON.stringify(error.data)?.slice(0, 300) ?? ""})`;
    return `the server answered error ${error.code}: ${error.message}${data}`;
  }
  if (error instanceof InputRequiredRoundsExceededError) {
    return (
      `the server still required input after ${error.maxRounds} rounds; raise --max-rounds to allow more ` +
      "(the flow was abandoned: nothing more is sent)"
    );
  }
  if (error instanceof RoundtripError || error instanceof UsageError || error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
