/** Runs a session's `instrument` so that observing a request can never fail it. */
import { messageOf } from "../shared/errors.js";
import type { RequestId } from "../types/index.js";
import type { RequestInstrument, RequestObservation, RequestSession } from "./session-options.js";

/**
 * The instrument's observation of one request, guarded: an instrument that throws as the request
 * goes out, or as it ends, is warned of and the request goes on as if unobserved. Telemetry must
 * not turn a completed call (a tool that already acted) into a failure, nor stop one from going out.
 *
 * @example
 * const observed = observeRequest(instrument, warn, "tools/list", {}, 3, { protocolVersion: "2026-07-28" });
 * observed?.end({ result });
 */
export function observeRequest(
  instrument: RequestInstrument,
  warn: (message: string) => void,
  method: string,
  params: Readonly<Record<string, unknown>>,
  id: RequestId,
  session: RequestSession,
): RequestObservation | undefined {
  const failed = (error: unknown) => warn(`instrument failed on ${method}: ${messageOf(error)}`);
  let observed: RequestObservation | undefined;
  try {
    observed = instrument(method, params, id, session);
  } catch (error) {
    failed(error);
    return undefined;
  }
  if (observed === undefined) return undefined;
  const { meta } = observed;
  return {
    meta,
    end: (outcome) => {
      try {
        observed.end(outcome);
      } catch (error) {
        failed(error);
      }
    },
  };
}
