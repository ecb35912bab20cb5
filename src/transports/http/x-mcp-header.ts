/**
 * `x-mcp-header`: tool arguments a tool's `inputSchema` asks clients to mirror into
 * `Mcp-Param-{Name}` headers (so gateways can route on them without parsing bodies). One walker
 * serves both sides: clients validate and drop bad tools, servers find what to check.
 */

import {
  SUBSCHEMA_KEYWORDS,
  SUBSCHEMA_LIST_KEYWORDS,
  SUBSCHEMA_MAP_KEYWORDS,
} from "../../shared/json-schema-keywords.js";
import { isRecord } from "../../types/record.js";
import { encodeHeaderValue, HttpHeader } from "./headers.js";

/**
 * One argument mirrored into a header.
 *
 * @example
 * const region: ParamHeader = { name: "Region", path: ["region"], type: "string" }; // → Mcp-Param-Region
 */
export interface ParamHeader {
  /** The `{Name}` of `Mcp-Param-{Name}`, as declared. */
  readonly name: string;
  /** Property names from the root of `arguments` down to the value. */
  readonly path: readonly string[];
  /** The declared JSON Schema type. */
  readonly type: "string" | "integer" | "boolean";
}

/**
 * What `validateXMcpHeaders` found: `ok` when nothing is violated; the well-formed declarations either way.
 *
 * @example
 * const { ok, problems }: XMcpHeaderValidation = validateXMcpHeaders(tool.inputSchema);
 */
export interface XMcpHeaderValidation {
  readonly ok: boolean;
  readonly headers: readonly ParamHeader[];
  readonly problems: readonly string[];
}

const ANNOTATION = "x-mcp-header";
/** RFC 9110 `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const MAX_DEPTH = 64;
const MAX_NODES = 10_000;
const NUMERIC_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "const", "default"];

/** JSON Pointer escaping of one reference token. */
function pointerToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function primitiveType(schema: Record<string, unknown>): ParamHeader["type"] | undefined {
  const declared = schema.type;
  const types = Array.isArray(declared) ? declared.filter((t) => t !== "null") : [declared];
  const [only] = types;
  if (types.length !== 1) return undefined;
  return only === "string" || only === "integer" || only === "boolean" ? only : undefined;
}

function outsideSafeRange(schema: Record<string, unknown>): boolean {
  const values = [
    ...NUMERIC_KEYWORDS.map((k) => schema[k]),
    ...(Array.isArray(schema.enum) ? schema.enum : []),
  ];
  return values.some((v) => typeof v === "number" && !(Math.abs(v) <= Number.MAX_SAFE_INTEGER));
}

/**
 * Checks a tool's `inputSchema` against the spec's `x-mcp-header` constraints: a non-empty RFC 9110
 * token (so no CR/LF), case-insensitively unique, only on `string`/`integer`/`boolean` properties
 * (optionally nullable) reachable purely through `properties` chains, integers within ±(2^53−1).
 * Pure: never throws, never dereferences `$ref`.
 *
 * @example
 * validateXMcpHeaders({ type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } });
 * // { ok: true, headers: [{ name: "Region", path: ["region"], type: "string" }], problems: [] }
 */
export function validateXMcpHeaders(inputSchema: unknown): XMcpHeaderValidation {
  const headers: ParamHeader[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  const visited = new Set<object>();
  let nodes = 0;
  let tooBig = false;

  const visit = (
    schema: unknown,
    path: readonly string[],
    pure: boolean,
    pointer: string,
    depth: number,
  ): void => {
    if (!isRecord(schema) || visited.has(schema)) return;
    if (++nodes > MAX_NODES || depth > MAX_DEPTH) {
      if (!tooBig) problems.push("inputSchema is too large or too deep to check");
      tooBig = true;
      return;
    }
    visited.add(schema);
    const where = !pure
      ? `#${pointer}`
      : path.length === 0
        ? "the schema root"
        : `property ${path.join(".")}`;
    if (Object.hasOwn(schema, ANNOTATION)) {
      const name = schema[ANNOTATION];
      const type = primitiveType(schema);
      if (!pure || path.length === 0) {
        problems.push(`${ANNOTATION} on ${where} is not reachable purely through properties`);
      } else if (typeof name !== "string" || name.length === 0) {
        problems.push(`${ANNOTATION} on ${where} must be a non-empty string`);
      } else if (!TOKEN.test(name)) {
        problems.push(`${ANNOTATION} ${JSON.stringify(name)} on ${where} is not an HTTP token`);
      } else if (seen.has(name.toLowerCase())) {
        problems.push(`${ANNOTATION} ${JSON.stringify(name)} is declared more than once`);
      } else if (type === undefined) {
        problems.push(`${ANNOTATION} on ${where} needs type string, integer or boolean`);
      } else if (type === "integer" && outsideSafeRange(schema)) {
        problems.push(`${ANNOTATION} on ${where} allows integers beyond ±(2^53−1)`);
      } else {
        seen.add(name.toLowerCase());
        headers.push({ name, path, type });
      }
    }
    const into = (child: unknown, childPath: readonly string[], childPure: boolean, ...tokens: string[]) =>
      visit(child, childPath, childPure, `${pointer}/${tokens.map(pointerToken).join("/")}`, depth + 1);
    if (isRecord(schema.properties)) {
      for (const [key, child] of Object.entries(schema.properties))
        into(child, [...path, key], pure, "properties", key);
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) into(schema[keyword], path, false, keyword);
    for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
      const list = schema[keyword];
      if (!Array.isArray(list)) continue;
      for (const [i, child] of list.entries()) into(child, path, false, keyword, String(i));
    }
    for (const keyword of ["patternProperties", ...SUBSCHEMA_MAP_KEYWORDS]) {
      const map = schema[keyword];
      if (isRecord(map))
        for (const [key, child] of Object.entries(map)) into(child, path, false, keyword, key);
    }
  };

  visit(inputSchema, [], true, "", 0);
  return { ok: problems.length === 0, headers, problems };
}

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
 * How an argument value reads as a header: strings as-is, safe integers in decimal, booleans as
 * `true`/`false`; `undefined` for anything else (absent, null, objects, non-integer numbers).
 */
export function headerTextOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
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
