// A resource template that asks before it answers: which currency should the report use?
import { acceptedContent, elicitationRequest, inputRequired, MCPServer } from "roundtrip-mcp/server";
import * as z from "zod";

export const mcp = new MCPServer("Reports");

const Currency = z.object({ currency: z.enum(["EUR", "USD"]) });

mcp.resource(
  "reports://{quarter}",
  { description: "Quarterly revenue, in the currency you choose", mimeType: "text/plain" },
  async ({ quarter }, ctx) => {
    const choice = await acceptedContent(ctx, "currency", Currency);
    if (!choice) {
      return inputRequired({
        inputRequests: { currency: elicitationRequest(`Currency for the ${quarter} report?`, Currency) },
      });
    }
    const revenue = choice.currency === "EUR" ? "1.2M EUR" : "1.3M USD";
    return `Revenue ${quarter}: ${revenue}`;
  },
);

mcp.resource("reports://index", { description: "The list of reports" }, () => "Q1, Q2, Q3, Q4");
