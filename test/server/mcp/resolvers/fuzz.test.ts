/**
 * Seeded fuzzing of the resolver engine through `dispatch`, with the wire's JSON in between. Several
 * flows of one tool run interleaved; its resolvers ask a form (from the arguments), a second form
 * that depends on the first (its outcome wanted), a sampling and a roots question, and compute a
 * price. Each round the client answers every asked key at random: right, with content the schema
 * refuses, declined, cancelled, of the wrong kind, junk or not at all; it adds answers to questions
 * nobody asked, echoes the state, drops it, corrupts it, replays an older one or sends another
 * flow's, and now and then changes its arguments or lacks a capability.
 *
 * Invariants: every answer is a JSON-RPC response under the request's id, with -32602 (or -32021
 * for a missing capability) as the only error codes; a corrupted state, or one minted for other
 * arguments, is refused with the frozen -32602 message; `inputRequests` name only resolver keys and
 * hold valid requests, and the dependent question quotes an answer this client gave for these
 * arguments; the tool body runs only on a successful result, once, with values that pass its
 * schemas and that this client sent for the same arguments, each to a question the echoed state
 * had asked, and with the computed price, never a stored one.
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { elicit, listRoots, resolver, sample, withOutcome } from "../../../../src/server/mcp/index.js";
import {
  validCreateMessageResult,
  validInputRequests,
  validListRootsResult,
} from "../../../../src/types/core.js";
import type { ClientCapabilities, JSONRPCResponse } from "../../../../src/types/index.js";
import { type JsonVocabulary, randomJson } from "../../../fuzz-values.js";
import { request, unhandledRejections } from "../../../helpers.js";
import { prng } from "../../../prng.js";
import { quietServer } from "../helpers.js";
import { ALL, CANCEL, DECLINE, FORM, ROOTS, SAMPLED } from "./helpers.js";

type Rng = ReturnType<typeof prng>;
type Args = { city: string; nights: number };

const SEEDS = [61, 62, 63, 64];
const FLOWS = 6;
const ROUNDS = 20;
const KEYS = ["dates", "confirm", "summary", "roots"] as const;
const FROZEN = "Invalid or expired requestState";
const CITIES = ["Lyon", "Oslo", "Kyoto"];

const Dates = z.object({ from: z.string().min(1), to: z.string() });
const Confirm = z.object({ ok: z.boolean() });

interface BodyRun {
  readonly requestId: unknown;
  readonly args: Args;
  readonly values: Record<string, unknown>;
}

/** What the client sent, by arguments: the only values a body may ever see for them. */
class Sent {
  readonly #byArgs = new Map<string, Map<string, unknown[]>>();

  add(args: Args, key: string, answer: unknown): void {
    const argsKey = JSON.stringify(args);
    const forArgs = this.#byArgs.get(argsKey) ?? new Map<string, unknown[]>();
    this.#byArgs.set(argsKey, forArgs);
    forArgs.set(key, [...(forArgs.get(key) ?? []), answer]);
  }

  /** Whether some answer sent for `key` with these arguments satisfies `matches`. */
  some(args: Args, key: string, matches: (answer: Record<string, unknown>) => boolean): boolean {
    const answers = this.#byArgs.get(JSON.stringify(args))?.get(key) ?? [];
    return answers.some((answer) => isRecord(answer) && matches(answer));
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** An accepted form answer whose content `schema` turns into `value`. */
const acceptedAs = (schema: z.ZodType, value: unknown) => (answer: Record<string, unknown>) => {
  const parsed = schema.safeParse(answer.content);
  return answer.action === "accept" && parsed.success && isDeepStrictEqual(parsed.data, value);
};

function fuzzServer(runs: BodyRun[]) {
  const mcp = quietServer("resolver-fuzz");
  const dates = resolver("dates", { args: ["city"] }, ({ args }) =>
    elicit(`Which dates in ${String(args.city)}?`, Dates),
  );
  const confirm = resolver("confirm", { deps: { dates } }, ({ deps }) =>
    elicit(`Book from ${deps.dates.from}?`, Confirm),
  );
  const summary = resolver("summary", { deps: { dates }, args: ["nights"] }, ({ args }) =>
    sample({ maxTokens: 20, prompt: `Summarise ${String(args.nights)} nights` }),
  );
  const roots = resolver("roots", () => listRoots());
  const price = resolver("price", { args: ["nights"] }, ({ args }) => Number(args.nights) * 100);
  mcp.tool(
    "book",
    {
      input: z.object({ city: z.string(), nights: z.number().int().min(1) }),
      resolve: { dates, confirm: withOutcome(confirm), summary, roots, price },
    },
    (args, values, ctx) => {
      runs.push({ requestId: ctx.requestId, args, values: JSON.parse(JSON.stringify(values)) });
      return `Booked ${args.city}`;
    },
  );
  return mcp;
}

/** A right answer to an embedded request, by its method (forms get content of the right shape). */
function rightAnswer(rng: Rng, asked: { method?: unknown; params?: unknown }): unknown {
  if (asked.method === "sampling/createMessage") return SAMPLED(rng.pick(["short", "long"]));
  if (asked.method === "roots/list") return ROOTS;
  const message = String((asked.params as { message?: unknown })?.message);
  if (message.startsWith("Book")) return { action: "accept", content: { ok: rng.chance(0.5) } };
  return {
    action: "accept",
    content: { from: rng.pick(["mon", "tue", "fri"]), to: rng.pick(["sat", "sun"]) },
  };
}

function answerFor(rng: Rng, asked: { method?: unknown; params?: unknown }, vocabulary: JsonVocabulary) {
  switch (rng.int(20)) {
    case 0:
      return { action: "accept", content: { from: 5, ok: "yes" } }; // refused by either form's schema
    case 1:
      return DECLINE;
    case 2:
      return CANCEL;
    case 3:
      return asked.method === "elicitation/create" ? SAMPLED("wrong kind") : DECLINE;
    case 4:
      return randomJson(rng, vocabulary);
    case 5:
      return { action: "accept" }; // accepted, but no content
    default:
      return rightAnswer(rng, asked);
  }
}

function vocabulary(rng: Rng): JsonVocabulary {
  return {
    text: (max) => "é€a".slice(0, rng.int(max)),
    words: ["accept", "decline", "dates", "confirm", "", "Book"],
    keys: ["action", "content", "from", "ok", "role", "model", "roots"],
  };
}

/** One flow's view of the wire: its arguments, the last asked questions and the states it holds. */
class FlowDriver {
  args: Args;
  state: string | undefined;
  asked: Record<string, { method?: unknown; params?: unknown }> = {};
  readonly states: string[] = [];

  constructor(
    readonly rng: Rng,
    readonly capabilities: ClientCapabilities,
  ) {
    this.args = { city: rng.pick(CITIES), nights: 1 + rng.int(2) };
  }
}

interface Fuzz {
  readonly rng: Rng;
  readonly sent: Sent;
  readonly runs: BodyRun[];
  /** The arguments each state was minted for. */
  readonly mintedFor: Map<string, string>;
  /** The questions asked alongside each state. */
  readonly askedBy: Map<string, string[]>;
  readonly violations: string[];
}

function corrupt(rng: Rng, state: string): string {
  const at = rng.int(state.length - 2); // the last characters may hold padding bits only
  const swapped = state[at] === "A" ? "B" : "A";
  return state.slice(0, at) + swapped + state.slice(at + 1);
}

async function step(mcp: ReturnType<typeof fuzzServer>, flow: FlowDriver, flows: FlowDriver[], fuzz: Fuzz) {
  const { rng, sent, runs, violations } = fuzz;
  if (rng.chance(0.08)) flow.args = { city: rng.pick(CITIES), nights: rng.chance(0.1) ? 0 : 1 + rng.int(2) };
  let inputResponses: unknown;
  if (rng.chance(0.03)) inputResponses = rng.pick([[], "answers", 7, null]);
  else {
    const answers: Record<string, unknown> = {};
    for (const [key, asked] of Object.entries(flow.asked)) {
      if (rng.chance(0.1)) continue;
      answers[key] = answerFor(rng, asked, vocabulary(rng));
    }
    if (rng.chance(0.15)) {
      const key = rng.pick([...KEYS, "price", "elsewhere"]);
      answers[key] = rng.pick([
        { action: "accept", content: { from: "forged", to: "x" } },
        { action: "accept", content: { ok: true } },
        SAMPLED("unasked"),
        ROOTS,
      ]);
    }
    if (Object.keys(answers).length > 0 || rng.chance(0.5)) inputResponses = answers;
  }
  let state = flow.state;
  let expectFrozen = false;
  const choice = rng.int(20);
  if (choice === 0) state = undefined;
  else if (choice === 1 && state !== undefined) {
    state = corrupt(rng, state);
    expectFrozen = true;
  } else if (choice === 2 && flow.states.length > 0) state = rng.pick(flow.states);
  else if (choice === 3) state = rng.pick(flows).state ?? state;
  if (state !== undefined && !expectFrozen && fuzz.mintedFor.get(state) !== JSON.stringify(flow.args)) {
    // Another flow's state (or this flow's before its arguments changed) is bound to other arguments.
    // The state is opened before the arguments are validated, so bad arguments change nothing.
    expectFrozen = fuzz.mintedFor.has(state);
  }

  // An answer counts only for a question the echoed state asked: any other is to be ignored.
  const askedByState = state === undefined ? undefined : fuzz.askedBy.get(state);
  if (isRecord(inputResponses)) {
    for (const [key, answer] of Object.entries(inputResponses)) {
      if (askedByState?.includes(key)) sent.add(flow.args, key, answer);
    }
  }

  const params: Record<string, unknown> = { name: "book", arguments: flow.args };
  if (inputResponses !== undefined) params.inputResponses = inputResponses;
  if (state !== undefined) params.requestState = state;
  const message = JSON.parse(JSON.stringify(request("tools/call", params, flow.capabilities)));
  const response = JSON.parse(JSON.stringify(await mcp.dispatch(message))) as JSONRPCResponse;
  // Flows run interleaved: a body run belongs to the request whose id it saw.
  const ran = () => runs.filter((run) => run.requestId === message.id);
  const where = `flow ${flows.indexOf(flow)} ${JSON.stringify(params).slice(0, 300)}`;

  if (response.id !== message.id) violations.push(`${where}: answered under id ${String(response.id)}`);
  if ("error" in response) {
    const { code, message: text } = response.error as { code: number; message: string };
    if (code !== -32602 && code !== -32021) violations.push(`${where}: error code ${code} (${text})`);
    // The params ladder comes first: a malformed answer is refused before the state is opened.
    if (expectFrozen && text !== FROZEN && !text.startsWith("Invalid params for tools/call")) {
      violations.push(`${where}: a foreign state got "${text}"`);
    }
    if (ran().length !== 0) violations.push(`${where}: the body ran on an error`);
    return;
  }
  if (expectFrozen) violations.push(`${where}: a corrupted or foreign state was taken`);
  const result = response.result as Record<string, unknown>;
  if (result.resultType === "input_required") {
    checkQuestions(result, flow, fuzz, where);
    if (ran().length !== 0) violations.push(`${where}: the body ran, yet input is required`);
    return;
  }
  flow.asked = {};
  flow.state = undefined;
  const bodyRuns = ran();
  if (result.isError === true) {
    if (bodyRuns.length !== 0) violations.push(`${where}: the body ran, yet the result is an error`);
    return;
  }
  const [run] = bodyRuns;
  if (run === undefined || bodyRuns.length > 1) {
    violations.push(`${where}: the body ran ${bodyRuns.length} times for one success`);
  } else checkBodyRun(run, flow.args, sent, violations, where);
}

function checkQuestions(result: Record<string, unknown>, flow: FlowDriver, fuzz: Fuzz, where: string) {
  const requests = (result.inputRequests ?? {}) as Record<string, { method?: unknown; params?: unknown }>;
  if (!validInputRequests(requests)) fuzz.violations.push(`${where}: invalid inputRequests`);
  for (const key of Object.keys(requests)) {
    if (!(KEYS as readonly string[]).includes(key))
      fuzz.violations.push(`${where}: asked unknown key ${key}`);
  }
  const confirm = requests.confirm?.params as { message?: string } | undefined;
  const from = confirm?.message?.match(/^Book from (.*)\?$/)?.[1];
  const quoted = (answer: Record<string, unknown>) =>
    answer.action === "accept" && Dates.safeParse(answer.content).data?.from === from;
  if (confirm && (from === undefined || !fuzz.sent.some(flow.args, "dates", quoted))) {
    fuzz.violations.push(`${where}: the dependent question quotes ${String(confirm.message)}`);
  }
  if (typeof result.requestState === "string") {
    fuzz.mintedFor.set(result.requestState, JSON.stringify(flow.args));
    fuzz.askedBy.set(result.requestState, Object.keys(requests));
    flow.states.push(result.requestState);
    flow.state = result.requestState;
  }
  flow.asked = requests;
}

function checkBodyRun(run: BodyRun, args: Args, sent: Sent, violations: string[], where: string) {
  const { dates, confirm, summary, roots, price } = run.values;
  if (!isDeepStrictEqual(run.args, args)) violations.push(`${where}: the body saw other arguments`);
  if (!sent.some(args, "dates", acceptedAs(Dates, dates))) {
    violations.push(`${where}: dates ${JSON.stringify(dates)} were never sent for these arguments`);
  }
  const outcome = confirm as { action?: unknown; content?: unknown };
  const confirmSent =
    outcome.action === "accept"
      ? sent.some(args, "confirm", acceptedAs(Confirm, outcome.content))
      : (outcome.action === "decline" || outcome.action === "cancel") &&
        sent.some(args, "confirm", (answer) => answer.action === outcome.action);
  if (!confirmSent) {
    violations.push(`${where}: confirm ${JSON.stringify(confirm)} was never sent for these arguments`);
  }
  const answers = [
    ["summary", summary, validCreateMessageResult],
    ["roots", roots, validListRootsResult],
  ] as const;
  for (const [key, value, valid] of answers) {
    if (!valid(value) || !sent.some(args, key, (answer) => isDeepStrictEqual(answer, value))) {
      violations.push(
        `${where}: ${key} ${JSON.stringify(value)} is invalid or was never sent for these arguments`,
      );
    }
  }
  if (price !== args.nights * 100)
    violations.push(`${where}: price ${String(price)} is not the computed one`);
}

const unhandled = unhandledRejections();

describe("resolver engine fuzz (seeded, through dispatch)", () => {
  it.each(SEEDS)("seed %i: hostile answers and states never reach a tool body", async (seed) => {
    const rng = prng(seed);
    const runs: BodyRun[] = [];
    const fuzz: Fuzz = {
      rng,
      sent: new Sent(),
      runs,
      mintedFor: new Map(),
      askedBy: new Map(),
      violations: [],
    };
    const mcp = fuzzServer(runs);
    const flows = Array.from({ length: FLOWS }, () => new FlowDriver(rng, rng.chance(0.15) ? FORM : ALL));
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved: every flow sends its round before any reply is read.
      await Promise.all(flows.map((flow) => step(mcp, flow, flows, fuzz)));
    }
    expect(fuzz.violations).toEqual([]);
    // The fuzz reached the body and the refusals it is about, not only errors.
    expect(runs.length).toBeGreaterThan(0);
    expect(unhandled).toEqual([]);
  });
});
