/**
 * `x-mcp-header`: tool arguments a tool's `inputSchema` asks HTTP clients to mirror into
 * `Mcp-Param-{Name}` headers (so gateways can route on them without parsing bodies). One walker for
 * every side: servers refuse bad declarations when a tool is registered, HTTP clients drop the tools
 * that carry them, and the HTTP endpoint finds which headers to check.
 */

import { isRecord } from "../types/record.js";
import {
  SUBSCHEMA_KEYWORDS,
  SUBSCHEMA_LIST_KEYWORDS,
  SUBSCHEMA_MAP_KEYWORDS,
} from "./json-schema-keywords.js";

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
  // The objects on the path from the root: a loop stops there, but an object used at two places is
  // checked at each, as the schema's JSON (what a client reads) repeats it.
  const ancestors = new Set<object>();
  let nodes = 0;
  let tooBig = false;

  const visit = (
    schema: unknown,
    path: readonly string[],
    pure: boolean,
    pointer: string,
    depth: number,
  ): void => {
    if (!isRecord(schema) || ancestors.has(schema)) return;
    if (++nodes > MAX_NODES || depth > MAX_DEPTH) {
      if (!tooBig) problems.push("inputSchema is too large or too deep to check");
      tooBig = true;
      return;
    }
    ancestors.add(schema);
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
    ancestors.delete(schema);
  };

  visit(inputSchema, [], true, "", 0);
  return { ok: problems.length === 0, headers, problems };
}
