import type { Transport } from "../../src/shared/transport.js";
import type { JSONRPCMessage } from "../../src/types/index.js";

/** A 2025 server that answers initialize, then lets a test send requests and read the replies. */
export class ScriptedLegacyServer implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  /** The client's replies to the test's requests, in order. */
  readonly replies: JSONRPCMessage[] = [];
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    const { id, method } = message as { id?: number | string; method?: string };
    if (method === "initialize") {
      const result = {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "scripted", version: "1" },
      };
      queueMicrotask(() => this.onmessage?.({ jsonrpc: "2.0", id: id as number, result }));
    } else if (method === undefined) this.replies.push(message);
  }
  /** Sends a server → client request. */
  request(id: string, method: string, params: Record<string, unknown>): void {
    this.onmessage?.({ jsonrpc: "2.0", id, method, params });
  }
  /** The client's reply to request `id`, waited for up to a second. */
  async replyTo(id: string): Promise<JSONRPCMessage | undefined> {
    const find = () => this.replies.find((reply) => (reply as { id?: unknown }).id === id);
    for (let i = 0; i < 200 && !find(); i++) await new Promise((r) => setTimeout(r, 5));
    return find();
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}
