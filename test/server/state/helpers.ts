import { expect } from "vitest";
import type { AuthInfo, NextHandler, ServerRequestContext } from "../../../src/server/context.js";
import { RequestStateBoundary, RequestStateSecurity } from "../../../src/server/state/index.js";
import { INVALID_REQUEST_STATE_MESSAGE, McpError, type ResultObject } from "../../../src/types/index.js";

/** Keys for tests only: 32+ bytes, distinct. */
export const KEY_A = "a".repeat(32);
export const KEY_B = "b".repeat(32);
export const KEY_C = "c".repeat(32);

export interface LogLine {
  readonly level: "debug" | "info" | "warn" | "error";
  readonly message: string;
}

/** A context plus the log lines its logger recorded. */
export type TestCtx = ServerRequestContext & { readonly logs: LogLine[] };

/** A hand-built `tools/call` context (`provision({name:"orders"})`, no auth) with a recording logger. */
export function makeCtx(overrides: Partial<ServerRequestContext> = {}): TestCtx {
  const logs: LogLine[] = [];
  const record = (level: LogLine["level"]) => (message: string) => {
    logs.push({ level, message });
  };
  return {
    method: "tools/call",
    requestId: 1,
    params: { name: "provision", arguments: { name: "orders" } },
    protocolVersion: "2026-07-28",
    clientCapabilities: {},
    clientInfo: undefined,
    logLevel: undefined,
    progressToken: undefined,
    authInfo: undefined,
    signal: new AbortController().signal,
    logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
    notify: async () => {},
    ...overrides,
    logs,
  };
}

/** The same request (method, params, auth) retried with `requestState`, under a fresh recording logger. */
export function retry(
  ctx: ServerRequestContext,
  requestState: unknown,
  overrides: Partial<ServerRequestContext> = {},
): TestCtx {
  return makeCtx({
    method: ctx.method,
    authInfo: ctx.authInfo,
    ...overrides,
    params: { ...(overrides.params ?? ctx.params), requestState },
  });
}

export function inputRequired(requestState?: unknown): ResultObject {
  return {
    resultType: "input_required",
    inputRequests: { region: { method: "elicitation/create", params: { message: "Which region?" } } },
    ...(requestState === undefined ? {} : { requestState }),
  };
}

export const complete = (): ResultObject => ({ resultType: "complete", content: [] });

/** A `next` that records every context it was called with and answers `answer`. */
export function recordingNext(
  answer: ResultObject | ((ctx: ServerRequestContext) => ResultObject) = complete(),
) {
  const seen: ServerRequestContext[] = [];
  const next: NextHandler = async (ctx) => {
    seen.push(ctx);
    return typeof answer === "function" ? answer(ctx) : answer;
  };
  return { next, seen };
}

/** Runs one round whose handler asks with `state`, and returns the wire token. */
export async function mint(boundary: RequestStateBoundary, ctx: ServerRequestContext, state = "plain-1") {
  const result = await boundary.handle(ctx, recordingNext(inputRequired(state)).next);
  expect(result.resultType).toBe("input_required");
  const token = result.requestState;
  if (typeof token !== "string") throw new Error("the boundary minted no token");
  return token;
}

/** Retries `ctx` through the boundary and returns the plaintext the handler saw. */
export async function accepted(boundary: RequestStateBoundary, ctx: ServerRequestContext): Promise<unknown> {
  const { next, seen } = recordingNext();
  await boundary.handle(ctx, next);
  expect(seen).toHaveLength(1);
  return seen[0]?.params.requestState;
}

/** Asserts the frozen -32602 rejection, that the handler never ran, and returns the error. */
export async function rejected(boundary: RequestStateBoundary, ctx: ServerRequestContext): Promise<McpError> {
  const { next, seen } = recordingNext();
  const error: unknown = await boundary.handle(ctx, next).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(seen).toHaveLength(0);
  expect(error).toBeInstanceOf(McpError);
  const wire = (error as McpError).toErrorObject();
  expect(wire).toEqual({
    code: -32602,
    message: INVALID_REQUEST_STATE_MESSAGE,
    data: { reason: "invalid_request_state" },
  });
  return error as McpError;
}

/** A controllable clock in seconds. */
export function testClock(start = 1_800_000_000) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

export function auth(clientId: string, parts: { subject?: string; issuer?: string } = {}): AuthInfo {
  return { token: `bearer-${clientId}-${parts.subject ?? ""}`, clientId, scopes: ["mcp"], ...parts };
}

/** The warn-level lines, i.e. the logged rejection reasons. */
export const warnings = (ctx: TestCtx) => ctx.logs.filter((l) => l.level === "warn").map((l) => l.message);

/** A keyed policy (KEY_A) with the given options. */
export const keyed = (options: ConstructorParameters<typeof RequestStateSecurity>[1] = {}) =>
  new RequestStateSecurity({ keys: [KEY_A] }, options);

/** A boundary with audience "fleet" by default and an optional injected clock. */
export const boundaryOf = (
  security = keyed(),
  defaultAudience: string | null = "fleet",
  now?: () => number,
) => new RequestStateBoundary(security, { defaultAudience, ...(now ? { now } : {}) });
