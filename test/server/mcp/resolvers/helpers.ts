import type { MCPServer } from "../../../../src/server/mcp/index.js";
import type { Dispatcher } from "../../../../src/shared/dispatch.js";
import type { ClientCapabilities, JSONRPCResponse } from "../../../../src/types/index.js";
import { errorOf, request, resultOf } from "../../../helpers.js";

/** A client that can answer form elicitations only. */
export const FORM: ClientCapabilities = { elicitation: { form: {} } };
/** A client that declares everything a resolver can ask. */
export const ALL: ClientCapabilities = {
  elicitation: { form: {}, url: {} },
  sampling: { tools: {} },
  roots: { listChanged: true },
};

/** The plaintext resolver state (what the boundary seals). */
export interface PlainState {
  v: number;
  outcomes: Record<string, { action: string; data?: unknown; q: string }>;
  asked: Record<string, string>;
}

export const accept = (content: Record<string, unknown>) => ({ action: "accept", content });
export const DECLINE = { action: "decline" } as const;
export const CANCEL = { action: "cancel" } as const;
export const SAMPLED = (text: string) => ({
  role: "assistant",
  content: { type: "text", text },
  model: "test-model",
});
export const ROOTS = { roots: [{ uri: "file:///work/app", name: "app" }, { uri: "file:///work/lib" }] };

/** The embedded form elicitation the SDK renders for a flat object of the given properties. */
export function form(
  message: string,
  properties: Record<string, unknown>,
  required: string[] = Object.keys(properties),
) {
  return {
    method: "elicitation/create",
    params: { mode: "form", message, requestedSchema: { type: "object", properties, required } },
  };
}

/** What crosses a real wire: JSON text and back. */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Installs a middleware after the sealing boundary (index 1+): it sees the plaintext `requestState`
 * coming in and going out, and can substitute the inbound plaintext once (to forge entries the
 * boundary would never let through as a token).
 */
export function spyState(mcp: MCPServer) {
  const inbound: (string | undefined)[] = [];
  const outbound: (string | undefined)[] = [];
  let substitute: { text: string } | undefined;
  mcp.server.middleware.push(async (ctx, next) => {
    if (ctx.method !== "tools/call") return next(ctx);
    let current = ctx;
    if (substitute !== undefined) {
      current = { ...ctx, params: { ...ctx.params, requestState: substitute.text } };
      substitute = undefined;
    }
    const state = current.params.requestState;
    inbound.push(typeof state === "string" ? state : undefined);
    const result = await next(current);
    outbound.push(
      result.resultType === "input_required" && typeof result.requestState === "string"
        ? result.requestState
        : undefined,
    );
    return result;
  });
  return {
    inbound,
    outbound,
    /** The plaintext state of the last input_required result, parsed. */
    last(): PlainState {
      const text = outbound.at(-1);
      if (text === undefined) throw new Error("no plaintext state went out");
      return JSON.parse(text) as PlainState;
    },
    /** The next tools/call reaches the handler with this plaintext state. */
    forgeNext(text: string | PlainState): void {
      substitute = { text: typeof text === "string" ? text : JSON.stringify(text) };
    },
  };
}

/**
 * One multi-round `tools/call`, driven by hand at the wire: the same name and arguments every round,
 * the latest `requestState` echoed byte-exact unless told otherwise.
 */
export class Flow {
  state: string | undefined;
  readonly results: Record<string, unknown>[] = [];

  constructor(
    readonly target: Dispatcher,
    readonly tool: string,
    readonly args: Record<string, unknown> = {},
    readonly capabilities: ClientCapabilities = FORM,
  ) {}

  /** Sends one round; `requestState: null` sends none, a string sends that instead of the echo. */
  async raw(
    inputResponses?: Record<string, unknown>,
    options: { requestState?: string | null; target?: Dispatcher } = {},
  ): Promise<JSONRPCResponse | undefined> {
    const params: Record<string, unknown> = { name: this.tool, arguments: this.args };
    if (inputResponses !== undefined) params.inputResponses = inputResponses;
    const state = options.requestState === undefined ? this.state : (options.requestState ?? undefined);
    if (state !== undefined) params.requestState = state;
    const message = wire(request("tools/call", params, this.capabilities));
    const response = wire(await (options.target ?? this.target).dispatch(message));
    if (response && "result" in response) {
      const result = response.result as Record<string, unknown>;
      this.results.push(result);
      if (result.resultType === "input_required" && typeof result.requestState === "string")
        this.state = result.requestState;
    }
    return response;
  }

  /** Sends one round and returns its result (failing on a JSON-RPC error). */
  async round(
    inputResponses?: Record<string, unknown>,
    options: { requestState?: string | null; target?: Dispatcher } = {},
  ): Promise<Record<string, unknown>> {
    return resultOf(await this.raw(inputResponses, options));
  }

  /** Sends one round and returns its JSON-RPC error (failing on a result). */
  async error(inputResponses?: Record<string, unknown>) {
    return errorOf(await this.raw(inputResponses));
  }
}

/** The `inputRequests` of an input_required result (failing otherwise). */
export function asked(result: Record<string, unknown>): Record<string, unknown> {
  if (result.resultType !== "input_required")
    throw new Error(`expected input_required, got ${JSON.stringify(result)}`);
  return result.inputRequests as Record<string, unknown>;
}

/** The text of a completed tool result, with its isError flag. */
export function textOf(result: Record<string, unknown>): { text: string; isError: boolean } {
  if (result.resultType === "input_required")
    throw new Error(`expected a completed result, got ${JSON.stringify(result)}`);
  const content = result.content as { type: string; text?: string }[];
  return { text: content.map((c) => c.text ?? "").join(""), isError: result.isError === true };
}
