import type { Context } from "../context.js";
import type { AnyQuestion, Question, QuestionKind } from "./questions.js";

export const RESOLVER: unique symbol = Symbol("roundtrip.resolver");

/**
 * Thrown at registration when a tool's resolvers cannot work (cycle, duplicate key, unknown argument, …).
 *
 * @example
 * const zone = resolver("region", () => elicit("Which zone?", Zone)); // "region" is askRegion's key
 * mcp.tool("deploy", { resolve: { region: askRegion, zone } }, handler); // throws InvalidSignature
 */
export class InvalidSignature extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidSignature";
  }
}

type Awaitable<T> = T | Promise<T>;

/** What a resolver body receives. */
export interface ResolverInput<Deps> {
  /** The tool's validated arguments (only those named in `args`, when given). */
  readonly args: Readonly<Record<string, unknown>>;
  readonly ctx: Context;
  /** The values of the declared dependencies. */
  readonly deps: Deps;
}

/** The shared, identity-bearing part of a resolver (views such as `withOutcome` point at it). */
export interface ResolverCore {
  readonly key: string;
  readonly run: (input: ResolverInput<Record<string, unknown>>) => Awaitable<unknown>;
  readonly deps: () => Readonly<Record<string, AnyResolver>>;
  readonly args: readonly string[] | undefined;
}

/**
 * A declared dependency: runs before the consumer, at most once per round, and may ask one
 * question. `Value` is what consumers receive; `withOutcome(r)` gives them `Outcome` instead.
 */
export interface Resolver<Value = unknown, Outcome = Value> {
  readonly [RESOLVER]: ResolverCore;
  readonly key: string;
  /** Whether consumers receive the full outcome instead of the unwrapped value. */
  readonly wantsOutcome: boolean;
  readonly _types?: { value: Value; outcome: Outcome };
}

/** Any resolver, whatever its value and outcome. */
export type AnyResolver = Resolver<unknown, unknown>;

/** The value a resolver gives its consumer. */
export type ResolvedValue<R> =
  R extends Resolver<infer V, infer O> ? (R extends { wantsOutcome: true } ? O : V) : never;

/** The values of a `resolve` map. */
export type ResolvedValues<M> = { -readonly [K in keyof M]: ResolvedValue<M[K]> };

type QuestionsIn<R> = Extract<R, AnyQuestion>;
type PlainIn<R> = Exclude<R, AnyQuestion>;
// Distributive over the question arms, so a body that never asks yields just its plain values.
type QuestionValue<Q> = Q extends Question<QuestionKind, infer V, unknown> ? V : never;
type QuestionOutcome<Q> = Q extends Question<QuestionKind, unknown, infer O> ? O : never;
type ValueOf<R> = PlainIn<R> | QuestionValue<QuestionsIn<R>>;
type OutcomeOf<R> = PlainIn<R> | QuestionOutcome<QuestionsIn<R>>;
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;

/** A resolver type, or an explanatory error type when the body could ask two kinds of question. */
export type ResolverFor<R> =
  true extends IsUnion<QuestionsIn<R>["kind"]>
    ? "Error: a resolver asks at most one kind of question; split it into two resolvers"
    : Resolver<ValueOf<R>, OutcomeOf<R>>;

/** Options of `resolver(key, options, body)`: the resolvers it depends on and the arguments it reads. */
export interface ResolverOptions<Deps extends Record<string, AnyResolver>> {
  /** Other resolvers this one needs (a function allows forward references). */
  deps?: Deps | (() => Deps);
  /** The tool arguments this resolver reads; checked against the tool's input at registration. */
  args?: readonly string[];
}

/**
 * Declares a resolver once; tools list it under `resolve`. The key is the wire key of its
 * question in `inputRequests`: stable across processes and deployments, so choose it on purpose.
 *
 * @example
 * const askRegion = resolver("ask_region", () => elicit("Which region?", z.object({ region: z.string() })));
 * const confirm = resolver("confirm", { deps: { region: askRegion } }, ({ deps }) =>
 *   elicit(`Provision in ${deps.region.region}?`, z.object({ ok: z.boolean() })));
 */
export function resolver<R>(
  key: string,
  body: (input: ResolverInput<Record<string, never>>) => Awaitable<R>,
): ResolverFor<R>;
export function resolver<R, Deps extends Record<string, AnyResolver> = Record<string, never>>(
  key: string,
  options: ResolverOptions<Deps>,
  body: (input: ResolverInput<ResolvedValues<Deps>>) => Awaitable<R>,
): ResolverFor<R>;
export function resolver(
  key: string,
  optionsOrBody: ResolverOptions<Record<string, AnyResolver>> | ((input: ResolverInput<never>) => unknown),
  maybeBody?: (input: ResolverInput<never>) => unknown,
): AnyResolver {
  if (typeof key !== "string" || key.length === 0)
    throw new InvalidSignature("A resolver needs a non-empty key");
  // The key names the question in inputRequests; the client cannot key its answer by "__proto__".
  if (key === "__proto__")
    throw new InvalidSignature("Resolver key '__proto__' cannot be answered: no response can be keyed by it");
  const options = typeof optionsOrBody === "function" ? {} : optionsOrBody;
  const body = typeof optionsOrBody === "function" ? optionsOrBody : maybeBody;
  if (typeof body !== "function") throw new InvalidSignature(`Resolver '${key}' needs a body function`);
  const declared = options.deps;
  const core: ResolverCore = {
    key,
    run: body as ResolverCore["run"],
    deps: typeof declared === "function" ? declared : () => declared ?? {},
    args: options.args,
  };
  return { [RESOLVER]: core, key, wantsOutcome: false };
}

/**
 * A view of a resolver whose consumer receives the full outcome (accept / decline / cancel) and can
 * branch on it, instead of the call failing on decline or cancel.
 *
 * @example
 * mcp.tool("delete", { resolve: { confirm: withOutcome(confirmDelete) } }, (_args, { confirm }) =>
 *   confirm.action === "accept" && confirm.content.ok ? "Deleted." : "Kept.");
 */
export function withOutcome<V, O>(target: Resolver<V, O>): Resolver<V, O> & { wantsOutcome: true } {
  return { [RESOLVER]: target[RESOLVER], key: target.key, wantsOutcome: true };
}

/**
 * True for a resolver (or a view of one).
 *
 * @example
 * isResolver(askRegion); // true
 */
export function isResolver(value: unknown): value is AnyResolver {
  return typeof value === "object" && value !== null && RESOLVER in value;
}
