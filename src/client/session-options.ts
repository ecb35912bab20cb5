/** Options of `ClientSession` and of its requests. */
import type { TransportNetwork } from "../shared/transport.js";
import type {
  ClientCapabilities,
  Implementation,
  InputResponses,
  JSONRPCNotification,
  LoggingLevel,
  LoggingMessageNotificationParams,
  ProgressNotificationParams,
  RequestId,
  ResultObject,
} from "../types/index.js";

/** Options of `new ClientSession(transport, options)` and `ClientSession.connect`. */
export interface ClientSessionOptions {
  clientInfo?: Implementation;
  /** Declared on every request. Default `{}` (no optional capabilities). */
  capabilities?: ClientCapabilities;
  /** Sent in every envelope. Default 2026-07-28. */
  protocolVersion?: string;
  /** Opts every request into log messages at or above this level. */
  logLevel?: LoggingLevel;
  /** Default per-request timeout in milliseconds (default 60 000). */
  timeoutMs?: number;
  /**
   * Client-side warnings (default stderr): a listed tool dropped for invalid `x-mcp-header`, a
   * listener that threw, what the transport reports through `onerror`.
   */
  onWarning?: (message: string) => void;
  /** Log messages of requests that set no `onLog` of their own. */
  onLog?: (params: LoggingMessageNotificationParams) => void;
  /**
   * Extra `_meta` keys for every request, computed as it goes out (e.g. the active span's
   * `traceparent` for OpenTelemetry); a request's own `meta` wins over it, the envelope over both.
   */
  requestMeta?: (method: string) => Record<string, unknown> | undefined;
  /**
   * Observes every request (each round of a multi-round call is one): called as it goes out, its
   * result adds `_meta` keys and is told how the request ended. This is where telemetry plugs in
   * (`clientTelemetry()` from `roundtrip-mcp/otel`). One that throws fails no request: it is warned of.
   */
  instrument?: RequestInstrument;
}

/**
 * Called for every request as it goes out, with its method, its params (before the envelope), the
 * JSON-RPC id it is sent with and what is known of its session; `undefined` to leave this one alone.
 *
 * @example
 * const instrument: RequestInstrument = (method, _params, id, session) => {
 *   const started = performance.now();
 *   const via = session.network?.transport ?? "in process";
 *   return { end: () => console.debug(`${method} #${id} (${via}): ${performance.now() - started} ms`) };
 * };
 */
export type RequestInstrument = (
  method: string,
  params: Readonly<Record<string, unknown>>,
  id: RequestId,
  session: RequestSession,
) => RequestObservation | undefined;

/**
 * What an instrument knows of the session a request goes out on.
 *
 * @example
 * const session: RequestSession = { protocolVersion: "2026-07-28", network: { transport: "pipe" } };
 */
export interface RequestSession {
  /** The protocol version the session speaks (the negotiated one, once negotiated). */
  readonly protocolVersion: string;
  /** Where the messages travel: a pipe to a stdio server, TCP for HTTP; absent in process. */
  readonly network?: TransportNetwork;
}

/**
 * One observed request.
 *
 * @example
 * const observation: RequestObservation = { meta: { traceparent }, end: (outcome) => span.end() };
 */
export interface RequestObservation {
  /** `_meta` keys for this request (a trace context); the call's own `meta` and the envelope win. */
  readonly meta?: Record<string, unknown>;
  /** Called once: with the checked result, or with the error the request failed with. */
  end(outcome: { readonly result: ResultObject } | { readonly error: unknown }): void;
}

/** Options of any request. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Restart `timeoutMs` whenever the request reports progress (needs `onProgress`), up to
   * `maxTimeoutMs` in all (default ten times `timeoutMs`): a long job that keeps reporting is not cut
   * off, one that goes quiet still is.
   */
  resetTimeoutOnProgress?: boolean;
  /** With `resetTimeoutOnProgress`: the most the request may take, progress or not. */
  maxTimeoutMs?: number;
  /** Receives this request's progress; setting it sends a `progressToken`. */
  onProgress?: (params: ProgressNotificationParams) => void;
  /**
   * Receives this request's log messages (the request must ask for them: `logLevel`). On stdio a
   * message names no request: it is this one's while no other request in flight asked for logs,
   * and the session's `onLog` gets it otherwise.
   */
  onLog?: (params: LoggingMessageNotificationParams) => void;
  /** Any other notification sent on this request's stream (e.g. listen notifications). */
  onNotification?: (notification: JSONRPCNotification) => void;
  /** Extra `_meta` keys (e.g. `traceparent`); the envelope keys always win. */
  meta?: Record<string, unknown>;
}

/** Options of the three methods that may answer `input_required`. */
export interface InputCallOptions extends CallOptions {
  /** Answers to the previous round's `inputRequests`, under the same keys. */
  inputResponses?: InputResponses;
  /** The previous round's `requestState`, echoed byte-exact. */
  requestState?: string;
  /** Return an `InputRequiredResult` instead of throwing `InputRequiredError`. */
  allowInputRequired?: boolean;
}

/** Options of a call that opted into the manual loop: its result type includes `InputRequiredResult`. */
export type Opted = InputCallOptions & { allowInputRequired: true };
/** Options of a call that did not: `input_required` throws `InputRequiredError`. */
export type NotOpted = InputCallOptions & { allowInputRequired?: false };
/** Options of a `tools/call` that did not opt into tasks. */
export type NoTask = { allowTask?: false };

/**
 * A request's params with the retry's `inputResponses` and `requestState` from `options`, if given.
 *
 * @example
 * const params = withInput({ name: "provision", arguments: args }, { requestState });
 */
export function withInput(
  params: Record<string, unknown>,
  options: InputCallOptions,
): Record<string, unknown> {
  if (options.inputResponses !== undefined) params.inputResponses = options.inputResponses;
  if (options.requestState !== undefined) params.requestState = options.requestState;
  return params;
}

/**
 * Options of `tools/call`, the one request a server may answer with a task (when the session
 * declares the Tasks extension). A task handle is returned only with `allowTask: true`, so code
 * written before tasks keeps its result types; without it a handle raises `TaskCreatedError`.
 *
 * @example
 * const first = await session.callTool("export", args, { allowInputRequired: true, allowTask: true });
 */
export interface ToolCallOptions extends InputCallOptions {
  /** Return a `CreateTaskResult` instead of throwing `TaskCreatedError`. */
  allowTask?: boolean;
}
