// Testing a server without any network: the in-memory client lands on 2026-07-28 by itself and
// drives the same loop a remote client would. The wire tap sees every JSON message.

import { type JSONRPCMessage, MemoryTransport } from "roundtrip-mcp";
import { Client } from "roundtrip-mcp/client";
import { mcp } from "./resolver-region.js";

export async function checkProvision(): Promise<{
  text: string;
  protocolVersion: string;
  wire: JSONRPCMessage[];
}> {
  const wire: JSONRPCMessage[] = [];
  await using client = await Client.connect(
    new MemoryTransport(mcp, { onWire: (_direction, message) => wire.push(message) }),
    {
      elicitation: async () => ({ action: "accept", content: { region: "eu-west-1" } }),
    },
  );
  const result = await client.callTool("provision", { name: "orders" });
  const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  return { text, protocolVersion: client.protocolVersion, wire };
}
