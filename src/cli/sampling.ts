/**
 * Answering `sampling/createMessage` with a human in the loop: the request is shown (system
 * prompt, messages, limits) and the user types the assistant's text, or `--sampling-command`
 * produces it (the request JSON on its stdin, the text on its stdout).
 */
import { spawn } from "node:child_process";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  SamplingContent,
  SamplingMessage,
} from "../types/index.js";
import type { Asker } from "./elicitation.js";
import { LocalAnswerError, UsageError, UserAbortError } from "./exit.js";
import { CANCELLED, type Prompter } from "./prompter.js";
import { indent, sanitize } from "./terminal.js";
import type { Ui } from "./ui.js";

/** The `model` reported for a typed answer. */
export const TYPED_MODEL = "human (roundtrip CLI)";
/** The `model` reported for a `--sampling-command` answer. */
export const COMMAND_MODEL = "roundtrip CLI --sampling-command";

/**
 * A text answer as a `CreateMessageResult`.
 *
 * @example
 * assistantText("Paris", TYPED_MODEL); // { role: "assistant", content: { type: "text", text: "Paris" }, ... }
 */
export function assistantText(text: string, model: string): CreateMessageResult {
  return { role: "assistant", content: { type: "text", text }, model, stopReason: "endTurn" };
}

/**
 * The `CreateMessageResult` an `--answer` value stands for: a JSON string is the assistant's
 * text; an object is taken as a full result.
 *
 * @example
 * samplingFromJson("capital", "Paris"); // assistantText("Paris", ...)
 */
export function samplingFromJson(key: string, value: unknown): CreateMessageResult {
  if (typeof value === "string") return assistantText(value, TYPED_MODEL);
  if (typeof value === "object" && value !== null && !Array.isArray(value) && "content" in value) {
    return { role: "assistant", model: TYPED_MODEL, ...(value as object) } as CreateMessageResult;
  }
  throw new UsageError(`--answer ${key}: a sampling request takes the assistant's text as a JSON string`);
}

function describeBlock(block: SamplingContent): string {
  switch (block.type) {
    case "text":
      return sanitize(block.text);
    case "image":
    case "audio":
      return `[${block.type} ${sanitize(String(block.mimeType), true)}, ${Math.floor((String(block.data).length * 3) / 4)} bytes]`;
    case "tool_use":
      return `[tool use ${sanitize(String(block.name), true)} ${sanitize(JSON.stringify(block.input), true)}]`;
    case "tool_result":
      return `[tool result for ${sanitize(String(block.toolUseId), true)}]`;
    default:
      return `[${sanitize(String((block as { type: unknown }).type), true)}]`;
  }
}

function describeMessage(message: SamplingMessage): string {
  const blocks = Array.isArray(message.content) ? message.content : [message.content];
  return blocks.map(describeBlock).join("\n");
}

/**
 * Shows a sampling request on stderr: who asks, the system prompt, every message, and the limits.
 *
 * @example
 * showSampling(ui, { key: "summary", server: "Writer" }, params);
 */
export function showSampling(ui: Ui, asker: Asker, params: CreateMessageRequestParams): void {
  const { style } = ui;
  ui.line();
  ui.line(
    `${style.bold(asker.server)} asks for a completion from your model ${style.dim(`(input request "${sanitize(asker.key, true)}")`)}:`,
  );
  if (params.systemPrompt !== undefined) {
    ui.line(`  ${style.dim("System prompt:")}`);
    ui.line(indent(sanitize(params.systemPrompt), "    "));
  }
  for (const message of params.messages) {
    ui.line(`  ${style.cyan(`[${message.role}]`)}`);
    ui.line(indent(describeMessage(message), "    "));
  }
  const limits = [`max tokens ${params.maxTokens}`];
  if (params.temperature !== undefined) limits.push(`temperature ${params.temperature}`);
  if (params.stopSequences?.length)
    limits.push(`stop ${sanitize(JSON.stringify(params.stopSequences), true)}`);
  const hints = params.modelPreferences?.hints?.map((hint) => hint.name).filter((name) => name !== undefined);
  if (hints?.length) limits.push(`model hints ${sanitize(hints.join(", "), true)}`);
  if (params.includeContext !== undefined && params.includeContext !== "none") {
    limits.push(`include context ${params.includeContext} (not supported: none is included)`);
  }
  ui.line(`  ${style.dim(limits.join(" · "))}`);
}

/**
 * Shows the request and lets the user type the assistant's text. Refusing (or Ctrl-C) abandons
 * the request: sampling has no way to say no to the server, so the CLI stops (exit 130).
 *
 * @example
 * const result = await askSampling(prompter, ui, { key: "summary", server: "Writer" }, params);
 */
export async function askSampling(
  prompter: Prompter,
  ui: Ui,
  asker: Asker,
  params: CreateMessageRequestParams,
): Promise<CreateMessageResult> {
  showSampling(ui, asker, params);
  const choice = await prompter.select(
    "Answer as the assistant?",
    [
      { value: "type" as const, label: "Type the assistant's answer" },
      { value: "refuse" as const, label: "Refuse", hint: "abandon the request" },
    ],
    "type",
    asker.signal,
  );
  if (choice === CANCELLED || choice === "refuse") {
    throw new UserAbortError(`The sampling request "${asker.key}" was refused; the request was abandoned.`);
  }
  const text = await prompter.text(
    "Assistant's answer",
    { validate: (value) => (value.trim() === "" ? "Type the answer (or press Esc to abandon)" : undefined) },
    asker.signal,
  );
  if (text === CANCELLED) {
    throw new UserAbortError(
      `The sampling request "${asker.key}" was not answered; the request was abandoned.`,
    );
  }
  return assistantText(text, TYPED_MODEL);
}

/**
 * Runs `--sampling-command` (through the shell): the embedded request as JSON on stdin, the
 * assistant's text read from stdout (one trailing newline dropped). A failure is a
 * `LocalAnswerError` (exit 1).
 *
 * @example
 * const result = await runSamplingCommand("llm -m small", params, signal);
 */
export function runSamplingCommand(
  command: string,
  params: CreateMessageRequestParams,
  signal?: AbortSignal,
): Promise<CreateMessageResult> {
  return new Promise((resolve, reject) => {
    // Its own process group, ended as a whole on abort: killing only the shell would leave what
    // it started (`a | b`, `x; y`) running, orphaned.
    const group = process.platform !== "win32";
    const child = spawn(command, { shell: true, stdio: ["pipe", "pipe", "inherit"], detached: group });
    const stop = () => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
        else child.kill();
      } catch {
        // already gone
      }
    };
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", stop, { once: true });
    child.once("close", () => signal?.removeEventListener("abort", stop));
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.once("error", (error) =>
      reject(new LocalAnswerError(`--sampling-command could not run: ${error.message}`)),
    );
    child.once("close", (code, killed) => {
      if (code !== 0) {
        reject(
          new LocalAnswerError(
            `--sampling-command failed (${code === null ? `signal ${killed}` : `exit code ${code}`})`,
          ),
        );
        return;
      }
      const text = Buffer.concat(chunks)
        .toString("utf8")
        .replace(/\r?\n$/, "");
      if (text.trim() === "") reject(new LocalAnswerError("--sampling-command printed no answer"));
      else resolve(assistantText(text, COMMAND_MODEL));
    });
    // A command that does not read its stdin must not fail the write.
    child.stdin.on("error", () => {});
    child.stdin.end(`${JSON.stringify({ method: "sampling/createMessage", params })}\n`);
  });
}
