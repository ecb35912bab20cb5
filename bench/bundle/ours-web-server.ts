// Minimal roundtrip MRTR server as a web fetch handler, for Workers, Deno or Bun (bundle-size entry
// for the browser platform; never run by the harness).
import * as z from "zod";
import { acceptedContent, elicitationRequest, inputRequired, MCPServer } from "../../src/server/index.js";
import { createHttpHandler } from "../../src/transports/http/web.js";

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
export default { fetch: createHttpHandler(mcp, { allowedHosts: ["mcp.example.com"] }) };
