// The README's demo: the seed's Provisioner driven through its two legs, printing each round.

import { MemoryTransport } from "roundtrip-mcp";
import { ClientSession } from "roundtrip-mcp/client";
import { provision } from "./manual-loop.js";
import { server } from "./provisioner-lowlevel.js";

export async function runDemo(print: (line: string) => void = console.log): Promise<string> {
  const transport = new MemoryTransport(server, {
    onWire: (direction, message) =>
      print(`${direction === "client→server" ? "→" : "←"} ${JSON.stringify(message)}`),
  });
  const session = await ClientSession.connect(transport, { capabilities: { elicitation: { form: {} } } });
  const result = await provision(session, "orders");
  await session.close();
  const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  print(`\nresult: ${text}`);
  return text;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runDemo();
}
