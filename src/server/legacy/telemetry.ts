/**
 * What the server's `telemetry` hears of a 2025 session: its refusals before the middleware chain,
 * and the requests the session answers itself (`initialize`, `ping`, `logging/setLevel`,
 * `resources/subscribe`), which never reach the chain.
 */
import { messageOf } from "../../shared/errors.js";
import { ErrorCode, McpError } from "../../types/core.js";
import type { ErrorObject, JSONRPCRequest, ResultObject } from "../../types/index.js";
import { isRecord } from "../../types/record.js";
import type { ServerRequestContext } from "../context.js";
import type { LegacyCore, SessionFacts } from "./serve.js";
import type { LegacyRequestContext } from "./session.js";

/** The signal of a request whose transport gives none: nothing can cancel it. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Tells the server's telemetry of a request the session refused before the middleware chain.
 *
 * @example
 * reportLegacyRefusal(core, request, { code: -32600, message: "Session closed" }, arrival, "2025-11-25");
 */
export function reportLegacyRefusal(
  core: LegacyCore,
  request: JSONRPCRequest,
  error: ErrorObject,
  arrival: Pick<LegacyRequestContext, "http">,
  protocolVersion: string | undefined,
): void {
  if (core.telemetry?.refused === undefined) return;
  core.reportRefused({
    method: request.method,
    served: core.hasHandler(request.method) || SESSION_METHODS.has(request.method),
    requestId: request.id,
    params: isRecord(request.params) ? request.params : {},
    error,
    http: arrival.http,
    protocolVersion,
  });
}

/** The methods a 2025 session answers itself. */
export const SESSION_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/**
 * Runs a request the session answers itself inside the server's telemetry, as the chain would
 * run a handler: `answer` is the handler. Without telemetry it is simply called. A telemetry
 * middleware that fails with anything but an `McpError` is logged and answered -32603.
 *
 * @example
 * const result = await answerInTelemetry(core, request, arrival, facts, "2025-11-25", () => ({}));
 */
export async function answerInTelemetry(
  core: LegacyCore,
  request: JSONRPCRequest,
  arrival: LegacyRequestContext,
  facts: SessionFacts | undefined,
  protocolVersion: string,
  answer: () => ResultObject,
): Promise<ResultObject> {
  const telemetry = core.telemetry;
  if (telemetry === undefined) return answer();
  const ctx: ServerRequestContext = {
    method: request.method,
    requestId: request.id,
    params: isRecord(request.params) ? request.params : {},
    protocolVersion,
    clientCapabilities: facts?.clientCapabilities ?? {},
    clientInfo: facts?.clientInfo,
    logLevel: facts?.logLevel,
    progressToken: undefined,
    authInfo: arrival.authInfo,
    http: arrival.http,
    signal: arrival.signal ?? NEVER_ABORTED,
    logger: core.logger,
    notify: (notification) => arrival.send(notification),
  };
  try {
    return await telemetry(ctx, async () => answer());
  } catch (error) {
    if (error instanceof McpError) throw error;
    core.logger.error(`telemetry failed on ${request.method}: ${messageOf(error)}`);
    throw new McpError(ErrorCode.InternalError, "Internal error");
  }
}
