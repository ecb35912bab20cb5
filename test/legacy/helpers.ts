import type { ElicitationCallback } from "../../src/client/callbacks.js";
import { type DualEraConnection, openDualEraConnection } from "../../src/server/legacy/connection.js";
import type { Dispatcher } from "../../src/shared/dispatch.js";
import type { ClientCapabilities, JSONRPCMessage, JSONRPCResponse } from "../../src/types/index.js";

export const CLIENT_INFO = { name: "raw-2025-client", version: "1.0.0" };

/** What a hand-written 2025 client answers to the server's requests: a result, or an error. */
export type Answer = { result: Record<string, unknown> } | { error: { code: number; message: string } };

/** Answers every elicitation with a region. */
export const acceptRegion = (region = "eu-west-1"): Answer => ({
  result: { action: "accept", content: { region } },
});

/**
 * A hand-written 2025 client on one dual-era connection (the stdio/in-memory era lock), seeing the
 * wire exactly: every message the server writes lands in `written`, and server → client requests
 * are answered by `answer`.
 */
export class RawLegacyClient {
  readonly written: Record<string, unknown>[] = [];
  readonly connection: DualEraConnection;
  answer: (request: Record<string, unknown>) => Answer | Promise<Answer>;
  #nextId = 1;

  constructor(
    dispatcher: Dispatcher,
    answer: (request: Record<string, unknown>) => Answer | Promise<Answer> = () => acceptRegion(),
  ) {
    this.answer = answer;
    const connection = openDualEraConnection(dispatcher, async (message: JSONRPCMessage) => {
      const record = message as Record<string, unknown>;
      this.written.push(record);
      if (typeof record.method === "string" && "id" in record) {
        const reply = await this.answer(record);
        setTimeout(() => connection?.response({ jsonrpc: "2.0", id: record.id, ...reply }), 1);
      }
    });
    if (!connection) throw new Error("this dispatcher serves no legacy clients");
    this.connection = connection;
  }

  /** Server → client requests written so far (method + id). */
  get serverRequests(): Record<string, unknown>[] {
    return this.written.filter((m) => typeof m.method === "string" && "id" in m);
  }

  request(
    method: string,
    params?: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<JSONRPCResponse | undefined> {
    const message: Record<string, unknown> = { jsonrpc: "2.0", id: this.#nextId++, method };
    if (params !== undefined) message.params = params;
    return this.connection.dispatch(message, { signal });
  }

  /** `initialize` then `notifications/initialized`; resolves with the initialize response. */
  async initialize(
    capabilities: ClientCapabilities = {},
    protocolVersion = "2025-11-25",
  ): Promise<JSONRPCResponse | undefined> {
    const response = await this.request("initialize", {
      protocolVersion,
      capabilities,
      clientInfo: CLIENT_INFO,
    });
    this.connection.notification({ method: "notifications/initialized" });
    return response;
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<JSONRPCResponse | undefined> {
    return this.request("tools/call", { name, arguments: args });
  }
}

/** The same callback for both eras of our Client. */
export const regionCallback =
  (region = "eu-west-1"): ElicitationCallback =>
  () => ({ action: "accept", content: { region } });

/** A modern `_meta` envelope. */
export function envelope(capabilities: ClientCapabilities = {}) {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

export const text = (value: string) => ({ content: [{ type: "text", text: value }] });
export const errorText = (value: string) => ({ content: [{ type: "text", text: value }], isError: true });
