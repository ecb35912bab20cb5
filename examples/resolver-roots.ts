// A resolver that lists the client's roots.
import { listRoots, MCPServer, resolver } from "roundtrip-mcp/server";

export const mcp = new MCPServer("Workspace");

const roots = resolver("roots", () => listRoots());

mcp.tool(
  "workspace",
  { description: "Show the client's workspace folders", resolve: { roots } },
  (_args, { roots }) => roots.roots.map((root) => root.name ?? root.uri).join("\n"),
);
