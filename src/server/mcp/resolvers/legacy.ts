/**
 * Resolution on a 2025 session: there is no `input_required` to return, so a resolver's question
 * goes to the client right away through the back-channel (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`, related to the request being served), and the answer is
 * checked exactly like a modern retry's.
 */

import { messageOf } from "../../../shared/errors.js";
import type { BackChannel } from "../../legacy/back-channel.js";
import { ToolError } from "../results.js";
import { type CheckedAnswer, checkAnswer } from "./answers.js";
import type { AnyQuestion } from "./questions.js";

/**
 * Asks `question` now and returns the checked answer. A client that cannot answer (an error
 * response, no answer in time) fails the call like an unusable answer does: `ToolError` naming the
 * resolver. A cancelled request rethrows as is.
 *
 * @example
 * const answer = await askThroughBackChannel("ask_region", question, q, channel, ctx.signal);
 */
export async function askThroughBackChannel(
  key: string,
  question: AnyQuestion,
  q: string,
  channel: BackChannel,
  signal: AbortSignal,
): Promise<CheckedAnswer> {
  let raw: unknown;
  try {
    raw = await channel.ask(question.request, { signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ToolError(`Resolver '${key}' could not ask the client: ${messageOf(error)}`);
  }
  const checked = await checkAnswer(question, raw, q);
  if (typeof checked === "string") throw new ToolError(`Resolver '${key}' ${checked}`);
  return checked;
}
