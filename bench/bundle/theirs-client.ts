// Minimal official-SDK client: spawn a stdio server, one MRTR call (bundle-size entry; never run).
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { provisioningClient } from "./theirs-client-setup.js";

const client = provisioningClient();
await client.connect(new StdioClientTransport({ command: "node", args: ["server.js"] }));
const result = await client.callTool({ name: "provision", arguments: { name: "orders" } });
console.log(result.content);
await client.close();
