// Minimal official-SDK client: spawn a stdio server, one MRTR call (bundle-size entry; never run).
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const client = new Client(
  { name: "client", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
);
client.setRequestHandler("elicitation/create", async () => ({
  action: "accept",
  content: { region: "eu-west-1" },
}));
await client.connect(new StdioClientTransport({ command: "node", args: ["server.js"] }));
const result = await client.callTool({ name: "provision", arguments: { name: "orders" } });
console.log(result.content);
await client.close();
