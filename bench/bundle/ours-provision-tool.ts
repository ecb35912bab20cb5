// The `provision` tool of the bundle-size entries (roundtrip side), over whichever input schema the
// entry chooses: a zod schema (ours-provisioner.ts) or a raw JSON Schema through `jsonSchema()`
// (ours-provisioner-json.ts).
import {
  acceptedContent,
  elicitationRequest,
  inputRequired,
  MCPServer,
  type SchemaLike,
} from "../../src/server/index.js";

const ASK = elicitationRequest("Which region?", {
  type: "object",
  properties: { region: { type: "string" } },
  required: ["region"],
});

export function provisionerWith(input: SchemaLike): MCPServer {
  const mcp = new MCPServer("provisioner");
  mcp.tool("provision", { input }, async (args, ctx) => {
    // Either schema has validated the arguments before the handler runs.
    const { name } = args as { name: string };
    const answer = await acceptedContent(ctx, "region");
    if (typeof answer?.region !== "string") return inputRequired({ inputRequests: { region: ASK } });
    return `Provisioned ${name} in ${answer.region}.`;
  });
  return mcp;
}
