// A 2025 server's sampling/createMessage on the back-channel: a conversation that breaks the
// tool-loop rules is answered -32602 on the wire and never reaches the app's sampling callback.
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import type { Transport } from "../../src/shared/transport.js";
import type { JSONRPCMessage, SamplingMessage } from "../../src/types/index.js";

/** A 2025 server that answers initialize, then lets the test send requests and read the replies. */
class ScriptedLegacyServer implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  readonly replies = new Map<string, JSONRPCMessage>();
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
    } else if (method === undefined && typeof id === "string") {
      this.replies.set(id, message);
    }
  }
  async ask(id: string, messages: SamplingMessage[]): Promise<JSONRPCMessage> {
    const params = { messages, maxTokens: 20 };
    this.onmessage?.({ jsonrpc: "2.0", id, method: "sampling/createMessage", params });
    for (let i = 0; i < 200 && !this.replies.has(id); i++) await new Promise((r) => setTimeout(r, 5));
    return this.replies.get(id) as JSONRPCMessage;
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

const use: SamplingMessage = {
  role: "assistant",
  content: [{ type: "tool_use", id: "call_1", name: "weather", input: { city: "Paris" } }],
};
const result: SamplingMessage = {
  role: "user",
  content: [{ type: "tool_result", toolUseId: "call_1", content: [{ type: "text", text: "18°C" }] }],
};
const ask: SamplingMessage = { role: "user", content: { type: "text", text: "Weather in Paris?" } };

describe("sampling/createMessage from a 2025 server", () => {
  it("answers -32602 naming the message and toolUseId for a broken tool loop; the callback never runs", async () => {
    const server = new ScriptedLegacyServer();
    const sampled: unknown[] = [];
    await using client = await Client.connect(server, {
      mode: "legacy",
      samplingCapabilities: { tools: {} },
      sampling: (_ctx, params) => {
        sampled.push(params.messages);
        return { role: "assistant", content: { type: "text", text: "Sunny" }, model: "m" };
      },
    });
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(
      await server.ask("s1", [ask, use, { role: "user", content: { type: "text", text: "Well?" } }]),
    ).toEqual({
      jsonrpc: "2.0",
      id: "s1",
      error: {
        code: -32602,
        message:
          'Invalid params for sampling/createMessage: messages[2]: tool_use "call_1" of the message before it must be answered first',
      },
    });
    expect(
      await server.ask("s2", [
        ask,
        use,
        {
          role: "user",
          content: [
            { type: "tool_result", toolUseId: "call_1", content: [] },
            { type: "text", text: "?" },
          ],
        },
      ]),
    ).toMatchObject({
      id: "s2",
      error: {
        code: -32602,
        message:
          'Invalid params for sampling/createMessage: messages[2]: tool_result "call_1" must not share a message with other content',
      },
    });
    expect(sampled).toEqual([]);
    // The same conversation with the loop kept reaches the callback and is answered.
    expect(await server.ask("s3", [ask, use, result])).toEqual({
      jsonrpc: "2.0",
      id: "s3",
      result: { role: "assistant", content: { type: "text", text: "Sunny" }, model: "m" },
    });
    expect(sampled).toEqual([[ask, use, result]]);
  });
});
