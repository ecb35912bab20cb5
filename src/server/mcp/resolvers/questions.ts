import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  InputRequest,
  ListRootsResult,
} from "../../../types/index.js";
import {
  compileFormSchema,
  elicitationRequest,
  type FormSchema,
  rootsRequest,
  samplingRequest,
  urlElicitationRequest,
} from "../input.js";
import type { CompiledSchema, InferSchema } from "../schema.js";

export const QUESTION: unique symbol = Symbol("roundtrip.question");

/** The kinds of question a resolver may ask. */
export type QuestionKind = "elicit" | "elicitUrl" | "sample" | "roots";

/** A form elicitation's outcome, for consumers that branch on it. */
export type ElicitOutcome<T> =
  | { action: "accept"; content: T }
  | { action: "decline" }
  | { action: "cancel" };
/** A URL elicitation's outcome: `accept` means the user agreed to open the URL. */
export type UrlElicitOutcome = { action: "accept" } | { action: "decline" } | { action: "cancel" };

/**
 * One question a resolver asks: the embedded request to send, and how to read its answer. `Value`
 * is what a plain consumer receives; `Outcome` what a consumer that asked for the outcome receives.
 */
export interface Question<Kind extends QuestionKind = QuestionKind, Value = unknown, Outcome = unknown> {
  readonly [QUESTION]: true;
  readonly kind: Kind;
  readonly request: InputRequest;
  /** For form elicitations: the schema the accepted content must match. */
  readonly schema?: CompiledSchema;
  /** Phantom types for inference. */
  readonly _types?: { value: Value; outcome: Outcome };
}

export type AnyQuestion = Question<QuestionKind, unknown, unknown>;

/** True for a question a resolver returned (as opposed to a plain value). */
export function isQuestion(value: unknown): value is AnyQuestion {
  return typeof value === "object" && value !== null && QUESTION in value;
}

/**
 * Asks the user to fill a form. The consumer receives the validated content; declining or
 * cancelling fails the call unless the consumer asked for the outcome (`withOutcome`).
 *
 * @example
 * const askRegion = resolver("ask_region", () => elicit("Which region?", z.object({ region: z.string() })));
 */
export function elicit<S extends FormSchema>(
  message: string,
  schema: S,
): Question<"elicit", InferSchema<S>, ElicitOutcome<InferSchema<S>>> {
  return {
    [QUESTION]: true,
    kind: "elicit",
    request: elicitationRequest(message, schema),
    schema: compileFormSchema(schema),
  };
}

/**
 * Asks the user to complete something at a URL (sign-in, payment). `accept` is consent to open it.
 *
 * @example
 * const signIn = resolver("sign_in", () => elicitUrl("Sign in to continue", "https://example.com/login"));
 */
export function elicitUrl(
  message: string,
  url: string | URL,
): Question<"elicitUrl", { action: "accept" }, UrlElicitOutcome> {
  return { [QUESTION]: true, kind: "elicitUrl", request: urlElicitationRequest(message, url) };
}

/**
 * Asks the client's LLM for a completion.
 *
 * @example
 * const summary = resolver("summary", () => sample({ prompt: "Summarize the incident", maxTokens: 200 }));
 */
export function sample(
  params: Partial<CreateMessageRequestParams> & { maxTokens: number; prompt?: string },
): Question<"sample", CreateMessageResult, CreateMessageResult> {
  return { [QUESTION]: true, kind: "sample", request: samplingRequest(params) };
}

/**
 * Asks the client for its roots.
 *
 * @example
 * const roots = resolver("roots", () => listRoots());
 */
export function listRoots(): Question<"roots", ListRootsResult, ListRootsResult> {
  return { [QUESTION]: true, kind: "roots", request: rootsRequest() };
}
