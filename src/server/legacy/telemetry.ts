/**
 * What the server's `telemetry` hears of a 2025 session: its refusals before the middleware chain,
 * and the requests the session answers itself (`initialize`, `ping`, `logging/setLevel`,
 * `resources/subscribe`), which never reach the chain.
 */
import { LegacyMethod } from "../../types/core.js";
import type { ErrorObject, JSONRPCRequest, ResultObject } from "../../types/index.js";
import { isRecord } from "../../types/record.js";
import { type LegacyCore, legacyContext, type SessionFacts } from "./serve.js";
import type { LegacyRequestContext } from "./session.js";

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
  arrival: Pick<LegacyRequestContext, "http" | "transport">,
  protocolVersion: string | undefined,
): void {
  if (core.telemetry?.refused === undefined) return;
  core.reportRefused({
    method: request.method,
    // The 2025 vocabulary is a bounded set of names too.
    served: core.hasHandler(request.method) || LEGACY_METHODS.includes(request.method),
    requestId: request.id,
    params: isRecord(request.params) ? request.params : {},
    error,
    http: arrival.http,
    transport: arrival.transport,
    protocolVersion,
  });
}

const LEGACY_METHODS: readonly string[] = Object.values(LegacyMethod);

/**
 * Runs a request the session answers itself inside the server's telemetry, as the chain would
 * run a handler: `answer` is the handler. Without telemetry it is simply called.
 *
 * @example
 * const result = await answerInTelemetry(core, request, arrival, facts, () => ({}));
 */
export async function answerInTelemetry(
  core: LegacyCore,
  request: JSONRPCRequest,
  arrival: LegacyRequestContext,
  facts: SessionFacts,
  answer: () => ResultObject,
): Promise<ResultObject> {
  const telemetry = core.telemetry;
  if (telemetry === undefined) return answer();
  const params = isRecord(request.params) ? request.params : {};
  return telemetry(legacyContext(core, request, params, facts, arrival, arrival.send), async () => answer());
}
