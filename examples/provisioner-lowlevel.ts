// The seed's first snippet: a low-level server whose tool asks which region to use.
import { Server } from "roundtrip-mcp/server";
import {
  type CallToolResult,
  type ElicitRequest,
  type InputRequiredResult,
  isElicitResult,
  type Tool,
} from "roundtrip-mcp/types";

export const ASK_REGION: ElicitRequest = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Which region should the database live in?",
    requestedSchema: {
      type: "object",
      properties: { region: { type: "string" } },
      required: ["region"],
    },
  },
};

const provisionTool: Tool = {
  name: "provision",
  description: "Provision a database. Asks which region to put it in.",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
  },
};

/** A fresh Provisioner server (the seed builds one at module level; so do we, below). */
export function createProvisionerServer(): Server {
  return new Server("Provisioner", {
    onListTools: () => ({ tools: [provisionTool] }),
    onCallTool: (_ctx, params): CallToolResult | InputRequiredResult => {
      const answer = params.inputResponses?.region;
      if (!isElicitResult(answer) || answer.content === undefined) {
        return {
          resultType: "input_required",
          inputRequests: { region: ASK_REGION },
          requestState: "provision-v1",
        };
      }
      const name = String(params.arguments?.name);
      return {
        content: [{ type: "text", text: `Provisioned '${name}' in ${String(answer.content.region)}.` }],
      };
    },
  });
}

export const server = createProvisionerServer();
