// A client in ten lines: connect, answer the server's question, get the plain result.
import { Client } from "roundtrip-mcp/client";

export async function provision(url: string): Promise<string> {
  await using client = await Client.connect(url, {
    elicitation: async () => ({ action: "accept", content: { region: "eu-west-1" } }),
  });
  const result = await client.callTool("provision", { name: "orders" });
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}
