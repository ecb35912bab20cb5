// The seed's "Beyond tools" snippet: a prompt that asks who the briefing is for, then drafts it.
import { type Context, MCPServer } from "roundtrip-mcp/server";
import { type ElicitRequest, isElicitResult } from "roundtrip-mcp/types";

export const mcp = new MCPServer("Briefing");

export const ASK_AUDIENCE: ElicitRequest = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Who is the briefing for?",
    requestedSchema: {
      type: "object",
      properties: { audience: { type: "string" } },
      required: ["audience"],
    },
  },
};

mcp.prompt("briefing", { description: "Draft a briefing tuned to its audience." }, (_args, ctx: Context) => {
  const answer = ctx.inputResponses?.audience;
  if (!isElicitResult(answer) || answer.content === undefined) {
    return { resultType: "input_required", inputRequests: { audience: ASK_AUDIENCE } };
  }
  return [
    {
      role: "user",
      content: { type: "text", text: `Write a briefing for ${String(answer.content.audience)}.` },
    },
  ];
});
