// The client side: one set of callbacks answers both generations. "auto" (the default) probes
// server/discover and falls back to the 2025 handshake; "legacy" handshakes directly.
import { Client, type ElicitationCallback } from "roundtrip-mcp/client";
import type { MCPServer } from "roundtrip-mcp/server";

export const asked: (string | number)[] = [];

export const elicitation: ElicitationCallback = (ctx) => {
  // ctx.requestId: the inputRequests key (2026), or the JSON-RPC id of elicitation/create (2025).
  asked.push(ctx.requestId);
  return { action: "accept", content: { region: "eu-west-1" } };
};

export async function provisionBothWays(server: MCPServer | string): Promise<string[]> {
  const legacy = await Client.connect(server, { mode: "legacy", elicitation });
  const modern = await Client.connect(server, { elicitation });
  const results = await Promise.all([
    legacy.callTool("provision", { name: "old" }),
    modern.callTool("provision", { name: "new" }),
  ]);
  const versions = [legacy.protocolVersion, modern.protocolVersion]; // "2025-11-25", "2026-07-28"
  await Promise.all([legacy.close(), modern.close()]);
  return [...versions, ...results.map((r) => (r.content[0]?.type === "text" ? r.content[0].text : ""))];
}
