// The seed's "drive the loop yourself" snippet: the session hands you the union and you retry.
import type { ClientSession } from "roundtrip-mcp/client";
import {
  type CallToolResult,
  type ElicitResult,
  type InputRequest,
  type InputResponses,
  isInputRequiredResult,
} from "roundtrip-mcp/types";

/** Where your UI goes; this one answers every region question with eu-west-1. */
export function fulfil(request: InputRequest): ElicitResult {
  if (request.method !== "elicitation/create") {
    throw new Error(`this client cannot answer a ${JSON.stringify(request.method)} request`);
  }
  return { action: "accept", content: { region: "eu-west-1" } };
}

export async function provision(session: ClientSession, name: string): Promise<CallToolResult> {
  let result = await session.callTool("provision", { name }, { allowInputRequired: true });
  while (isInputRequiredResult(result)) {
    const responses: InputResponses = {};
    for (const [key, request] of Object.entries(result.inputRequests ?? {})) responses[key] = fulfil(request);
    result = await session.callTool(
      "provision",
      { name },
      { inputResponses: responses, requestState: result.requestState, allowInputRequired: true },
    );
  }
  return result;
}
