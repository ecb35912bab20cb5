/**
 * Serving one request of a 2025 session through the same handlers, middleware and request-state
 * boundary as a modern request: the session stands in for the `_meta` envelope, the context
 * carries the back-channel, and the 2025 outbound rules apply.
 */
import type { AuthInfo, HttpRequestView } from "../../shared/dispatch.js";
import { NEVER_ABORTED } from "../../shared/lazy-signal.js";
import { ErrorCode, INPUT_REQUIRED_METHODS, isTaskMethod, McpError, MetaKey } from "../../types/core.js";
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
  JSONRPCRequest,
  JSONRPCResponse,
  LoggingLevel,
  ProgressToken,
  ResultObject,
  ServerCapabilities,
} from "../../types/index.js";
import { isRecord } from "../../types/record.js";
import type { Logger, RefusedRequest, ServerRequestContext, ServerTelemetry } from "../context.js";
import { streamAllows } from "../notify.js";
import type { PrincipalBinder } from "../state/principal.js";
import { BACK_CHANNEL, type BackChannel, type Outbox } from "./back-channel.js";
import type { ResolvedLegacyOptions } from "./options.js";
import {
  asksForInput,
  checkLegacyResult,
  finishLegacyResult,
  toLegacyWireError,
  withoutModernFields,
} from "./outbound.js";
import { fulfilThroughShim, type ShimRetry } from "./shim.js";
import { reportLegacyRefusal } from "./telemetry.js";

/**
 * What the legacy layer needs from the server it fronts (`Server` implements it).
 *
 * @example
 * const core: LegacyCore = server; // the low-level Server
 */
export interface LegacyCore {
  readonly logger: Logger;
  readonly serverInfo: Implementation;
  readonly capabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  /** The server's `telemetry` option: it hears of the session's refusals and own answers too. */
  readonly telemetry: ServerTelemetry | undefined;
  /** Who a caller is (the server's `principal` option): what an HTTP session is bound to. */
  readonly principal: PrincipalBinder;
  /** Whether a handler serves `method` (a refused request's method is named only if so). */
  hasHandler(method: string): boolean;
  /** Tells the telemetry of a request refused before the chain (never throws). */
  reportRefused(request: RefusedRequest): void;
  /** Handler lookup, params validation and the middleware chain, without the modern envelope rules. */
  runHandler(
    method: string,
    params: Record<string, unknown>,
    contextFor: (params: Record<string, unknown>) => ServerRequestContext,
    check?: (result: unknown) => ResultObject,
  ): Promise<ResultObject>;
}

/** What `initialize` established for the session, standing in for the per-request envelope. */
export interface SessionFacts {
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** Set by `logging/setLevel`; no logs before it. */
  readonly logLevel: LoggingLevel | undefined;
}

/** How one legacy request reaches its client. */
export interface LegacyIo {
  /**
   * Writes a message related to this request: notifications and server → client requests. Not
   * guarded by the request's cancellation (the session guards what must stop), so a question can
   * still be withdrawn with `notifications/cancelled` after its request was cancelled.
   */
  readonly send: (message: JSONRPCMessage) => Promise<void>;
  readonly signal: AbortSignal;
  readonly authInfo: AuthInfo | undefined;
  readonly http?: HttpRequestView | undefined;
  readonly transport?: "pipe" | undefined;
  /** Whether the client has sent `notifications/initialized`: until then the server asks it nothing. */
  readonly clientReady: () => boolean;
}

/**
 * The 2025 lifecycle: the server sends no requests but pings before `notifications/initialized`.
 * A call that needs the client's answer before then fails, telling the client why.
 */
function notYetInitialized(): McpError {
  return new McpError(
    ErrorCode.InvalidRequest,
    "Invalid Request: send notifications/initialized before a request the server must ask you about",
  );
}

/** Methods of the modern core that no 2025 revision has. */
const MODERN_ONLY: ReadonlySet<string> = new Set(["server/discover", "subscriptions/listen"]);

/**
 * The params a handler sees: the client's own, minus the 2026-only MRTR fields, with `_meta`
 * completed from the session (version, capabilities, identity) so every schema and helper reads
 * a 2025 request exactly like a modern one.
 */
export function legacyParams(params: unknown, facts: SessionFacts): Record<string, unknown> {
  const own = isRecord(params) ? params : {};
  const { inputResponses: _answers, requestState: _state, ...rest } = own;
  const meta: Record<string, unknown> = {
    ...(isRecord(own._meta) ? own._meta : {}),
    [MetaKey.ProtocolVersion]: facts.protocolVersion,
    [MetaKey.ClientCapabilities]: facts.clientCapabilities,
  };
  if (facts.clientInfo !== undefined) meta[MetaKey.ClientInfo] = facts.clientInfo;
  return { ...rest, _meta: meta };
}

/**
 * The context a request of a 2025 session is served with (by its handler, or by the telemetry
 * around what the session answers itself): the session's facts stand in for the envelope.
 *
 * @example
 * const ctx = legacyContext(core, request, legacyParams(request.params, facts), facts, io, io.send);
 */
export function legacyContext(
  core: LegacyCore,
  request: JSONRPCRequest,
  params: Record<string, unknown>,
  facts: SessionFacts,
  io: {
    readonly authInfo?: AuthInfo | undefined;
    readonly http?: HttpRequestView | undefined;
    readonly transport?: "pipe" | undefined;
    readonly signal?: AbortSignal | undefined;
  },
  send: (message: JSONRPCMessage) => Promise<void>,
  channel?: BackChannel,
): ServerRequestContext {
  const meta = params._meta;
  const ctx: ServerRequestContext & { [BACK_CHANNEL]: BackChannel | undefined } = {
    [BACK_CHANNEL]: channel,
    method: request.method,
    requestId: request.id,
    params,
    protocolVersion: facts.protocolVersion,
    clientCapabilities: facts.clientCapabilities,
    clientInfo: facts.clientInfo,
    logLevel: facts.logLevel,
    progressToken: isRecord(meta) ? (meta[MetaKey.ProgressToken] as ProgressToken | undefined) : undefined,
    authInfo: io.authInfo,
    http: io.http,
    transport: io.transport,
    signal: io.signal ?? NEVER_ABORTED,
    logger: core.logger,
    // The same rules as sendLog and the modern path: logs as logging/setLevel allows, and never a
    // request (the back-channel alone asks, with ids it tracks).
    notify: (notification) =>
      streamAllows(notification, facts.logLevel) ? send(notification) : Promise.resolve(),
  };
  return ctx;
}

/**
 * Serves one request of an initialized 2025 session. Resolves with the response, or `undefined`
 * when the request was cancelled (nothing more may be sent for it).
 */
export async function serveLegacyRequest(
  core: LegacyCore,
  options: ResolvedLegacyOptions,
  outbox: Outbox,
  facts: SessionFacts,
  request: JSONRPCRequest,
  io: LegacyIo,
): Promise<JSONRPCResponse | undefined> {
  const { id, method } = request;
  let finished = false;
  const send = (message: JSONRPCMessage) =>
    finished || io.signal.aborted ? Promise.resolve() : io.send(message);
  const channel: BackChannel = {
    protocolVersion: facts.protocolVersion,
    ask: (question, asked = {}) =>
      io.clientReady()
        ? outbox.ask(send, question, facts.protocolVersion, {
            // The request's cancellation always ends its questions: `send` stops writing for it,
            // so a question asked under another signal would wait out its timeout unsent.
            signal: asked.signal ?? io.signal,
            requestSignal: io.signal,
            timeoutMs: asked.timeoutMs ?? options.requestTimeoutMs,
            cancelVia: io.send,
          })
        : Promise.reject(notYetInitialized()),
  };
  // Set once the chain runs: what fails before it is a refusal, reported as such.
  let chained = false;
  const contextFor = (params: Record<string, unknown>): ServerRequestContext => {
    chained = true;
    return legacyContext(core, request, params, facts, io, send, channel);
  };
  // Checked as the handler returns it, inside the chain, so telemetry sees an invalid result fail.
  const shim = INPUT_REQUIRED_METHODS.has(method) ? options.shim : undefined;
  let checked: ResultObject | undefined;
  const check = (value: unknown) => {
    checked = checkLegacyResult(method, value, facts.protocolVersion, shim !== undefined);
    return checked;
  };
  try {
    // The Tasks extension's methods too: a 2025 session has no extensions, so none it could declare.
    if (MODERN_ONLY.has(method) || isTaskMethod(method)) {
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    const base = legacyParams(request.params, facts);
    const run = (retry: ShimRetry) => {
      const params = { ...base };
      if (retry.inputResponses !== undefined) params.inputResponses = retry.inputResponses;
      if (retry.requestState !== undefined) params.requestState = retry.requestState;
      return core.runHandler(method, params, contextFor, check);
    };
    let result = await run({});
    if (shim && asksForInput(result)) {
      result = await fulfilThroughShim(result, run, {
        method,
        clientCapabilities: facts.clientCapabilities,
        channel,
        signal: io.signal,
        ...shim,
      });
    }
    // Checked again only if a middleware (or the shim) answered with another object.
    const out =
      result === checked
        ? withoutModernFields(method, result)
        : finishLegacyResult(method, result, facts.protocolVersion);
    if (io.signal.aborted) return undefined;
    return { jsonrpc: "2.0", id, result: out };
  } catch (error) {
    if (io.signal.aborted) return undefined;
    const wire = toLegacyWireError(method, error, core.logger);
    if (!chained) reportLegacyRefusal(core, request, wire, io, facts.protocolVersion);
    return { jsonrpc: "2.0", id, error: wire };
  } finally {
    finished = true;
  }
}
