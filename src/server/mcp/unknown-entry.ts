/** The refusal of a tool or prompt the caller named but may not use. */
import { ErrorCode, McpError } from "../../types/core.js";

/**
 * -32602 for a `tools/call` or `prompts/get` naming no tool or prompt the caller may use (an
 * unknown one, or one hidden from it). On the wire it is the plain `McpError`; its own class lets
 * telemetry tell that the name is only the client's text, which must not become a span name or a
 * metric series (a client could mint them without bound). `MCPServer` throws it itself; a
 * low-level `Server`'s `onCallTool` or `onGetPrompt` throws it for a name it does not serve.
 *
 * @example
 * throw new UnknownEntryError("tool", "nope"); // -32602 "Unknown tool: nope"
 */
export class UnknownEntryError extends McpError {
  constructor(kind: "tool" | "prompt", name: string) {
    super(ErrorCode.InvalidParams, `Unknown ${kind}: ${name}`);
  }
}
