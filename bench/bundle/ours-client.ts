// Minimal roundtrip client: spawn a stdio server, one MRTR call (bundle-size entry; never run).
import { Client } from "../../src/client/index.js";

const client = await Client.connect(
  { command: "node", args: ["server.js"] },
  { elicitation: async () => ({ action: "accept", content: { region: "eu-west-1" } }) },
);
const result = await client.callTool("provision", { name: "orders" });
console.log(result.content);
await client.close();
