import { isInputRequiredResult, validContentBlock } from "../../types/core.js";
import type { CallToolResult, ContentBlock, InputRequiredResult } from "../../types/index.js";
import { isRecord } from "../../types/record.js";

/**
 * Thrown from a tool to fail the call with an `isError` result whose text is this message. Any
 * other exception also fails the call, but its message stays in the server log.
 *
 * @example
 * if (!exists(name)) throw new ToolError(`No database named ${name}`);
 */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** A failed tool call, as the client sees it. */
export function toolErrorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function isContentBlock(value: unknown): value is ContentBlock {
  return validContentBlock(value);
}

/** True for a hand-built `CallToolResult` (an object with a `content` array). */
export function isCallToolResult(value: unknown): value is CallToolResult {
  return isRecord(value) && Array.isArray(value.content) && value.content.every(isContentBlock);
}

/** What a tool handler may return. */
export type ToolReturn =
  | string
  | ContentBlock
  | ContentBlock[]
  | CallToolResult
  | InputRequiredResult
  | Record<string, unknown>
  | unknown[]
  | number
  | boolean
  | null
  | undefined;

/**
 * Turns what a tool returned into the wire result. Without an output schema, plain data becomes
 * its JSON text; with one, the caller has validated it and it also goes to `structuredContent`.
 */
export function toCallToolResult(value: unknown, structured: boolean): CallToolResult | InputRequiredResult {
  if (isInputRequiredResult(value)) return value;
  if (structured) {
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  }
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  if (isCallToolResult(value)) return value;
  if (isContentBlock(value)) return { content: [value] };
  if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) return { content: value };
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}
