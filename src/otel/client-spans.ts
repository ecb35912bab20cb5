/**
 * OpenTelemetry spans for the requests a client sends, after the MCP semantic conventions: one
 * CLIENT span per request (so one per round of a multi-round call), whose context goes to the
 * server in `params._meta` so that the server's span is its child.
 */
import {
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { RequestInstrument } from "../client/index.js";
import { McpError } from "../types/index.js";
import { recordResult, requestAttributes, spanName } from "./attributes.js";

/**
 * Options of {@link clientTracing}.
 *
 * @example
 * const options: ClientTracingOptions = { tracer: trace.getTracer("agent") };
 */
export interface ClientTracingOptions {
  /** The tracer spans come from. Default: the global provider's tracer named `roundtrip-mcp`. */
  readonly tracer?: Tracer;
  /** Record tool and prompt arguments (opt-in in the conventions: they may hold personal data). */
  readonly recordArguments?: boolean;
}

/**
 * A client `instrument` that wraps each request in a CLIENT span, a child of whatever span is
 * active when the call is made, and sends its trace context (`traceparent`, `tracestate`,
 * `baggage`, through the global propagator) in the request's `_meta` (SEP-414).
 *
 * Attributes: `mcp.method.name`, `gen_ai.tool.name` with `gen_ai.operation.name: "execute_tool"`,
 * `gen_ai.prompt.name`, `mcp.resource.uri`; `roundtrip.result_type: "input_required"` for a round
 * the server answered with questions; on failure `rpc.response.status_code` and `error.type` (the
 * JSON-RPC code, `tool_error` for an `isError` result, else the error's name) with an error status.
 *
 * @example
 * import { clientTracing } from "roundtrip-mcp/otel";
 * const client = await Client.connect(url, { instrument: clientTracing() });
 */
export function clientTracing(options: ClientTracingOptions = {}): RequestInstrument {
  const recordArguments = options.recordArguments === true;
  return (method, params) => {
    const tracer = options.tracer ?? trace.getTracer("roundtrip-mcp");
    const parent = context.active();
    const span = tracer.startSpan(
      spanName(method, params),
      { kind: SpanKind.CLIENT, attributes: requestAttributes(method, params, recordArguments) },
      parent,
    );
    const meta: Record<string, string> = {};
    propagation.inject(trace.setSpan(parent, span), meta);
    return {
      meta,
      end: (outcome) => {
        if ("result" in outcome) recordResult(span, outcome.result);
        else recordFailure(span, outcome.error);
        span.end();
      },
    };
  };
}

/** On the client every JSON-RPC error is an error (the conventions), and so is any other failure. */
function recordFailure(span: Span, error: unknown): void {
  if (error instanceof McpError) {
    span.setAttribute("rpc.response.status_code", String(error.code));
    span.setAttribute("error.type", String(error.code));
  } else {
    span.setAttribute("error.type", error instanceof Error ? error.name : "Error");
  }
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
