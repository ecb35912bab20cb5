// The `provision` tool of the bundle-size entries (official side), over whichever input schema the
// entry chooses: a zod schema (theirs-provisioner.ts) or `fromJsonSchema` over a raw JSON Schema
// (theirs-provisioner-json.ts). Returns the server factory their `serveStdio` and `createMcpHandler` take.
import {
  acceptedContent,
  inputRequired,
  McpServer,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";

const ASK = inputRequired.elicit({
  message: "Which region?",
  requestedSchema: { type: "object", properties: { region: { type: "string" } }, required: ["region"] },
});

export function provisionerWith(inputSchema: StandardSchemaWithJSON<{ name: string }>): () => McpServer {
  return () => {
    const server = new McpServer({ name: "provisioner", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.registerTool("provision", { inputSchema }, async ({ name }, ctx) => {
      const answer = acceptedContent<{ region?: string }>(ctx.mcpReq.inputResponses, "region");
      if (typeof answer?.region !== "string") return inputRequired({ inputRequests: { region: ASK } });
      return { content: [{ type: "text", text: `Provisioned ${name} in ${answer.region}.` }] };
    });
    return server;
  };
}
