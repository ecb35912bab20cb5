import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  type InputRequests,
  type InputRequiredResult,
  ListRootsResultSchema,
  McpError,
} from "../../../types/index.js";
import { missingCapabilityFor } from "../../capability-gate.js";
import { argsDigest } from "../../state/claims.js";
import type { Context } from "../context.js";
import { ToolError } from "../results.js";
import type { ResolverGraph } from "./graph.js";
import { type AnyQuestion, isQuestion } from "./questions.js";
import { type AnyResolver, RESOLVER, type ResolverCore } from "./resolver.js";
import { decodeResolverState, encodeResolverState, type RecordedOutcome } from "./state.js";

/** What one resolver produced this round. */
type Settled =
  | { readonly status: "value"; readonly value: unknown }
  | { readonly status: "answered"; readonly question: AnyQuestion; readonly outcome: RecordedOutcome }
  | { readonly status: "pending" };

/** The result of resolving a consumer's dependencies for one leg. */
export type Resolution =
  | { readonly complete: true; readonly values: Record<string, unknown> }
  | { readonly complete: false; readonly result: InputRequiredResult };

/** The question digest: pins an answer to the exact rendered question (22 characters). */
export function questionDigest(question: AnyQuestion): string {
  return argsDigest(question.request.params ?? {});
}

function failure(key: string, detail: string): ToolError {
  return new ToolError(`Resolver '${key}' ${detail}`);
}

/**
 * Checks a fresh answer from the client against the live question. Returns the outcome to record,
 * or why it is unusable.
 */
async function checkAnswer(
  question: AnyQuestion,
  raw: unknown,
  q: string,
): Promise<RecordedOutcome | string> {
  switch (question.kind) {
    case "elicit":
    case "elicitUrl": {
      const parsed = ElicitResultSchema.safeParse(raw);
      if (!parsed.success) return "received a non-elicitation response";
      const { action, content } = parsed.data;
      if (action !== "accept" || question.kind === "elicitUrl") return { action, q };
      if (content === undefined) return "received an accepted elicitation with no content";
      const checked = await question.schema?.validate(content);
      if (checked && !checked.ok) return "received content that does not match the requested schema";
      // The client's raw content is what we keep, so a later restore validates exactly what was sent.
      return { action, data: content, q };
    }
    case "sample":
      return CreateMessageResultSchema.safeParse(raw).success
        ? { action: "accept", data: raw, q }
        : "received a response of the wrong kind";
    case "roots":
      return ListRootsResultSchema.safeParse(raw).success
        ? { action: "accept", data: raw, q }
        : "received a response of the wrong kind";
  }
}

/**
 * Whether a recorded outcome still answers the live question: same digest, and still valid (a
 * redeploy may have changed the schema). An unusable entry is dropped and the question asked again.
 */
async function restorable(question: AnyQuestion, entry: RecordedOutcome, q: string): Promise<boolean> {
  if (entry.q !== q) return false;
  if (question.kind === "sample" || question.kind === "roots") {
    return entry.action === "accept" && typeof (await checkAnswer(question, entry.data, q)) !== "string";
  }
  if (entry.action !== "accept" || question.kind === "elicitUrl") return true;
  return typeof (await checkAnswer(question, { action: "accept", content: entry.data }, q)) !== "string";
}

const PAST_TENSE = { decline: "declined", cancel: "cancelled" } as const;

/** What a consumer receives from a settled resolver (unwrapped, or the full outcome). */
function consumerValue(view: AnyResolver, settled: Exclude<Settled, { status: "pending" }>): unknown {
  if (settled.status === "value") return settled.value;
  const { question, outcome } = settled;
  const key = view.key;
  if (question.kind === "sample" || question.kind === "roots") return outcome.data;
  if (view.wantsOutcome) {
    return outcome.action === "accept" && question.kind === "elicit"
      ? { action: "accept", content: outcome.data }
      : { action: outcome.action };
  }
  if (outcome.action !== "accept") {
    throw failure(key, `could not resolve: elicitation was ${PAST_TENSE[outcome.action]}`);
  }
  return question.kind === "elicit" ? outcome.data : { action: "accept" };
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
  const outcomes: Record<string, RecordedOutcome> = {};
  const asked: Record<string, string> = {};
  const pending: InputRequests = {};
  const memo = new Map<ResolverCore, Promise<Settled>>();

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
    const settledDeps = await Promise.all(deps.map(([, dep]) => settle(dep[RESOLVER])));
    if (settledDeps.some((s) => s.status === "pending")) return { status: "pending" };
    const depValues: Record<string, unknown> = {};
    deps.forEach(([name, dep], i) => {
      depValues[name] = consumerValue(dep, settledDeps[i] as Exclude<Settled, { status: "pending" }>);
    });
    const visibleArgs = core.args ? Object.fromEntries(core.args.map((a) => [a, args[a]])) : args;
    const produced = await core.run({ args: visibleArgs, ctx, deps: depValues });
    if (!isQuestion(produced)) return { status: "value", value: produced };
    return answer(core.key, produced);
  };

  const answer = async (key: string, question: AnyQuestion): Promise<Settled> => {
    const q = questionDigest(question);
    const recorded = previous.outcomes[key];
    if (recorded && (await restorable(question, recorded, q))) {
      outcomes[key] = recorded;
      return { status: "answered", question, outcome: recorded };
    }
    const fresh = responses[key];
    if (fresh !== undefined && previous.asked[key] === q) {
      const checked = await checkAnswer(question, fresh, q);
      if (typeof checked === "string") throw failure(key, checked);
      outcomes[key] = checked;
      return { status: "answered", question, outcome: checked };
    }
    const missing = missingCapabilityFor(question.request, ctx.clientCapabilities);
    if (missing) {
      throw new McpError(
        ErrorCode.MissingRequiredClientCapability,
        `Client did not declare the ${missing.label} capability required by resolver '${key}'`,
        { requiredCapabilities: missing.shape },
      );
    }
    pending[key] = question.request;
    asked[key] = q;
    return { status: "pending" };
  };

  const settled = await Promise.all(graph.entries.map(([, view]) => settle(view[RESOLVER])));
  if (Object.keys(pending).length > 0) {
    return {
      complete: false,
      result: {
        resultType: "input_required",
        inputRequests: pending,
        requestState: encodeResolverState({ outcomes, asked }),
      },
    };
  }
  const values: Record<string, unknown> = {};
  graph.entries.forEach(([name, view], i) => {
    values[name] = consumerValue(view, settled[i] as Exclude<Settled, { status: "pending" }>);
  });
  return { complete: true, values };
}
