import { validCreateMessageResult, validElicitResult, validListRootsResult } from "../../../types/core.js";
import type { CreateMessageResult, ElicitResult } from "../../../types/index.js";
import { isRecord } from "../../../types/record.js";
import type { AnyQuestion } from "./questions.js";
import type { RecordedOutcome } from "./state.js";

/** A usable answer: what to record in state, and the value consumers receive. */
export interface CheckedAnswer {
  readonly outcome: RecordedOutcome;
  /** For an accepted form: the content as the schema produced it (defaults, transforms). */
  readonly value: unknown;
}

/**
 * Checks a fresh answer from the client against the live question. Returns the answer, or why
 * it is unusable. The client's raw content is what gets recorded, so a later restore validates
 * exactly what was sent; the schema's output is what consumers receive.
 */
export async function checkAnswer(
  question: AnyQuestion,
  raw: unknown,
  q: string,
): Promise<CheckedAnswer | string> {
  switch (question.kind) {
    case "elicit":
    case "elicitUrl": {
      if (!validElicitResult(raw)) return "received a non-elicitation response";
      const { action, content } = raw as ElicitResult;
      if (action !== "accept" || question.kind === "elicitUrl")
        return { outcome: { action, q }, value: undefined };
      if (content === undefined) return "received an accepted elicitation with no content";
      const checked = await question.schema?.validate(content);
      if (checked && !checked.ok) return "received content that does not match the requested schema";
      return { outcome: { action, data: content, q }, value: checked ? checked.value : content };
    }
    case "sample":
      return validCreateMessageResult(raw) &&
        (offersTools(question) || !usesTools(raw as CreateMessageResult))
        ? { outcome: { action: "accept", data: raw, q }, value: raw }
        : "received a response of the wrong kind";
    case "roots":
      return validListRootsResult(raw)
        ? { outcome: { action: "accept", data: raw, q }, value: raw }
        : "received a response of the wrong kind";
  }
}

/**
 * Re-reads a recorded outcome against the live question: same digest and still valid (a redeploy
 * may have changed the schema). Undefined means unusable: the question is asked again.
 */
export async function restoreAnswer(
  question: AnyQuestion,
  entry: RecordedOutcome,
  q: string,
): Promise<CheckedAnswer | undefined> {
  if (entry.q !== q) return undefined;
  if (question.kind === "sample" || question.kind === "roots") {
    if (entry.action !== "accept") return undefined;
    const checked = await checkAnswer(question, entry.data, q);
    return typeof checked === "string" ? undefined : { outcome: entry, value: checked.value };
  }
  if (entry.action !== "accept" || question.kind === "elicitUrl") return { outcome: entry, value: undefined };
  const checked = await checkAnswer(question, { action: "accept", content: entry.data }, q);
  return typeof checked === "string" ? undefined : { outcome: entry, value: checked.value };
}

/** Whether a sampling question let the model use tools (`tools` or `toolChoice` set). */
function offersTools(question: AnyQuestion): boolean {
  const params = question.request.params as Record<string, unknown>;
  return params.tools !== undefined || params.toolChoice !== undefined;
}

/**
 * Whether a sampling answer holds tool use or tool results: only a question that offered tools
 * can get one; anything else is a response of the wrong kind, never handed to the consumer.
 */
function usesTools(result: CreateMessageResult): boolean {
  const content: unknown = result.content;
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.some(
    (block) => isRecord(block) && (block.type === "tool_use" || block.type === "tool_result"),
  );
}
