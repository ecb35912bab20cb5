/**
 * The opt-in legacy shim: a handler written once for 2026-07-28 returns an `InputRequiredResult`;
 * on a 2025 session each embedded request is sent to the client through the back-channel, and the
 * handler is re-entered with the answers and its (sealed) state — bounded in rounds and in time.
 */

import { messageOf } from "../../shared/errors.js";
import { pause } from "../../shared/timers.js";
import { describeInputRequestsProblem, McpError, validInputRequiredResult } from "../../types/core.js";
import type {
  ClientCapabilities,
  InputRequests,
  InputRequiredResult,
  InputResponses,
  ResultObject,
} from "../../types/index.js";
import { assertInputRequestsDeclared } from "../capability-gate.js";
import type { BackChannel } from "./back-channel.js";
import { asksForInput, invalidResult } from "./outbound.js";

/** What the shim needs to know about the request it serves. */
export interface ShimContext {
  readonly method: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly channel: BackChannel;
  readonly signal: AbortSignal;
  readonly maxRounds: number;
  readonly roundTimeoutMs: number;
}

/** One re-entry of the handler: this round's answers and the state it echoes. */
export interface ShimRetry {
  readonly inputResponses?: InputResponses;
  readonly requestState?: string;
}

const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 250;

/** How a failed fulfilment surfaces: an `isError` result for a tool, a -32603 otherwise. */
function failed(method: string, reason: string): ResultObject {
  const text = `${method} needed input that could not be obtained from the client: ${reason}`;
  if (method === "tools/call") return { content: [{ type: "text", text }], isError: true };
  throw new McpError(-32603, text);
}

/** Sends one round's requests in parallel; the first failure aborts its siblings. */
async function askAll(requests: InputRequests, ctx: ShimContext): Promise<InputResponses> {
  const round = new AbortController();
  const onAbort = () => round.abort();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const entries = Object.entries(requests);
    const answers = await Promise.all(
      entries.map(([, request]) =>
        ctx.channel.ask(request, { signal: round.signal, timeoutMs: ctx.roundTimeoutMs }).catch((error) => {
          round.abort();
          throw error;
        }),
      ),
    );
    return Object.fromEntries(entries.map(([key], i) => [key, answers[i]])) as InputResponses;
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Drives a handler that answered `input_required` on a 2025 session until it completes. Each
 * round checks the session's declared capabilities first (-32021, as on the modern wire), asks
 * through the back-channel, then calls `retry` — which runs the whole middleware chain again, so
 * the state is verified by the same boundary as a modern retry. State-only rounds are paced
 * (50 ms doubling to 250 ms).
 *
 * @example
 * const result = await fulfilThroughShim(first, (retry) => run(retry), shimContext);
 */
export async function fulfilThroughShim(
  first: ResultObject,
  retry: (round: ShimRetry) => Promise<ResultObject>,
  ctx: ShimContext,
): Promise<ResultObject> {
  let result = first;
  let wait = FIRST_PAUSE_MS;
  for (let round = 1; asksForInput(result); round++) {
    if (round > ctx.maxRounds) {
      return failed(ctx.method, `it still required input after ${ctx.maxRounds} rounds`);
    }
    if (!validInputRequiredResult(result)) throw invalidResult("a malformed input_required result");
    const requests = (result as InputRequiredResult).inputRequests ?? {};
    const problem = describeInputRequestsProblem(requests);
    if (problem) throw invalidResult(problem);
    let inputResponses: InputResponses | undefined;
    if (Object.keys(requests).length > 0) {
      assertInputRequestsDeclared(requests, ctx.clientCapabilities);
      try {
        inputResponses = await askAll(requests, ctx);
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        return failed(ctx.method, messageOf(error));
      }
      wait = FIRST_PAUSE_MS;
    } else {
      await pause(wait, ctx.signal);
      wait = Math.min(wait * 2, MAX_PAUSE_MS);
    }
    if (ctx.signal.aborted) throw new McpError(-32603, "Request cancelled");
    result = await retry({ inputResponses, requestState: (result as InputRequiredResult).requestState });
  }
  return result;
}
