import { ErrorCode, McpError } from "../../../types/core.js";
import type { InputRequests, InputRequiredResult } from "../../../types/index.js";
import { missingCapabilityFor } from "../../capability-gate.js";
import { backChannelOf } from "../../legacy/back-channel.js";
import { argsDigest } from "../../state/claims.js";
import type { Context } from "../context.js";
import { ToolError } from "../results.js";
import { type CheckedAnswer, checkAnswer, restoreAnswer } from "./answers.js";
import type { ResolverGraph } from "./graph.js";
import { askThroughBackChannel } from "./legacy.js";
import { type AnyQuestion, isQuestion } from "./questions.js";
import { type AnyResolver, RESOLVER, type ResolverCore } from "./resolver.js";
import { decodeResolverState, encodeResolverState, type RecordedOutcome } from "./state.js";

/** What one resolver produced this round. */
type Settled =
  | { readonly status: "value"; readonly value: unknown }
  | { readonly status: "answered"; readonly question: AnyQuestion; readonly answer: CheckedAnswer }
  | { readonly status: "pending" };

/** The result of resolving a consumer's dependencies for one leg. */
export type Resolution =
  | { readonly complete: true; readonly values: Record<string, unknown> }
  | { readonly complete: false; readonly result: InputRequiredResult };

/**
 * The question digest: pins an answer to the exact rendered question (22 characters).
 *
 * @example
 * questionDigest(elicit("Which region?", Region)).length; // 22
 */
export function questionDigest(question: AnyQuestion): string {
  return argsDigest(question.request.params ?? {});
}

function failure(key: string, detail: string): ToolError {
  return new ToolError(`Resolver '${key}' ${detail}`);
}

/**
 * The state of the next round. Its outcomes are the client's answers: one nested past what
 * `JSON.stringify` can walk is the client's doing, refused as an unusable answer would be.
 */
function keptForNextRound(outcomes: Record<string, RecordedOutcome>, asked: Record<string, string>): string {
  try {
    return encodeResolverState({ outcomes, asked });
  } catch (error) {
    const key =
      error instanceof RangeError && Object.keys(outcomes).find((name) => !fitsJson(outcomes[name]));
    if (!key) throw error;
    throw failure(key, "answer is nested too deeply to keep for the next round");
  }
}

/** Whether `JSON.stringify` can walk `value` (it throws a RangeError past its stack). */
function fitsJson(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

/** Reads an own property only (never the prototype chain). */
function own<T>(map: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

const PAST_TENSE = { decline: "declined", cancel: "cancelled" } as const;

/** What a consumer receives from a settled resolver (unwrapped, or the full outcome). */
function consumerValue(view: AnyResolver, settled: Exclude<Settled, { status: "pending" }>): unknown {
  if (settled.status === "value") return settled.value;
  const { question, answer } = settled;
  const { action } = answer.outcome;
  if (question.kind === "sample" || question.kind === "roots") return answer.value;
  if (view.wantsOutcome) {
    return action === "accept" && question.kind === "elicit" ? { action, content: answer.value } : { action };
  }
  if (action !== "accept")
    throw failure(view.key, `could not resolve: elicitation was ${PAST_TENSE[action]}`);
  return question.kind === "elicit" ? answer.value : { action };
}

/**
 * Settles `views` and returns their consumer values, or undefined while any is pending. A plain
 * view's decline throws even then, like the reference: the call cannot succeed, so no further
 * question is asked. `oneByOne` (a 2025 session, whose questions go out at once) settles each
 * view only after the one before it, so the client gets one question at a time.
 */
async function valuesOf(
  views: readonly [string, AnyResolver][],
  settle: (core: ResolverCore) => Promise<Settled>,
  oneByOne: boolean,
) {
  const settled = oneByOne ? [] : await Promise.all(views.map(([, view]) => settle(view[RESOLVER])));
  const values: Record<string, unknown> = {};
  let waiting = false;
  for (const [i, [name, view]] of views.entries()) {
    const s = settled[i] ?? (await settle(view[RESOLVER]));
    if (s.status === "pending") waiting = true;
    else values[name] = consumerValue(view, s);
  }
  return waiting ? undefined : values;
}

/**
 * Resolves a consumer's dependencies for one leg (modern era): every resolver runs at most once,
 * every independent question of the round is batched, recorded answers are reused only for the
 * exact question they answered, and fresh answers count only for questions asked last round.
 */
export async function resolveForLeg(
  graph: ResolverGraph,
  args: Readonly<Record<string, unknown>>,
  ctx: Context,
): Promise<Resolution> {
  const previous = decodeResolverState(ctx.requestState);
  const responses = ctx.inputResponses ?? {};
  // Null-prototype maps: resolver keys are user-chosen strings ("__proto__" included).
  const outcomes: Record<string, RecordedOutcome> = Object.create(null);
  const asked: Record<string, string> = Object.create(null);
  const pending: InputRequests = Object.create(null);
  const memo = new Map<ResolverCore, Promise<Settled>>();
  const channel = backChannelOf(ctx.request);

  const settle = (core: ResolverCore): Promise<Settled> => {
    let promise = memo.get(core);
    if (!promise) {
      promise = run(core);
      memo.set(core, promise);
    }
    return promise;
  };

  const run = async (core: ResolverCore): Promise<Settled> => {
    const deps = Object.entries(core.deps());
    // Visit every dependency even when one is pending, so independent questions share a round.
    const depValues = await valuesOf(deps, settle, channel !== undefined);
    if (!depValues) return { status: "pending" };
    const visibleArgs = core.args ? Object.fromEntries(core.args.map((a) => [a, args[a]])) : args;
    const produced = await core.run({ args: visibleArgs, ctx, deps: depValues });
    if (!isQuestion(produced)) return { status: "value", value: produced };
    return answer(core.key, produced);
  };

  const answer = async (key: string, question: AnyQuestion): Promise<Settled> => {
    const q = questionDigest(question);
    const recorded = own(previous.outcomes, key);
    const restored = recorded && (await restoreAnswer(question, recorded, q));
    if (restored) {
      outcomes[key] = restored.outcome;
      return { status: "answered", question, answer: restored };
    }
    const fresh = own(responses, key);
    if (fresh !== undefined && own(previous.asked, key) === q) {
      const checked = await checkAnswer(question, fresh, q);
      if (typeof checked === "string") throw failure(key, checked);
      outcomes[key] = checked.outcome;
      return { status: "answered", question, answer: checked };
    }
    if (fresh !== undefined) {
      // Not an error (the question is asked again), but worth a trace when a client seems stuck.
      ctx.request.logger.info(
        `resolver '${key}': ignored an answer to a question not asked in the previous round (reworded, or no echoed state)`,
      );
    }
    const missing = missingCapabilityFor(question.request, ctx.clientCapabilities);
    if (missing) {
      throw new McpError(
        ErrorCode.MissingRequiredClientCapability,
        `Client did not declare the ${missing.label} capability required by resolver '${key}'`,
        { requiredCapabilities: missing.shape },
      );
    }
    // A 2025 session has no input_required: the question goes out now, through the back-channel.
    if (channel) {
      const asked = await askThroughBackChannel(key, question, q, channel, ctx.signal);
      outcomes[key] = asked.outcome;
      return { status: "answered", question, answer: asked };
    }
    pending[key] = question.request;
    asked[key] = q;
    return { status: "pending" };
  };

  const values = await valuesOf(graph.entries, settle, channel !== undefined);
  if (values) return { complete: true, values };
  return {
    complete: false,
    result: {
      resultType: "input_required",
      inputRequests: pending,
      requestState: keptForNextRound(outcomes, asked),
    },
  };
}
