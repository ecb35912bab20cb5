// Minimal roundtrip client over Streamable HTTP with fetch, one MRTR call (bundle-size entry for the
// browser platform; never run by the harness).
import { Client } from "../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../src/transports/http/web.js";

const client = await Client.connect(
  new StreamableHttpClientTransport(new URL("https://mcp.example.com/mcp")),
  {
    elicitation: async () => ({ action: "accept", content: { region: "eu-west-1" } }),
  },
);
const result = await client.callTool("provision", { name: "orders" });
console.log(result.content);
await client.close();
