// A resolver that samples the client's LLM.
import { MCPServer, resolver, sample } from "roundtrip-mcp/server";
import * as z from "zod";

export const mcp = new MCPServer("Writer");

const summary = resolver("summary", { args: ["text"] }, ({ args }) =>
  sample({ prompt: `Summarize in one sentence: ${String(args.text)}`, maxTokens: 100 }),
);

mcp.tool(
  "summarize",
  {
    description: "Summarize a text with the client's model",
    input: z.object({ text: z.string() }),
    resolve: { summary },
  },
  (_args, { summary }) =>
    summary.content && !Array.isArray(summary.content) && summary.content.type === "text"
      ? summary.content.text
      : "(no text)",
);
