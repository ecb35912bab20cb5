/**
 * `Mcp-Param-{Name}` headers from a tool's `x-mcp-header` declarations (see shared/x-mcp-header.ts
 * for the declarations themselves): what HTTP clients send, and drop.
 */

import { type ParamHeader, validateXMcpHeaders } from "../../shared/x-mcp-header.js";
import { isRecord } from "../../types/record.js";
import { encodeHeaderValue, HttpHeader } from "./headers.js";

export {
  type ParamHeader,
  validateXMcpHeaders,
  type XMcpHeaderValidation,
} from "../../shared/x-mcp-header.js";

/**
 * Drops the tools whose `x-mcp-header` declarations break the spec's constraints, as HTTP
 * clients MUST, calling `warn` once per dropped tool.
 *
 * @example
 * const { tools } = await session.listTools();
 * const usable = filterToolsWithValidHeaders(tools, (message) => console.warn(message));
 */
export function filterToolsWithValidHeaders<T extends { name: string; inputSchema?: unknown }>(
  tools: readonly T[],
  warn: (message: string) => void,
): T[] {
  return tools.filter((tool) => {
    const checked = validateXMcpHeaders(tool.inputSchema);
    if (!checked.ok) warn(`Dropping tool ${JSON.stringify(tool.name)}: ${checked.problems.join("; ")}`);
    return checked.ok;
  });
}

/** The argument at `path`, or `undefined` when any step is missing or not an object. */
export function argumentAt(args: unknown, path: readonly string[]): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * How an argument value reads as a header: well-formed strings as-is, safe integers in decimal,
 * booleans as `true`/`false`; `undefined` for anything else (absent, null, objects, non-integer
 * numbers, and strings with a lone surrogate, which UTF-8 cannot carry through the header).
 */
export function headerTextOf(value: unknown): string | undefined {
  if (typeof value === "string") return value.isWellFormed() ? value : undefined;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/**
 * The `Mcp-Param-*` headers for one `tools/call`, from the tool's declarations and arguments.
 *
 * @example
 * paramHeadersFor([{ name: "Region", path: ["region"], type: "string" }], { region: "eu" });
 * // { "Mcp-Param-Region": "eu" }
 */
export function paramHeadersFor(declared: readonly ParamHeader[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of declared) {
    const text = headerTextOf(argumentAt(args, header.path));
    if (text !== undefined) headers[`${HttpHeader.ParamPrefix}${header.name}`] = encodeHeaderValue(text);
  }
  return headers;
}

/**
 * A `paramHeaders` lookup for the client transport, built from a `tools/list` result (tools with
 * invalid declarations are left out: they should have been dropped already).
 *
 * @example
 * transport.paramHeaders = paramHeadersFromTools(tools);
 */
export function paramHeadersFromTools(
  tools: readonly { name: string; inputSchema?: unknown }[],
): (toolName: string) => readonly ParamHeader[] | undefined {
  const byName = new Map<string, readonly ParamHeader[]>();
  for (const tool of tools) {
    const checked = validateXMcpHeaders(tool.inputSchema);
    if (checked.ok && checked.headers.length > 0) byName.set(tool.name, checked.headers);
  }
  return (toolName) => byName.get(toolName);
}
