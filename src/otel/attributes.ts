/** What the client and server spans share: their names and the request's own attributes. */
import { type Attributes, type Span, SpanStatusCode } from "@opentelemetry/api";

/** The tool or prompt name: low-cardinality targets only (never a resource URI). */
function targetOf(method: string, params: Readonly<Record<string, unknown>>): string | undefined {
  if (method !== "tools/call" && method !== "prompts/get") return undefined;
  return typeof params.name === "string" ? params.name : undefined;
}

/** `{method} {tool or prompt}`, or the method alone. */
export function spanName(method: string, params: Readonly<Record<string, unknown>>): string {
  const target = targetOf(method, params);
  return target === undefined ? method : `${method} ${target}`;
}

/**
 * The request's attributes: method, tool or prompt (arguments on opt-in, as the conventions
 * ask: they may hold personal data), resource URI.
 */
export function requestAttributes(
  method: string,
  params: Readonly<Record<string, unknown>>,
  recordArguments: boolean,
): Attributes {
  const attributes: Attributes = { "mcp.method.name": method };
  const { name, uri } = params;
  if (method === "tools/call" && typeof name === "string") {
    attributes["gen_ai.tool.name"] = name;
    attributes["gen_ai.operation.name"] = "execute_tool";
    if (recordArguments) attributes["gen_ai.tool.call.arguments"] = JSON.stringify(params.arguments ?? {});
  }
  if (method === "prompts/get" && typeof name === "string") {
    attributes["gen_ai.prompt.name"] = name;
    const args = params.arguments;
    if (recordArguments && args !== null && typeof args === "object") {
      for (const [key, value] of Object.entries(args)) {
        attributes[`gen_ai.prompt.variable.${key}`] =
          typeof value === "string" ? value : JSON.stringify(value);
      }
    }
  }
  if (method === "resources/read" && typeof uri === "string") attributes["mcp.resource.uri"] = uri;
  return attributes;
}

/** A round that asks for input is marked; a tool result with `isError` is a `tool_error`. */
export function recordResult(span: Span, result: Readonly<Record<string, unknown>>): void {
  if (result.resultType === "input_required") span.setAttribute("roundtrip.result_type", "input_required");
  if (result.isError === true) {
    span.setAttribute("error.type", "tool_error");
    span.setStatus({ code: SpanStatusCode.ERROR, message: "the tool reported an error" });
  }
}
