// The `provision` tool of the bundle-size entries (official side): the server factory their
// `serveStdio` and `createMcpHandler` both take.
import { acceptedContent, inputRequired, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";

const ASK = inputRequired.elicit({
  message: "Which region?",
  requestedSchema: { type: "object", properties: { region: { type: "string" } }, required: ["region"] },
});

export function provisioner(): McpServer {
  const server = new McpServer({ name: "provisioner", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("provision", { inputSchema: z.object({ name: z.string() }) }, async ({ name }, ctx) => {
    const answer = acceptedContent<{ region?: string }>(ctx.mcpReq.inputResponses, "region");
    if (typeof answer?.region !== "string") return inputRequired({ inputRequests: { region: ASK } });
    return { content: [{ type: "text", text: `Provisioned ${name} in ${answer.region}.` }] };
  });
  return server;
}
