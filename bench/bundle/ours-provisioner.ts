// The `provision` tool of the bundle-size entries (roundtrip side), shared by the stdio and web servers.
import * as z from "zod";
import { acceptedContent, elicitationRequest, inputRequired, MCPServer } from "../../src/server/index.js";

const ASK = elicitationRequest("Which region?", {
  type: "object",
  properties: { region: { type: "string" } },
  required: ["region"],
});

export function provisioner(): MCPServer {
  const mcp = new MCPServer("provisioner");
  mcp.tool("provision", { input: z.object({ name: z.string() }) }, async ({ name }, ctx) => {
    const answer = await acceptedContent(ctx, "region");
    if (typeof answer?.region !== "string") return inputRequired({ inputRequests: { region: ASK } });
    return `Provisioned ${name} in ${answer.region}.`;
  });
  return mcp;
}
