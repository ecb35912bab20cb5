// Minimal official-SDK client over Streamable HTTP with fetch, one MRTR call (bundle-size entry for
// the browser platform; never run by the harness).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const client = new Client(
  { name: "client", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
);
client.setRequestHandler("elicitation/create", async () => ({
  action: "accept",
  content: { region: "eu-west-1" },
}));
await client.connect(new StreamableHTTPClientTransport(new URL("https://mcp.example.com/mcp")));
const result = await client.callTool({ name: "provision", arguments: { name: "orders" } });
console.log(result.content);
await client.close();
