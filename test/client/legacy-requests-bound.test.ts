// A 2025 server may call the client back as often as it likes: past 100 requests waiting on the
// client's callbacks, more are refused at once, so a flood cannot pile up callbacks without bound.
import { expect, it, vi } from "vitest";
import { Client } from "../../src/client/client.js";
import { ScriptedLegacyServer } from "./legacy-server-stub.js";

const NAME_FORM = { message: "Name?", requestedSchema: { type: "object", properties: {} } };

it("refuses server requests past 100 awaiting callbacks; one is served again once a slot frees", async () => {
  const server = new ScriptedLegacyServer();
  const waiting: ((value: { action: "decline" }) => void)[] = [];
  await using client = await Client.connect(server, {
    mode: "legacy",
    // A dialog nobody answers yet.
    elicitation: () => new Promise((resolve) => waiting.push(resolve)),
  });
  expect(client.protocolVersion).toBe("2025-11-25");
  for (let n = 0; n < 150; n++) server.request(`e${n}`, "elicitation/create", NAME_FORM);
  await vi.waitFor(() => expect(server.replies).toHaveLength(50));
  expect(waiting).toHaveLength(100);
  expect(server.replies[0]).toEqual({
    jsonrpc: "2.0",
    id: "e100",
    error: { code: -32603, message: "Too many requests: 100 server requests are waiting on the client" },
  });
  waiting[0]?.({ action: "decline" });
  await vi.waitFor(() => expect(server.replies).toHaveLength(51));
  server.request("late", "elicitation/create", NAME_FORM);
  await vi.waitFor(() => expect(waiting).toHaveLength(101));
  expect(server.replies.slice(50)).toEqual([{ jsonrpc: "2.0", id: "e0", result: { action: "decline" } }]);
});
