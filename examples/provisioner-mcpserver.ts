// A high-level tool that asks with a hand-built result. Its plaintext requestState is sealed on the
// wire by default and handed back as plaintext on the retry.
import { elicitationRequest, inputRequired, inputResponse, MCPServer } from "roundtrip-mcp/server";
import * as z from "zod";

export const mcp = new MCPServer("Provisioner");

const Region = z.object({ region: z.enum(["eu-west-1", "us-east-1", "ap-south-1"]).describe("Region") });
export const ASK_REGION = elicitationRequest("Which region should the database live in?", Region);

mcp.tool(
  "provision",
  {
    description: "Provision a database. Asks which region to put it in.",
    input: z.object({ name: z.string() }),
  },
  ({ name }, ctx) => {
    const answer = inputResponse(ctx, "region");
    // Our own question id in the state: the SDK cannot know which question an answer belongs to.
    if (answer.kind !== "accept" || ctx.requestState !== "provision/ask-region/v1") {
      return inputRequired({
        inputRequests: { region: ASK_REGION },
        requestState: "provision/ask-region/v1",
      });
    }
    const region = Region.safeParse(answer.content);
    if (!region.success)
      return inputRequired({
        inputRequests: { region: ASK_REGION },
        requestState: "provision/ask-region/v1",
      });
    return `Provisioned '${name}' in ${region.data.region}.`;
  },
);
