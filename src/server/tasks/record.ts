import type {
  DetailedTask,
  ErrorObject,
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
  TaskStatus,
} from "../../types/index.js";
import type { TaskOwner } from "./access.js";

/** One round of questions a task is parked on: wire key → the handler's own key and request. */
interface PendingRound {
  readonly asked: Map<string, { readonly key: string; readonly request: InputRequest }>;
  /** Answers so far, under the handler's keys. */
  readonly answers: InputResponses;
  /** Called with the answers, or with undefined when the task ends first (cancelled, expired). */
  readonly resume: (answers: InputResponses | undefined) => void;
}

/**
 * One task's state: status, payload and the round of questions it waits on. The server that
 * created it is the only one that holds it, which is why `Mcp-Name` carries the task id on HTTP.
 */
export class TaskRecord {
  readonly taskId: string;
  readonly createdAt: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** Who created it (the authenticated principal), or undefined on an unauthenticated transport. */
  readonly principal: string | undefined;
  /** The scopes the HTTP endpoint required of the creating call: a caller must hold them all. */
  readonly requiredScopes: readonly string[];
  /** Aborted by `tasks/cancel` and by expiry: the handler's `ctx.signal`. */
  readonly controller: AbortController;
  #status: TaskStatus = "working";
  #statusMessage: string | undefined;
  #lastUpdatedAt: number;
  #result: Record<string, unknown> | undefined;
  #error: ErrorObject | undefined;
  #pending: PendingRound | undefined;
  /** Every wire key ever issued: the spec wants keys unique over the task's lifetime. */
  readonly #issued = new Set<string>();
  readonly #onChange: (record: TaskRecord) => void;

  constructor(init: {
    controller: AbortController;
    taskId: string;
    now: number;
    ttlMs: number;
    pollIntervalMs: number;
    owner: TaskOwner;
    onChange: (record: TaskRecord) => void;
  }) {
    this.controller = init.controller;
    this.taskId = init.taskId;
    this.createdAt = init.now;
    this.#lastUpdatedAt = init.now;
    this.ttlMs = init.ttlMs;
    this.pollIntervalMs = init.pollIntervalMs;
    this.principal = init.owner.principal;
    this.requiredScopes = init.owner.requiredScopes;
    this.#onChange = init.onChange;
  }

  get status(): TaskStatus {
    return this.#status;
  }

  get terminal(): boolean {
    return this.#status === "completed" || this.#status === "failed" || this.#status === "cancelled";
  }

  /** The task as `tasks/get` shows it (and `notifications/tasks` carries it). */
  snapshot(): DetailedTask {
    const task: DetailedTask = {
      taskId: this.taskId,
      status: this.#status,
      createdAt: new Date(this.createdAt).toISOString(),
      lastUpdatedAt: new Date(this.#lastUpdatedAt).toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
    if (this.#statusMessage !== undefined) task.statusMessage = this.#statusMessage;
    if (this.#status === "input_required" && this.#pending) {
      const inputRequests: InputRequests = {};
      for (const [wireKey, { key, request }] of this.#pending.asked) {
        if (!Object.hasOwn(this.#pending.answers, key)) inputRequests[wireKey] = request;
      }
      task.inputRequests = inputRequests;
    }
    if (this.#result !== undefined) task.result = this.#result;
    if (this.#error !== undefined) task.error = this.#error;
    return task;
  }

  /** Sets the human-readable status line; ignored once terminal. */
  setStatusMessage(message: string | undefined): void {
    if (this.terminal) return;
    this.#statusMessage = message;
    this.#touch();
  }

  /**
   * Parks the task on a round of questions and resolves with the answers, under the handler's own
   * keys, once every one of them has arrived. A key the handler already used in an earlier round
   * goes out under a fresh wire key, so a late answer to the old question can never be taken for
   * the new one. Resolves with undefined if the task ends first.
   */
  ask(requests: InputRequests): Promise<InputResponses | undefined> {
    return new Promise((resolve) => {
      const asked = new Map<string, { key: string; request: InputRequest }>();
      for (const [key, request] of Object.entries(requests)) {
        let wireKey = key;
        for (let n = 2; this.#issued.has(wireKey); n++) wireKey = `${key}#${n}`;
        this.#issued.add(wireKey);
        asked.set(wireKey, { key, request });
      }
      this.#pending = { asked, answers: {}, resume: resolve };
      this.#status = "input_required";
      this.#touch();
    });
  }

  /** True when `wireKey` names a question still waiting for its answer. */
  isOutstanding(wireKey: string): boolean {
    const asked = this.#pending?.asked.get(wireKey);
    return asked !== undefined && !Object.hasOwn(this.#pending?.answers ?? {}, asked.key);
  }

  /**
   * Takes the answers to outstanding questions and ignores the rest (unknown, already answered or
   * superseded keys, as the spec asks). Resumes the handler once the round is complete.
   */
  answer(responses: Record<string, InputResponse>): void {
    const pending = this.#pending;
    if (!pending || this.#status !== "input_required") return;
    let changed = false;
    for (const [wireKey, response] of Object.entries(responses)) {
      const asked = pending.asked.get(wireKey);
      if (!asked || Object.hasOwn(pending.answers, asked.key)) continue;
      pending.answers[asked.key] = response;
      changed = true;
    }
    if (!changed) return;
    if (Object.keys(pending.answers).length < pending.asked.size) {
      this.#touch();
      return;
    }
    this.#pending = undefined;
    this.#status = "working";
    this.#touch();
    pending.resume(pending.answers);
  }

  complete(result: Record<string, unknown>): void {
    this.#finish("completed", () => {
      this.#result = result;
    });
  }

  fail(error: ErrorObject, statusMessage: string): void {
    this.#finish("failed", () => {
      this.#error = error;
      this.#statusMessage = statusMessage;
    });
  }

  /** Sticky: whatever the handler does afterwards, the task stays cancelled. */
  cancel(statusMessage: string): void {
    this.#finish("cancelled", () => {
      this.#statusMessage = statusMessage;
    });
    this.controller.abort();
  }

  #finish(status: TaskStatus, apply: () => void): void {
    if (this.terminal) return;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#status = status;
    apply();
    this.#touch();
    pending?.resume(undefined);
  }

  #touch(): void {
    this.#lastUpdatedAt = Math.max(Date.now(), this.#lastUpdatedAt);
    this.#onChange(this);
  }
}
