// Minimal official-SDK client over Streamable HTTP with fetch, one MRTR call (bundle-size entry for
// the browser platform; never run by the harness).
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { provisioningClient } from "./theirs-client-setup.js";

const client = provisioningClient();
await client.connect(new StreamableHTTPClientTransport(new URL("https://mcp.example.com/mcp")));
const result = await client.callTool({ name: "provision", arguments: { name: "orders" } });
console.log(result.content);
await client.close();
