/**
 * The terminal prompts, behind a small interface so the question logic does not depend on the
 * prompt library (@clack/prompts). Prompts draw on stderr, keeping stdout for the result.
 */
import type { Readable } from "node:stream";
import { confirm, isCancel, multiselect, select, text } from "@clack/prompts";
import type { TerminalStream } from "./ui.js";

/** What a prompt returns when the user pressed Ctrl-C or Escape. */
export const CANCELLED: unique symbol = Symbol("cancelled");
export type Cancelled = typeof CANCELLED;

export interface PromptOption<T extends string> {
  readonly value: T;
  readonly label: string;
  readonly hint?: string;
}

export interface TextPromptOptions {
  /** Pre-filled, editable. */
  readonly initialValue?: string;
  readonly placeholder?: string;
  /** A message when the value is not acceptable, undefined when it is. */
  readonly validate?: (value: string) => string | undefined;
}

/**
 * The four prompts the CLI needs. Each resolves `CANCELLED` when the user backs out.
 *
 * @example
 * const region = await prompter.select("Region", [{ value: "eu", label: "Europe" }], "eu");
 */
export interface Prompter {
  select<T extends string>(
    message: string,
    options: readonly PromptOption<T>[],
    initialValue?: T,
    signal?: AbortSignal,
  ): Promise<T | Cancelled>;
  multiselect(
    message: string,
    options: readonly PromptOption<string>[],
    initialValues: readonly string[],
    required: boolean,
    signal?: AbortSignal,
  ): Promise<string[] | Cancelled>;
  text(message: string, options: TextPromptOptions, signal?: AbortSignal): Promise<string | Cancelled>;
  confirm(message: string, initialValue: boolean, signal?: AbortSignal): Promise<boolean | Cancelled>;
}

function settle<T>(value: unknown): T | Cancelled {
  return isCancel(value) ? CANCELLED : (value as T);
}

/**
 * Prompts drawn with @clack/prompts on `output` (stderr), reading keys from `input` (stdin).
 *
 * @example
 * const prompter = clackPrompter(process.stdin, process.stderr);
 */
export function clackPrompter(input: Readable, output: TerminalStream): Prompter {
  const io = { input, output };
  return {
    async select<T extends string>(
      message: string,
      options: readonly PromptOption<T>[],
      initialValue?: T,
      signal?: AbortSignal,
    ): Promise<T | Cancelled> {
      // Options are typed as plain strings for the library; the values handed back are ours.
      return settle<T>(
        await select<string>({
          ...io,
          signal,
          message,
          options: options.map((option) => ({ value: option.value, label: option.label, hint: option.hint })),
          initialValue,
        }),
      );
    },
    async multiselect(message, options, initialValues, required, signal) {
      return settle<string[]>(
        await multiselect<string>({
          ...io,
          signal,
          message,
          options: options.map((option) => ({ value: option.value, label: option.label, hint: option.hint })),
          initialValues: [...initialValues],
          required,
        }),
      );
    },
    async text(message, options, signal) {
      const validate = options.validate;
      const answer = settle<string | undefined>(
        await text({
          ...io,
          signal,
          message,
          initialValue: options.initialValue,
          placeholder: options.placeholder,
          validate: validate ? (value) => validate(value ?? "") : undefined,
        }),
      );
      return answer === CANCELLED ? answer : (answer ?? "");
    },
    async confirm(message, initialValue, signal) {
      return settle<boolean>(await confirm({ ...io, signal, message, initialValue }));
    },
  };
}

/**
 * Runs one task at a time: the answers of one round are gathered concurrently by the SDK, but a
 * terminal can hold only one conversation.
 *
 * @example
 * const lock = new PromptLock();
 * await Promise.all([lock.run(askRegion), lock.run(askName)]); // one after the other
 */
export class PromptLock {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => {});
    return result;
  }
}
