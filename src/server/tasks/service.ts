import {
  declaresTasks,
  ErrorCode,
  isInputRequiredResult,
  McpError,
  MODERN_PROTOCOL_VERSIONS,
  TASKS_REQUIRED_CAPABILITIES,
  TaskMethod,
  validInputResponse,
} from "../../types/core.js";
import type { CreateTaskResult, InputResponse, InputResponses, ResultObject } from "../../types/index.js";
import { deriveContext, type ServerRequestContext } from "../context.js";
import type { SharedTaskChange } from "../events.js";
import { checkResult, finishResult, type OutboundRules } from "../outbound.js";
import type { Server } from "../server.js";
import { authenticatedPrincipal } from "../state/principal.js";
import { toWireError } from "../wire-error.js";
import { type TaskCaller, taskCallerOf, taskOwnerOf } from "./access.js";
import { TaskControl } from "./control.js";
import { checkCreateTaskResult } from "./outbound.js";
import type { TaskRecord } from "./record.js";
import type { TaskRunner, TaskSupport, ToolEntry } from "./runner.js";
import { isSharedTaskChange, SharedTaskDirectory } from "./shared.js";
import { type TaskOptions, TaskStore } from "./store.js";

/** First pause before re-entering a handler whose round carried only `requestState`, then doubled. */
const STATE_ONLY_PAUSE_MS = 50;
const STATE_ONLY_PAUSE_CAP_MS = 1_000;

type Outcome = { ok: true; value: ResultObject } | { ok: false; error: unknown };

function settle(promise: Promise<ResultObject>): Promise<Outcome> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Whether this request may deal in tasks: it declared the extension, on the 2026-07-28 wire (a
 * 2025 session has no such extension, whatever its initialize listed).
 */
function tasksDeclared(ctx: ServerRequestContext): boolean {
  return MODERN_PROTOCOL_VERSIONS.includes(ctx.protocolVersion) && declaresTasks(ctx.clientCapabilities);
}

function taskIdOf(params: Readonly<Record<string, unknown>>): string {
  const taskId = params.taskId;
  if (typeof taskId !== "string" || taskId === "") {
    throw new McpError(ErrorCode.InvalidParams, "Invalid params: taskId must be a non-empty string");
  }
  return taskId;
}

/** The retry's params: the original call with this round's answers and the handler's plaintext state. */
function reentryParams(
  params: Readonly<Record<string, unknown>>,
  answers: InputResponses | undefined,
  requestState: string | undefined,
): Record<string, unknown> {
  const next: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (key !== "inputResponses" && key !== "requestState") next[key] = value;
  }
  if (answers !== undefined) next.inputResponses = answers;
  if (requestState !== undefined) next.requestState = requestState;
  return next;
}

/**
 * The Tasks extension (SEP-2663) for an MCPServer's task-capable tools. A call from a client that
 * declared the extension starts as usual; if it has not finished, failed or asked a question
 * within `immediateResultMs`, it becomes a task: the client gets a `CreateTaskResult` and the
 * handler keeps running under the task's signal. An `InputRequiredResult` it returns later parks
 * the task in `input_required`, and the answers from `tasks/update` re-enter it exactly as an MRTR
 * retry would, its `requestState` kept server-side in plaintext. So one handler serves both.
 */
export class TaskService implements TaskRunner {
  readonly store: TaskStore;
  #server: Server | undefined;

  readonly #shared: boolean;
  /** The fleet's tasks as the bus told them (this instance's own included), with `shareOverEvents`. */
  readonly #fleet = new SharedTaskDirectory();
  #announce: ((change: SharedTaskChange) => void) | undefined;

  constructor(options: TaskOptions = {}) {
    this.#shared = options.shareOverEvents === true;
    this.store = new TaskStore(
      options,
      (record) => this.#changed(record),
      (record) => {
        // Siblings stop following a task this instance no longer holds.
        if (this.#announce) this.#share(this.#announce, record, Date.now());
      },
    );
  }

  /** Tells listen streams of a change: this instance's, or the fleet's over the events bus. */
  #changed(record: TaskRecord): void {
    if (this.#announce === undefined) {
      this.#server?.notifyTaskChanged(record.taskId, () => record.snapshot());
      return;
    }
    this.#share(this.#announce, record, record.createdAt + record.ttlMs);
  }

  #share(announce: (change: SharedTaskChange) => void, record: TaskRecord, expiresAt: number): void {
    const change: SharedTaskChange = { taskId: record.taskId, expiresAt, task: record.snapshot() };
    announce({
      ...change,
      ...(record.principal === undefined ? {} : { principal: record.principal }),
      ...(record.requiredScopes.length === 0 ? {} : { requiredScopes: record.requiredScopes }),
    });
  }

  /** A change from the bus: passed on to this instance's streams unless malformed or stale. */
  #received(change: unknown): void {
    if (!isSharedTaskChange(change) || !this.#fleet.record(change)) return;
    this.#server?.notifyTaskChanged(change.taskId, () => change.task);
  }

  install(server: Server): void {
    if (this.#server === server) return;
    if (this.#server) throw new Error("This task runner already serves another server; make one per server");
    this.#server = server;
    for (const [method, handler] of Object.entries(this.#handlers()))
      server.setRequestHandler(method, handler);
    if (this.#shared) this.#announce = server.shareTasks((change) => this.#received(change));
    // A sibling's task, shared over the events bus, may be followed here too.
    server.serveTaskNotifications((taskId, ctx) => {
      const caller = this.#caller(ctx);
      return this.store.owns(taskId, caller) || this.#fleet.visible(taskId, caller);
    });
    server.acceptTaskResults(checkCreateTaskResult);
  }

  async call(support: TaskSupport, ctx: ServerRequestContext, entry: ToolEntry): Promise<ResultObject> {
    if (!tasksDeclared(ctx)) {
      if (support === "optional") return entry(ctx.params, ctx);
      throw new McpError(
        ErrorCode.MissingRequiredClientCapability,
        `Tool ${String(ctx.params.name)} runs only as a task: declare the io.modelcontextprotocol/tasks extension`,
        { requiredCapabilities: TASKS_REQUIRED_CAPABILITIES },
      );
    }
    // Before the work starts: a binder that throws then fails the call with nothing left running.
    const principal = this.#principal(ctx);
    const controller = new AbortController();
    const control = new TaskControl();
    // Until the call becomes a task, cancelling the request cancels the work; afterwards only
    // tasks/cancel and expiry do, since the request that started it is over.
    const request = ctx.signal;
    const forward = () => controller.abort();
    if (request.aborted) controller.abort();
    else request.addEventListener("abort", forward, { once: true });
    const taskCtx = deriveContext(ctx, Object.assign({ signal: controller.signal }, control.carriedBy()));
    const first = settle(entry(ctx.params, taskCtx));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const window = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, this.store.immediateResultMs, undefined);
    });
    const early = await Promise.race([first, window]);
    clearTimeout(timer);
    // Cancelled before it became a task: no client could ever learn its id, so none is made (the
    // work has its signal; the answer goes nowhere).
    if (early === undefined && controller.signal.aborted) {
      throw new McpError(ErrorCode.InternalError, "The request was cancelled before it became a task");
    }
    // A full store answers inline, the request's cancel still reaching the work: legal for a
    // declaring client, and better than refusing work that has already started.
    const inline = early ?? (this.store.makeRoom(principal) ? undefined : await first);
    request.removeEventListener("abort", forward);
    if (inline !== undefined) {
      if (inline.ok) return inline.value;
      throw inline.error;
    }
    const record = this.store.create(taskOwnerOf(ctx, principal), controller);
    // Siblings learn of it now, so a listen stream that lands on one can follow it from the start.
    if (this.#announce !== undefined) this.#changed(record);
    control.attach(record);
    void this.#drive(record, first, taskCtx, entry);
    const created: CreateTaskResult = { resultType: "task", ...record.snapshot() };
    return created as unknown as ResultObject;
  }

  close(): void {
    this.store.clear();
  }

  #handlers(): Record<string, (ctx: ServerRequestContext, params: Record<string, unknown>) => unknown> {
    return {
      [TaskMethod.Get]: (ctx, params) => this.#record(ctx, params).snapshot(),
      [TaskMethod.Update]: (ctx, params) => {
        const record = this.#record(ctx, params);
        record.answer(this.#outstandingAnswers(record, params.inputResponses));
        return {};
      },
      [TaskMethod.Cancel]: (ctx, params) => {
        const record = this.#record(ctx, params);
        record.cancel("Cancelled by the client");
        return {};
      },
    };
  }

  #record(ctx: ServerRequestContext, params: Readonly<Record<string, unknown>>): TaskRecord {
    if (!tasksDeclared(ctx)) {
      throw new McpError(
        ErrorCode.MissingRequiredClientCapability,
        `${ctx.method} needs the io.modelcontextprotocol/tasks extension declared on the request`,
        { requiredCapabilities: TASKS_REQUIRED_CAPABILITIES },
      );
    }
    return this.store.get(taskIdOf(params), this.#caller(ctx));
  }

  #caller(ctx: ServerRequestContext): TaskCaller {
    return taskCallerOf(ctx, this.#principal(ctx));
  }

  /** Who the caller is, as the server it serves says (see `ServerOptions.principal`). */
  #principal(ctx: ServerRequestContext): string | undefined {
    return (this.#server?.principal ?? authenticatedPrincipal)(ctx);
  }

  /**
   * The answers that count: keys not outstanding are ignored unread (the spec's SHOULD), and an
   * answer to an outstanding key must be a well-formed response, or nothing is applied.
   */
  #outstandingAnswers(record: TaskRecord, inputResponses: unknown): Record<string, InputResponse> {
    if (typeof inputResponses !== "object" || inputResponses === null || Array.isArray(inputResponses)) {
      throw new McpError(ErrorCode.InvalidParams, "Invalid params: inputResponses must be an object");
    }
    const answers: Record<string, InputResponse> = {};
    for (const [key, response] of Object.entries(inputResponses)) {
      if (!record.isOutstanding(key)) continue;
      if (!validInputResponse(response)) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Invalid params: inputResponses.${key} is not a valid response`,
        );
      }
      answers[key] = response as InputResponse;
    }
    return answers;
  }

  /** Runs the task to its end: each `InputRequiredResult` becomes a round of questions, then a re-entry. */
  async #drive(
    record: TaskRecord,
    first: Promise<Outcome>,
    ctx: ServerRequestContext,
    entry: ToolEntry,
  ): Promise<void> {
    let outcome = await first;
    let stateOnlyPause = STATE_ONLY_PAUSE_MS;
    for (;;) {
      if (record.terminal) return;
      if (!outcome.ok) {
        this.#fail(record, outcome.error);
        return;
      }
      const result = outcome.value;
      if (!isInputRequiredResult(result)) {
        try {
          record.complete(this.#finish(result, ctx));
        } catch (error) {
          this.#fail(record, error);
        }
        return;
      }
      try {
        // The rules the same round answers inline: one asking nothing and keeping no state, or with
        // a malformed inputRequests, fails the task rather than re-entering until the TTL.
        checkResult("tools/call", result, ctx.clientCapabilities, this.#rules());
      } catch (error) {
        this.#fail(record, error);
        return;
      }
      const requests = result.inputRequests;
      let answers: InputResponses | undefined;
      if (requests !== undefined && Object.keys(requests).length > 0) {
        answers = await record.ask(requests);
        if (answers === undefined) return;
        stateOnlyPause = STATE_ONLY_PAUSE_MS;
      } else {
        // A state-only round means "not yet": the server paces itself as a client would.
        await pause(stateOnlyPause, record.controller.signal);
        stateOnlyPause = Math.min(stateOnlyPause * 2, STATE_ONLY_PAUSE_CAP_MS);
        if (record.terminal) return;
      }
      const params = reentryParams(ctx.params, answers, result.requestState);
      outcome = await settle(entry(params, deriveContext(ctx, { params })));
    }
  }

  /** The outbound rules of a `tools/call` result: checked and stamped as the wire would carry it. */
  #finish(result: ResultObject, ctx: ServerRequestContext): ResultObject {
    return finishResult("tools/call", result, ctx.clientCapabilities, this.#rules());
  }

  #rules(): OutboundRules {
    return { serverInfo: (this.#server as Server).serverInfo, cacheHints: {} };
  }

  #fail(record: TaskRecord, error: unknown): void {
    const wire = toWireError(`task ${record.taskId}`, error, (this.#server as Server).logger);
    record.fail(wire, `Tool execution failed: ${wire.message}`);
  }
}
