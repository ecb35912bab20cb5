/**
 * roundtrip wired for the shared workload: an `MCPServer` (sealed by default, nothing configured)
 * with the hand-built `provision` tool (same shape as theirs), the same tool written with a
 * resolver, and the plain single-round tool; a `Client` with a constant elicitation callback.
 * Imports only the public entry points (`roundtrip-mcp/server`, `roundtrip-mcp/client`), the same
 * set the cold-start child times; HTTP helpers live in ours-http.ts.
 */
import { z } from "zod";
import { Client } from "../../src/client/index.js";
import type { Transport } from "../../src/index.js";
import {
  acceptedContent,
  elicit,
  elicitationRequest,
  inputRequired,
  MCPServer,
  resolver,
  silentLogger,
} from "../../src/server/index.js";
import {
  ANSWER,
  DB_NAME,
  type LegCounter,
  QUESTION,
  REGION_SCHEMA,
  TOOL_MRTR,
  TOOL_PLAIN,
} from "./workload.js";

/** The resolver-based variant of `provision` (our idiomatic form; also the legacy scenario's tool). */
export const TOOL_RESOLVED = "provision_resolved";

const ASK = elicitationRequest(QUESTION, REGION_SCHEMA);
const PLAIN_STATE = "ask-region";
const Region = z.object({ region: z.string().describe("Cloud region") });

/** One `MCPServer` with the three tools; `requestState` is sealed by the default ephemeral key. */
export function buildOurServer(legs: LegCounter): MCPServer {
  const mcp = new MCPServer("bench-provisioner", { version: "1.0.0", logger: silentLogger });
  const input = z.object({ name: z.string() });
  mcp.tool(
    TOOL_MRTR,
    { description: "Provision a database. Asks which region to put it in.", input },
    async ({ name }, ctx) => {
      legs.count++;
      const answer = await acceptedContent(ctx, "region");
      if (answer === undefined || ctx.requestState !== PLAIN_STATE || typeof answer.region !== "string") {
        return inputRequired({ inputRequests: { region: ASK }, requestState: PLAIN_STATE });
      }
      return `Provisioned ${name} in ${answer.region}.`;
    },
  );
  mcp.tool(TOOL_PLAIN, { description: "Provision a database in the default region.", input }, ({ name }) => {
    legs.count++;
    return `Provisioned ${name} in eu-west-1.`;
  });
  const askRegion = resolver("ask_region", () => {
    legs.count++;
    return elicit(QUESTION, Region);
  });
  mcp.tool(
    TOOL_RESOLVED,
    { description: "Provision a database (resolver form).", input, resolve: { region: askRegion } },
    ({ name }, { region }) => `Provisioned ${name} in ${region.region}.`,
  );
  return mcp;
}

/** Our client with the trivial elicitation callback; `target` is a server, a transport or a URL. */
export function connectOurs(
  target: MCPServer | Transport | URL,
  mode: "auto" | "legacy" = "auto",
  answer: () => Promise<typeof ANSWER> = async () => ANSWER,
): Promise<Client> {
  return Client.connect(target, { elicitation: answer, mode });
}

/** One flow through our auto-looping `callTool`. */
export function ourFlow(client: Client, tool: string = TOOL_MRTR): Promise<unknown> {
  return client.callTool(tool, { name: DB_NAME });
}
