// One host, several servers: every tool under "<server>.<tool>", each call routed to its server
// through that server's own client (its era, its callbacks, its automatic loop).
import { ClientSessionGroup, type ClientTarget } from "roundtrip-mcp/client";

export async function provisionThroughGroup(
  servers: ClientTarget[],
): Promise<{ tools: string[]; text: string }> {
  await using group = new ClientSessionGroup({
    componentNameHook: (name, serverInfo) => `${serverInfo?.name ?? "unnamed"}.${name}`,
  });
  for (const server of servers) {
    await group.connect(server, {
      elicitation: async () => ({ action: "accept", content: { region: "eu-west-1" } }),
    });
  }
  const tools = [...group.tools.keys()]; // what a model would be offered
  const result = await group.callTool("Provisioner.provision", { name: "orders" });
  const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  return { tools, text };
}
