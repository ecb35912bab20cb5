// The seed's region question, declared as a dependency: the SDK asks, seals the answer, retries.
import { elicit, MCPServer, resolver } from "roundtrip-mcp/server";
import * as z from "zod";

export const mcp = new MCPServer("Provisioner");

export const Region = z.object({ region: z.string().describe("Cloud region, e.g. eu-west-1") });

export const askRegion = resolver("ask_region", () =>
  elicit("Which region should the database live in?", Region),
);

mcp.tool(
  "provision",
  {
    description: "Provision a database. Asks which region to put it in.",
    input: z.object({ name: z.string() }),
    resolve: { region: askRegion },
  },
  ({ name }, { region }) => `Provisioned '${name}' in ${region.region}.`,
);
