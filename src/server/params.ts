/** The params rungs of the validation ladder: `requestState` normalization and params checks. */
import type { z } from "zod";
import {
  describeFailure,
  ErrorCode,
  INPUT_REQUIRED_METHODS,
  invalidRequestStateError,
  isCoreMethod,
  McpError,
  METHOD_RULES,
} from "../types/core.js";
import type { Logger } from "./context.js";
import type { RequestHandler } from "./handlers.js";

/** One registered method: its handler and, for a non-core method, the schema of its params. */
export interface Registration {
  /** The schema of a non-core method's params, when one was given (core methods use the spec's). */
  readonly params: z.ZodType<Record<string, unknown>> | undefined;
  readonly handler: RequestHandler<Record<string, unknown>, unknown>;
}

/**
 * `requestState: null` is absent (any client could strip the field anyway), and so is an in-process
 * caller's own `undefined` (JSON has none; spreads make one); any other non-string
 * is refused with the one frozen request-state error, whether or not a boundary is installed.
 */
export function normalizeRequestState(
  method: string,
  params: Record<string, unknown>,
  logger: Logger,
): Record<string, unknown> {
  if (!INPUT_REQUIRED_METHODS.has(method) || !("requestState" in params)) return params;
  const { requestState, ...rest } = params;
  if (requestState == null) return rest;
  if (typeof requestState !== "string") {
    logger.warn(`requestState rejected on ${method}: not a string`);
    throw invalidRequestStateError();
  }
  return params;
}

/** Step 4 of the ladder: params against the spec's shape (core methods) or the registered schema. */
export function checkParams(
  method: string,
  received: Record<string, unknown>,
  registration: Registration,
): Record<string, unknown> {
  const params = Object.hasOwn(received, PROTO_KEY) ? withoutProtoKey(received) : received;
  if (isCoreMethod(method)) {
    const valid = METHOD_RULES[method].validParams;
    if (!valid(params)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid params for ${method}: ${describeFailure(valid, params)}`,
      );
    }
    return params;
  }
  if (!registration.params) return params;
  const parsed = registration.params.safeParse(params);
  if (!parsed.success) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params for ${method}: ${describeIssues(parsed.error)}`,
    );
  }
  return parsed.data;
}

const PROTO_KEY = "__proto__";

/**
 * JSON.parse makes "__proto__" an own key, which any later `Object.assign` or key-by-key copy turns
 * into the copy's prototype: fields behind it (`inputResponses`) would reach handlers unchecked. No
 * params carry that name, so it is dropped where params come in, before any check or copy.
 */
function withoutProtoKey(params: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...params };
  delete copy[PROTO_KEY];
  return copy;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "params"}: ${issue.message}`)
    .join("; ");
}
