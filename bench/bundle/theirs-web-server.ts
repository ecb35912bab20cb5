// Minimal official-SDK MRTR server as a web fetch handler, for Workers, Deno or Bun (bundle-size
// entry for the browser platform; never run by the harness).
import { acceptedContent, createMcpHandler, inputRequired, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";

const ASK = inputRequired.elicit({
  message: "Which region?",
  requestedSchema: { type: "object", properties: { region: { type: "string" } }, required: ["region"] },
});
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "provisioner", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("provision", { inputSchema: z.object({ name: z.string() }) }, async ({ name }, ctx) => {
    const answer = acceptedContent<{ region?: string }>(ctx.mcpReq.inputResponses, "region");
    if (typeof answer?.region !== "string") return inputRequired({ inputRequests: { region: ASK } });
    return { content: [{ type: "text", text: `Provisioned ${name} in ${answer.region}.` }] };
  });
  return server;
});
export default { fetch: (request: Request) => handler.fetch(request) };
