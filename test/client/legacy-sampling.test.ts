// A 2025 server's sampling/createMessage on the back-channel: a conversation that breaks the
// tool-loop rules is answered -32602 on the wire and never reaches the app's sampling callback.
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import type { SamplingMessage } from "../../src/types/index.js";
import { ScriptedLegacyServer } from "./legacy-server-stub.js";

/** Sends a sampling request with `messages` and waits for the client's reply. */
function sampleWith(server: ScriptedLegacyServer, id: string, messages: SamplingMessage[]) {
  server.request(id, "sampling/createMessage", { messages, maxTokens: 20 });
  return server.replyTo(id);
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
      await sampleWith(server, "s1", [ask, use, { role: "user", content: { type: "text", text: "Well?" } }]),
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
      await sampleWith(server, "s2", [
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
    expect(await sampleWith(server, "s3", [ask, use, result])).toEqual({
      jsonrpc: "2.0",
      id: "s3",
      result: { role: "assistant", content: { type: "text", text: "Sunny" }, model: "m" },
    });
    expect(sampled).toEqual([[ask, use, result]]);
  });
});
