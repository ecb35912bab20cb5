// One server for both generations: the same resolver tool serves a 2025-11-25 client (its question
// goes out as a real elicitation/create) and a 2026-07-28 client (its question comes back inside an
// InputRequiredResult). A hand-built InputRequiredResult needs the opt-in legacy shim on 2025.
import {
  acceptedContent,
  elicit,
  elicitationRequest,
  inputRequired,
  MCPServer,
  resolver,
} from "roundtrip-mcp/server";
import * as z from "zod";

const Region = z.object({ region: z.string() });

export const mcp = new MCPServer("Provisioner", {
  legacyShim: { maxRounds: 4, roundTimeoutMs: 120_000 },
});

const askRegion = resolver("ask_region", () => elicit("Which region?", Region));

mcp.tool(
  "provision",
  { input: z.object({ name: z.string() }), resolve: { region: askRegion } },
  ({ name }, { region }) => `Provisioned ${name} in ${region.region}.`,
);

mcp.tool("provision_by_hand", { input: z.object({ name: z.string() }) }, async ({ name }, ctx) => {
  const answer = await acceptedContent(ctx, "region", Region);
  if (!answer) {
    return inputRequired({ inputRequests: { region: elicitationRequest("Which region?", Region) } });
  }
  return `Provisioned ${name} in ${answer.region} (${ctx.protocolVersion}).`;
});
