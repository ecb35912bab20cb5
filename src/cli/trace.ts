/**
 * `--trace`: one stderr line per round saying what was asked (method and key), one per answer
 * saying what was answered (the action or the kind, never a value), and the size of the
 * `requestState` in bytes — never its content, which is the server's opaque (often sealed) token.
 */
import type { ClientRound } from "../client/options.js";
import type {
  CreateMessageResult,
  DetailedTask,
  ElicitResult,
  InputRequest,
  ListRootsResult,
} from "../types/index.js";
import { sanitize } from "./terminal.js";

/**
 * What an input request is, in a few words (method, and the elicitation mode).
 *
 * @example
 * describeRequest({ method: "elicitation/create", params: { mode: "url", message, url } }); // "elicitation/create url"
 */
export function describeRequest(request: InputRequest): string {
  if (request.method === "elicitation/create") {
    return `elicitation/create ${request.params.mode === "url" ? "url" : "form"}`;
  }
  return request.method;
}

/** The size of a requestState in bytes (UTF-8), the only thing ever said about it. */
export function stateSize(state: string | undefined): string {
  return state === undefined ? "no requestState" : `requestState ${Buffer.byteLength(state, "utf8")} bytes`;
}

/**
 * An answer, summarized without its values.
 *
 * @example
 * summarizeAnswer({ action: "accept", content: { password: "hunter2" } }); // "accept (fields: password)"
 */
export function summarizeAnswer(
  method: InputRequest["method"],
  answer: ElicitResult | CreateMessageResult | ListRootsResult,
): string {
  if (method === "elicitation/create") {
    const result = answer as ElicitResult;
    if (result.action !== "accept") return result.action;
    const fields = Object.keys(result.content ?? {});
    return fields.length > 0
      ? `accept (fields: ${fields.map((f) => sanitize(f, true)).join(", ")})`
      : "accept";
  }
  if (method === "sampling/createMessage") {
    const result = answer as CreateMessageResult;
    const blocks = Array.isArray(result.content) ? result.content : [result.content];
    return `${result.role} message (${blocks.map((block) => block.type).join(", ")})`;
  }
  const roots = (answer as ListRootsResult).roots;
  return `${roots.length} root${roots.length === 1 ? "" : "s"}`;
}

/**
 * Writes the trace lines (a no-op when tracing is off).
 *
 * @example
 * const tracer = new Tracer((line) => ui.line(line), options.trace);
 * Client.connect(target, { onRound: (round) => tracer.round(round) });
 */
export class Tracer {
  readonly enabled: boolean;
  readonly #write: (line: string) => void;
  #method = "";
  #rounds = 0;
  /** The keys a task has asked so far: the client answers each once over the task's lifetime. */
  readonly #taskAsked = new Set<string>();

  constructor(write: (line: string) => void, enabled: boolean) {
    this.#write = write;
    this.enabled = enabled;
  }

  /** The first leg of a request is about to be sent. */
  start(method: string, what: string): void {
    this.#method = method;
    this.#rounds = 0;
    this.#taskAsked.clear();
    if (this.enabled) this.#write(`[trace] ${method} ${sanitize(what, true)}: sending`);
  }

  /** The server answered input_required: one line for the round, one per question. */
  round(round: ClientRound): void {
    this.#method = round.method;
    this.#rounds = round.round;
    if (!this.enabled) return;
    const requests = Object.entries(round.result.inputRequests ?? {});
    const asks = round.stateOnly
      ? "state only (retrying)"
      : `${requests.length} question${requests.length === 1 ? "" : "s"}`;
    this.#write(
      `[trace] ${round.method} round ${round.round}/${round.maxRounds}: input_required, ${asks}, ${stateSize(round.result.requestState)}`,
    );
    for (const [key, request] of requests) {
      this.#write(`[trace]   asked ${sanitize(key, true)}: ${describeRequest(request)}`);
    }
  }

  /**
   * A task's status as polled. A task asks through `input_required` statuses, not results, so its
   * rounds never reach `round`: one that asks keys not asked before is a round, counted and traced
   * the same way (polls that repeat the same questions are not).
   */
  task(task: DetailedTask): void {
    if (task.status !== "input_required") return;
    const fresh = Object.entries(task.inputRequests ?? {}).filter(([key]) => !this.#taskAsked.has(key));
    if (fresh.length === 0) return;
    for (const [key] of fresh) this.#taskAsked.add(key);
    this.#rounds++;
    if (!this.enabled) return;
    this.#write(
      `[trace] task ${sanitize(task.taskId, true)} round ${this.#rounds}: input_required, ` +
        `${fresh.length} question${fresh.length === 1 ? "" : "s"}`,
    );
    for (const [key, request] of fresh) {
      this.#write(`[trace]   asked ${sanitize(key, true)}: ${describeRequest(request)}`);
    }
  }

  /** One question was answered. */
  answered(key: string, method: InputRequest["method"], summary: string): void {
    if (this.enabled) this.#write(`[trace]   answered ${sanitize(key, true)} (${method}): ${summary}`);
  }

  /** The request ended with a complete result. */
  done(): void {
    if (!this.enabled) return;
    const rounds = this.#rounds;
    this.#write(`[trace] ${this.#method} complete after ${rounds} input round${rounds === 1 ? "" : "s"}`);
  }
}
