import type { ClientRequestContext } from "../../src/client/callbacks.js";
import { Client } from "../../src/client/client.js";
import type { ClientOptions } from "../../src/client/options.js";
import { silentLogger } from "../../src/server/logger.js";
import { Server } from "../../src/server/server.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import { MemoryTransport } from "../../src/transports/memory.js";
import {
  type CallToolRequestParams,
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
  type JSONRPCResponse,
  McpError,
} from "../../src/types/index.js";
import { wireTap } from "../helpers.js";

export const SERVER_INFO = { name: "stub", version: "1.2.3" };

/** What a well-behaved 2026-07-28 server answers to `server/discover`. */
export const DISCOVERED = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {}, prompts: {}, resources: {} },
  instructions: "Be nice.",
  ttlMs: 0,
  cacheScope: "private",
  _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
};

export interface Seen {
  id: unknown;
  method: string;
  params: Record<string, unknown>;
}

/**
 * A hand-written server: `handle` answers each request (throw an McpError to answer an error;
 * return undefined to get the default: DISCOVERED for server/discover, -32601 otherwise).
 * Bypasses our Server entirely, so nothing is stamped or gated.
 */
export function stubServer(
  handle: (method: string, params: Record<string, unknown>) => unknown = () => undefined,
): Dispatcher & { seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    dispatch: async (message: unknown): Promise<JSONRPCResponse | undefined> => {
      const { id, method, params } = message as {
        id: number;
        method: string;
        params?: Record<string, unknown>;
      };
      if (id === undefined) return undefined;
      seen.push({ id, method, params: params ?? {} });
      try {
        let result = await handle(method, params ?? {});
        if (result === undefined) {
          if (method !== "server/discover") throw new McpError(-32601, `Method not found: ${method}`);
          result = DISCOVERED;
        }
        return { jsonrpc: "2.0", id, result: result as Record<string, unknown> };
      } catch (error) {
        if (error instanceof McpError) return { jsonrpc: "2.0", id, error: error.toErrorObject() };
        throw error;
      }
    },
  };
}

/** Connects a Client through a tapped in-memory wire. */
export async function connectTapped(target: Dispatcher, options: ClientOptions = {}) {
  const tap = wireTap();
  const client = await Client.connect(new MemoryTransport(target, { onWire: tap.onWire }), options);
  return { client, tap };
}

/** The requests sent for `method`, in order. */
export function sentFor(tap: ReturnType<typeof wireTap>, method: string) {
  return tap
    .sent()
    .filter((m) => m.method === method)
    .map((m) => ({ id: m.id, params: m.params as Record<string, unknown> }));
}

/** Params without the `_meta` envelope, for compact wire assertions. */
export function bare(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const { _meta, ...rest } = params ?? {};
  return rest;
}

export const ELICIT: InputRequest = {
  method: "elicitation/create",
  params: {
    message: "What is your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    _meta: { "example.com/trace": "t-1" },
  },
};
export const SAMPLE: InputRequest = {
  method: "sampling/createMessage",
  params: {
    messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
    maxTokens: 50,
  },
};
export const ROOTS: InputRequest = { method: "roots/list", params: {} };
export const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
export const textOf = (result: CallToolResult) =>
  result.content.map((b) => (b.type === "text" ? b.text : "")).join("");

/** Our low-level Server whose tool asks `request` under `key` once, then echoes the answer. */
export function askingServer(key: string, request: InputRequest) {
  return new Server("asker", {
    version: "2",
    logger: silentLogger,
    onCallTool: (_ctx, params: CallToolRequestParams): CallToolResult | InputRequiredResult => {
      const answer = params.inputResponses?.[key];
      if (answer === undefined) {
        return { resultType: "input_required", inputRequests: { [key]: request }, requestState: "st-1" };
      }
      return text(`${params.requestState}:${JSON.stringify(answer)}`);
    },
  });
}

/**
 * An elicitation callback that never answers and ignores its signal (a dialog nobody closes):
 * `reached` settles when it is called, `signal()` is the signal it was given.
 */
export function unansweredElicitation() {
  let asked!: () => void;
  const reached = new Promise<void>((resolve) => {
    asked = resolve;
  });
  let signal: AbortSignal | undefined;
  const elicitation = (ctx: ClientRequestContext): Promise<never> => {
    signal = ctx.signal;
    asked();
    return new Promise<never>(() => {});
  };
  return { reached, signal: () => signal, elicitation };
}
