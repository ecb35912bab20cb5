/**
 * The header rungs of the validation ladder: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
 * `Mcp-Param-*` must agree with the body, else 400 with -32020 naming the header.
 */
import { isThenable } from "../../shared/thenable.js";
import { MetaKey } from "../../types/core.js";
import type { RequestId } from "../../types/index.js";
import { headerMismatch, type PlainReply } from "./body.js";
import { decodeHeaderValue, envelopeVersionOf, HttpHeader, nameParamOf } from "./headers.js";
import type { Incoming } from "./incoming.js";
import { argumentAt, headerTextOf, validateXMcpHeaders } from "./x-mcp-header.js";

/** The `x-mcp-header` declarations of a tool schema, walked once per schema object (every call asks). */
const declarations = new WeakMap<object, ReturnType<typeof validateXMcpHeaders>["headers"]>();

function declaredHeaders(schema: object): ReturnType<typeof validateXMcpHeaders>["headers"] {
  let headers = declarations.get(schema);
  if (!headers) {
    headers = validateXMcpHeaders(schema).headers;
    declarations.set(schema, headers);
  }
  return headers;
}

/**
 * Where a tool's input schema comes from, for `Mcp-Param-*` checks.
 *
 * @example
 * const toolInputSchema: ToolInputSchemaLookup = (name) => tools.get(name)?.inputSchema;
 */
export type ToolInputSchemaLookup = (toolName: string) => object | undefined | Promise<object | undefined>;

/** A request already known to be a well-formed JSON-RPC request. */
export interface RequestBody {
  readonly id: RequestId;
  readonly method: string;
  readonly params?: Record<string, unknown> | undefined;
}

const INTEGER = /^-?\d+$/;
const PLAIN = /^[\x20-\x7e]*$/;

function readHeader(request: Incoming, name: string, id: RequestId): string | PlainReply | undefined {
  const raw = request.header(name);
  if (raw === null) return undefined;
  const decoded = decodeHeaderValue(raw);
  return decoded.ok ? decoded.value : headerMismatch(id, `Header ${name} ${decoded.reason}`);
}

/**
 * Checks the standard headers. Returns the -32020 response, or `undefined` to go on. A body whose
 * envelope has no string protocol version skips these checks: the dispatcher answers it with
 * -32602 (HTTP 400), which says more than a header complaint would.
 */
export function checkStandardHeaders(request: Incoming, body: RequestBody): PlainReply | undefined {
  const version = envelopeVersionOf(body.params);
  if (version === undefined) return undefined;
  const { id, method } = body;
  const versionHeader = request.header(HttpHeader.ProtocolVersion);
  if (versionHeader === null)
    return headerMismatch(id, `Missing required header ${HttpHeader.ProtocolVersion}`);
  if (!PLAIN.test(versionHeader)) {
    return headerMismatch(id, `Header ${HttpHeader.ProtocolVersion} contains invalid characters`);
  }
  if (versionHeader !== version) {
    return headerMismatch(
      id,
      `Header ${HttpHeader.ProtocolVersion} does not match params._meta["${MetaKey.ProtocolVersion}"]`,
    );
  }
  const methodHeader = request.header(HttpHeader.Method);
  if (methodHeader === null) return headerMismatch(id, `Missing required header ${HttpHeader.Method}`);
  if (!PLAIN.test(methodHeader))
    return headerMismatch(id, `Header ${HttpHeader.Method} contains invalid characters`);
  if (methodHeader !== method)
    return headerMismatch(id, `Header ${HttpHeader.Method} does not match the body method`);
  const nameParam = nameParamOf(method);
  if (nameParam === undefined) return undefined;
  const name = readHeader(request, HttpHeader.Name, id);
  if (typeof name === "object") return name;
  if (name === undefined) return headerMismatch(id, `Missing required header ${HttpHeader.Name}`);
  if (name !== body.params?.[nameParam]) {
    return headerMismatch(id, `Header ${HttpHeader.Name} does not match params.${nameParam}`);
  }
  return undefined;
}

function sameValue(header: string, value: unknown): boolean {
  if (typeof value === "number") return INTEGER.test(header) && Number(header) === value;
  return header === headerTextOf(value);
}

/**
 * Checks `Mcp-Param-*` for a `tools/call` against the tool's `x-mcp-header` declarations: a
 * mirrorable argument (string, boolean, safe integer) needs its header; a present header must
 * match (integers compared numerically). An argument that cannot be mirrored (object, float) is
 * left to the tool's own input validation unless a header claims a value for it. Returns what is
 * wrong (the -32020 message), or undefined.
 */
export function paramHeaderMismatch(
  request: Incoming,
  body: RequestBody,
  lookup: ToolInputSchemaLookup,
): string | undefined | Promise<string | undefined> {
  const toolName = body.params?.name;
  if (body.method !== "tools/call" || typeof toolName !== "string") return undefined;
  const schema = lookup(toolName);
  // Synchronous unless the lookup is: no promise on the hot path.
  return isThenable<object | undefined>(schema)
    ? Promise.resolve(schema).then((found) => mismatchAgainst(request, body, found))
    : mismatchAgainst(request, body, schema);
}

function mismatchAgainst(
  request: Incoming,
  body: RequestBody,
  schema: object | undefined,
): string | undefined {
  if (schema === undefined) return undefined;
  const args = body.params?.arguments;
  for (const declared of declaredHeaders(schema)) {
    const headerName = `${HttpHeader.ParamPrefix}${declared.name}`;
    const raw = request.header(headerName);
    let header: string | undefined;
    if (raw !== null) {
      const decoded = decodeHeaderValue(raw);
      if (!decoded.ok) return `Header ${headerName} ${decoded.reason}`;
      header = decoded.value;
    }
    const value = argumentAt(args, declared.path);
    const mirrorable = headerTextOf(value) !== undefined;
    if (header === undefined) {
      if (mirrorable) return `Missing required header ${headerName}`;
      continue;
    }
    if (!mirrorable || !sameValue(header, value)) {
      return `Header ${headerName} does not match arguments.${declared.path.join(".")}`;
    }
  }
  return undefined;
}
