// Minimal roundtrip MRTR server over stdio (bundle-size entry; never run by the harness).
import * as z from "zod";
import { acceptedContent, elicitationRequest, inputRequired, MCPServer } from "../../src/server/index.js";
import { serveStdio } from "../../src/transports/stdio/index.js";

const ASK = elicitationRequest("Which region?", {
  type: "object",
  properties: { region: { type: "string" } },
  required: ["region"],
});
const mcp = new MCPServer("provisioner");
mcp.tool("provision", { input: z.object({ name: z.string() }) }, async ({ name }, ctx) => {
  const answer = await acceptedContent(ctx, "region");
  if (typeof answer?.region !== "string") return inputRequired({ inputRequests: { region: ASK } });
  return `Provisioned ${name} in ${answer.region}.`;
});
serveStdio(mcp);
