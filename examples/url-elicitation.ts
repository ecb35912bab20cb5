// URL elicitation: the user signs in out of band; the server correlates the retry through its own
// flow id in requestState (2026-07-28 has no elicitationId).
import { randomUUID } from "node:crypto";
import { inputRequired, MCPServer, urlElicitationRequest } from "roundtrip-mcp/server";

export const mcp = new MCPServer("GitHubConnector");

/** Flows whose sign-in finished (in production: your OAuth callback writes this, keyed by user). */
const completedFlows = new Map<string, string>();

/** What the sign-in page's callback does when the user finishes. */
export function completeSignIn(flowId: string, login: string): void {
  completedFlows.set(flowId, login);
}

mcp.tool("connect_github", { description: "Connect your GitHub account" }, (_args, ctx) => {
  const flowId = ctx.requestState;
  if (flowId === undefined) {
    const id = randomUUID();
    return inputRequired({
      inputRequests: {
        signin: urlElicitationRequest(
          "Sign in to GitHub to continue",
          `https://github.example/login?flow=${id}`,
        ),
      },
      requestState: id,
    });
  }
  const login = completedFlows.get(flowId);
  if (login === undefined) {
    // Not finished yet: keep the flow id and let the client retry (a state-only round).
    return inputRequired({ requestState: flowId });
  }
  completedFlows.delete(flowId);
  return `Connected as ${login}.`;
});
