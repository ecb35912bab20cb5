// Minimal official-SDK MRTR server over stdio (bundle-size entry; never run by the harness).
import { acceptedContent, inputRequired, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

const ASK = inputRequired.elicit({
  message: "Which region?",
  requestedSchema: { type: "object", properties: { region: { type: "string" } }, required: ["region"] },
});
serveStdio(() => {
  const server = new McpServer({ name: "provisioner", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("provision", { inputSchema: z.object({ name: z.string() }) }, async ({ name }, ctx) => {
    const answer = acceptedContent<{ region?: string }>(ctx.mcpReq.inputResponses, "region");
    if (typeof answer?.region !== "string") return inputRequired({ inputRequests: { region: ASK } });
    return { content: [{ type: "text", text: `Provisioned ${name} in ${answer.region}.` }] };
  });
  return server;
});
