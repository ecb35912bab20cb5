import type { HttpRequestView } from "../../shared/dispatch.js";
import type {
  ClientCapabilities,
  Implementation,
  InputRequest,
  InputRequiredResult,
  InputResponses,
  LoggingLevel,
  ReadResourceResult,
  RequestId,
} from "../../types/index.js";
import { missingCapabilityFor } from "../capability-gate.js";
import type { AuthInfo, ServerRequestContext } from "../context.js";
import { sendLog, sendProgress } from "../notify.js";
import { type TaskHandle, taskHandleOf } from "../tasks/handle.js";

/** Reads a resource as a nested, first-round request (no outer answers, no outer state). */
export type NestedResourceReader = (
  uri: string,
  ctx: ServerRequestContext,
) => Promise<ReadResourceResult | InputRequiredResult>;

/**
 * What every MCPServer handler receives: the round's answers and state, who is asking, and the
 * request-scoped channels (progress, logs, cancellation).
 *
 * @example
 * mcp.tool("slow", { description: "Takes a while" }, async (_args, ctx) => {
 *   await ctx.progress(1, 2);
 *   return ctx.inputResponses ? "second round" : "first round";
 * });
 */
export class Context {
  /** The underlying request context (for middleware-level needs). */
  readonly request: ServerRequestContext;
  readonly #readNested: NestedResourceReader;

  constructor(request: ServerRequestContext, readNested: NestedResourceReader) {
    this.request = request;
    this.#readNested = readNested;
  }

  /** This round's answers, keyed as the previous round asked; undefined on round one. */
  get inputResponses(): InputResponses | undefined {
    return this.request.params.inputResponses as InputResponses | undefined;
  }

  /** The plaintext state this handler minted last round (unsealed by the SDK); undefined on round one. */
  get requestState(): string | undefined {
    const state = this.request.params.requestState;
    return typeof state === "string" ? state : undefined;
  }

  /** The JSON-RPC id of the request being handled. */
  get requestId(): RequestId {
    return this.request.requestId;
  }

  /** The protocol version the request was made at. */
  get protocolVersion(): string {
    return this.request.protocolVersion;
  }

  /** The capabilities the client declared on this request. */
  get clientCapabilities(): ClientCapabilities {
    return this.request.clientCapabilities;
  }

  /** The client's name and version, when the request carried them. */
  get clientInfo(): Implementation | undefined {
    return this.request.clientInfo;
  }

  /** The verified token of the request's caller; undefined when the request was not authenticated. */
  get authInfo(): AuthInfo | undefined {
    return this.request.authInfo;
  }

  /** The HTTP request that carried this one (headers, the web `Request`); undefined off HTTP. */
  get http(): HttpRequestView | undefined {
    return this.request.http;
  }

  /**
   * Fires when the client cancels the request or disconnects; for a call that became a task, when
   * the client cancels the task (`tasks/cancel`) or the task expires.
   */
  get signal(): AbortSignal {
    return this.request.signal;
  }

  /**
   * The task this call may run as: set for a task-capable tool called by a client that declared the
   * Tasks extension (its `taskId` appears once the call outlasts `immediateResultMs`).
   */
  get task(): TaskHandle | undefined {
    return taskHandleOf(this.request);
  }

  /**
   * Whether this request's declared capabilities cover an embedded request: ask it only then, or
   * the call fails with -32021. A bare `elicitation: {}` counts as form-only, per the spec.
   *
   * @example
   * if (ctx.canAsk(ASK_ROOTS)) inputRequests.roots = ASK_ROOTS;
   */
  canAsk(request: InputRequest): boolean {
    return missingCapabilityFor(request, this.request.clientCapabilities) === undefined;
  }

  /** Reports progress (sent only when the request carried a progress token). */
  progress(progress: number, total?: number, message?: string): Promise<void> {
    return sendProgress(this.request, progress, total, message);
  }

  /** Sends a log message (only when the request asked for logs at or below `level`). */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return sendLog(this.request, level, data, logger);
  }

  /** `log("debug", data)`. */
  debug(data: unknown): Promise<void> {
    return this.log("debug", data);
  }

  /** `log("info", data)`. */
  info(data: unknown): Promise<void> {
    return this.log("info", data);
  }

  /** `log("warning", data)`. */
  warning(data: unknown): Promise<void> {
    return this.log("warning", data);
  }

  /** `log("error", data)`. */
  error(data: unknown): Promise<void> {
    return this.log("error", data);
  }

  /**
   * Reads another resource of this server. The target runs as a first-round request: it never
   * sees this request's answers or state. Throws when it answers `input_required`; forward such
   * results with `mcp.readResource(uri, ctx)` instead.
   */
  async readResource(uri: string): Promise<ReadResourceResult> {
    const result = await this.#readNested(uri, this.request);
    if (result.resultType === "input_required") {
      throw new Error(
        `Resource ${uri} answered input_required; ctx.readResource only reads content. ` +
          "Use mcp.readResource(uri, ctx) to get the InputRequiredResult and forward it.",
      );
    }
    return result as ReadResourceResult;
  }
}
