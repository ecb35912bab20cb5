/**
 * The Streamable HTTP request-metadata headers of 2026-07-28: their names, the `=?base64?…?=`
 * sentinel that carries values a header cannot hold verbatim, and the headers a client derives
 * from a message body. Web-standard only (`atob`/`btoa`, `TextEncoder`): this file also runs on
 * Workers, Deno and Bun.
 */
import { isCoreMethod, isTaskMethod, METHOD_RULES, MetaKey } from "../../types/core.js";
import { isRecord } from "../../types/record.js";

/**
 * Header names, spelled as the spec does (header names are case-insensitive on the wire).
 *
 * @example
 * request.headers.get(HttpHeader.Method); // "tools/call"
 */
export const HttpHeader = {
  ProtocolVersion: "MCP-Protocol-Version",
  Method: "Mcp-Method",
  Name: "Mcp-Name",
  /** Prefix of the headers that mirror `x-mcp-header` tool arguments. */
  ParamPrefix: "Mcp-Param-",
} as const;

const SENTINEL = /^=\?base64\?(.*)\?=$/is;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Visible ASCII plus the inner space: what a header may carry without the sentinel. */
const PLAIN_VALUE = /^[\x20-\x7e]*$/;

/**
 * True when `value` can travel as a plain header value: visible ASCII (inner spaces allowed), no
 * leading or trailing whitespace, not empty (proxies drop empty headers), and not something that
 * reads as the sentinel.
 *
 * @example
 * isPlainHeaderValue("eu-west-1"); // true
 * isPlainHeaderValue("café");      // false → send encodeHeaderValue("café")
 */
export function isPlainHeaderValue(value: string): boolean {
  return value.length > 0 && PLAIN_VALUE.test(value) && value.trim() === value && !SENTINEL.test(value);
}

function utf8ToBase64(value: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Encodes a value for `Mcp-Name` / `Mcp-Param-*`: as-is when plain, else as
 * `=?base64?{base64(utf8)}?=` (the spec's rule, which also covers values that look like the sentinel).
 *
 * @example
 * encodeHeaderValue("Ünïcode"); // "=?base64?w5xuw69jb2Rl?="
 */
export function encodeHeaderValue(value: string): string {
  return isPlainHeaderValue(value) ? value : `=?base64?${utf8ToBase64(value)}?=`;
}

/**
 * A decoded header value, or why it could not be read.
 *
 * @example
 * const decoded: HeaderDecodeResult = decodeHeaderValue("=?base64?%%?=");
 * if (!decoded.ok) console.warn(`Mcp-Name ${decoded.reason}`);
 */
export type HeaderDecodeResult = { ok: true; value: string } | { ok: false; reason: string };

/**
 * Decodes a received `Mcp-Name` / `Mcp-Param-*` value: rejects characters a plain value may not
 * hold, and unwraps the base64 sentinel (strict padded base64 of valid UTF-8).
 *
 * @example
 * decodeHeaderValue("=?base64?Y2Fmw6k=?="); // { ok: true, value: "café" }
 */
export function decodeHeaderValue(raw: string): HeaderDecodeResult {
  if (!PLAIN_VALUE.test(raw)) return { ok: false, reason: "contains invalid characters" };
  const sentinel = SENTINEL.exec(raw);
  if (!sentinel) return { ok: true, value: raw };
  const payload = sentinel[1] ?? "";
  if (!BASE64.test(payload)) return { ok: false, reason: "has a malformed base64 value" };
  try {
    const binary = atob(payload);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return { ok: true, value: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { ok: false, reason: "has a base64 value that is not UTF-8" };
  }
}

/**
 * Raw `[name, value, …]` pairs (`node:http`'s `rawHeaders`) keyed by lower-case name, repeats
 * combined as `Headers` combines them: ", ", and "; " for `Cookie`.
 */
export function combineRawHeaders(raw: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    const previous = map.get(name);
    map.set(name, previous === undefined ? value : `${previous}${name === "cookie" ? "; " : ", "}${value}`);
  }
  return map;
}

/**
 * The body value a named method mirrors into `Mcp-Name`: `params.name` or `params.uri`, and
 * `params.taskId` for the Tasks extension's methods (so a balancer can route a task's requests to
 * the instance that holds it).
 */
export function nameParamOf(method: string): "name" | "uri" | "taskId" | undefined {
  if (isCoreMethod(method)) return METHOD_RULES[method].nameParam;
  return isTaskMethod(method) ? "taskId" : undefined;
}

/** `params._meta["io.modelcontextprotocol/protocolVersion"]`, when it is a string. */
export function envelopeVersionOf(params: unknown): string | undefined {
  if (!isRecord(params) || !isRecord(params._meta)) return undefined;
  const version = params._meta[MetaKey.ProtocolVersion];
  return typeof version === "string" ? version : undefined;
}

/**
 * The standard headers a client sends with one message: `MCP-Protocol-Version` (from the
 * envelope), `Mcp-Method`, and `Mcp-Name` for `tools/call`, `prompts/get`, `resources/read` and the
 * `tasks/*` methods.
 *
 * @example
 * standardHeadersFor({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", _meta } });
 * // { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add" }
 */
export function standardHeadersFor(message: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  const method = message.method;
  if (typeof method !== "string") return headers;
  const version = envelopeVersionOf(message.params);
  if (version !== undefined) headers[HttpHeader.ProtocolVersion] = version;
  headers[HttpHeader.Method] = method;
  const nameParam = nameParamOf(method);
  const params = message.params;
  if (nameParam && isRecord(params) && typeof params[nameParam] === "string") {
    headers[HttpHeader.Name] = encodeHeaderValue(params[nameParam]);
  }
  return headers;
}
