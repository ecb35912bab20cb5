// A 2025 server may call the client back as often as it likes: past 100 requests waiting on the
// client's callbacks, more are refused at once, so a flood cannot pile up callbacks without bound.
import { expect, it, vi } from "vitest";
import { Client } from "../../src/client/client.js";
import type { Transport } from "../../src/shared/transport.js";
import type { JSONRPCMessage } from "../../src/types/index.js";

/** A 2025 server that answers initialize, then lets the test send requests and read the replies. */
class FloodingLegacyServer implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  readonly replies: JSONRPCMessage[] = [];
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    const { id, method } = message as { id?: number | string; method?: string };
    if (method === "initialize") {
      const result = {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "flood", version: "1" },
      };
      queueMicrotask(() => this.onmessage?.({ jsonrpc: "2.0", id: id as number, result }));
    } else if (method === undefined) this.replies.push(message);
  }
  ask(id: string): void {
    const params = { message: "Name?", requestedSchema: { type: "object", properties: {} } };
    this.onmessage?.({ jsonrpc: "2.0", id, method: "elicitation/create", params });
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

it("refuses server requests past 100 awaiting callbacks; one is served again once a slot frees", async () => {
  const server = new FloodingLegacyServer();
  const waiting: ((value: { action: "decline" }) => void)[] = [];
  await using client = await Client.connect(server, {
    mode: "legacy",
    // A dialog nobody answers yet.
    elicitation: () => new Promise((resolve) => waiting.push(resolve)),
  });
  expect(client.protocolVersion).toBe("2025-11-25");
  for (let n = 0; n < 150; n++) server.ask(`e${n}`);
  await vi.waitFor(() => expect(server.replies).toHaveLength(50));
  expect(waiting).toHaveLength(100);
  expect(server.replies[0]).toEqual({
    jsonrpc: "2.0",
    id: "e100",
    error: { code: -32603, message: "Too many requests: 100 server requests are waiting on the client" },
  });
  waiting[0]?.({ action: "decline" });
  await vi.waitFor(() => expect(server.replies).toHaveLength(51));
  server.ask("late");
  await vi.waitFor(() => expect(waiting).toHaveLength(101));
  expect(server.replies.slice(50)).toEqual([{ jsonrpc: "2.0", id: "e0", result: { action: "decline" } }]);
});
