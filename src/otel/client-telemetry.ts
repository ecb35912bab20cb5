/**
 * OpenTelemetry for the requests a client sends, after the MCP semantic conventions: one CLIENT
 * span per request (so one per round of a multi-round call), whose context goes to the server in
 * `params._meta` so that the server's span is its child, and its duration in the
 * `mcp.client.operation.duration` histogram.
 */
import {
  type Attributes,
  context,
  type Meter,
  propagation,
  SpanKind,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { RequestInstrument, RequestSession } from "../client/index.js";
import { RequestAbortedError } from "../shared/errors.js";
import { McpError } from "../types/index.js";
import { instrumentsOf, Operation, operationAttributes, spanName, spanOnlyAttributes } from "./attributes.js";

/**
 * Options of {@link clientTelemetry}.
 *
 * @example
 * const options: ClientTelemetryOptions = { tracer: trace.getTracer("agent") };
 */
export interface ClientTelemetryOptions {
  /** The tracer spans come from. Default: the global provider's tracer named `roundtrip-mcp`. */
  readonly tracer?: Tracer;
  /** The meter the duration histogram comes from. Default: the global provider's, `roundtrip-mcp`. */
  readonly meter?: Meter;
  /** Record tool and prompt arguments on spans (opt-in in the conventions: they may hold personal data). */
  readonly recordArguments?: boolean;
}

/**
 * A client `instrument` that wraps each request in a CLIENT span, a child of whatever span is
 * active when the call is made, sends its trace context (`traceparent`, `tracestate`, `baggage`,
 * through the global propagator) in the request's `_meta` (SEP-414), and times it.
 *
 * Attributes: `mcp.method.name`, `mcp.protocol.version`, `jsonrpc.request.id` (span only),
 * `gen_ai.tool.name` with `gen_ai.operation.name: "execute_tool"`, `gen_ai.prompt.name`,
 * `mcp.resource.uri` (span only); `network.transport` (`pipe` over stdio), and over HTTP
 * `network.transport: "tcp"`, `network.protocol.name: "http"`, `server.address` and `server.port`; `roundtrip.result_type: "input_required"`
 * for a round the server answered with questions; on failure `rpc.response.status_code` and
 * `error.type` (the JSON-RPC code, `tool_error` for an `isError` result, else the error's name)
 * with an error status; a listen stream the client closes is no failure.
 *
 * @example
 * import { clientTelemetry } from "roundtrip-mcp/otel";
 * const client = await Client.connect(url, { instrument: clientTelemetry() });
 */
export function clientTelemetry(options: ClientTelemetryOptions = {}): RequestInstrument {
  const { recordArguments, tracer, histogram } = instrumentsOf(
    options,
    "mcp.client.operation.duration",
    "MCP request duration as observed on the sender, from the request to its result",
  );
  return (method, params, id, session) => {
    const parent = context.active();
    const shared = sessionAttributes(operationAttributes(method, params), session);
    const span = tracer.startSpan(
      spanName(method, params),
      {
        kind: SpanKind.CLIENT,
        attributes: {
          ...shared,
          "jsonrpc.request.id": String(id),
          ...spanOnlyAttributes(method, params, recordArguments),
        },
      },
      parent,
    );
    const operation = new Operation(span, shared);
    const meta: Record<string, string> = {};
    propagation.inject(trace.setSpan(parent, span), meta);
    return {
      meta,
      end: (outcome) => {
        // The span ends even when recording the outcome threw: a span left open is never exported.
        try {
          if ("result" in outcome) operation.result(outcome.result);
          else if (!closedListen(method, outcome.error)) recordFailure(operation, outcome.error);
        } finally {
          operation.end(histogram());
        }
      },
    };
  };
}

/** What the span and the duration carry of the session: its version and where its messages go. */
function sessionAttributes(attributes: Attributes, session: RequestSession): Attributes {
  attributes["mcp.protocol.version"] = session.protocolVersion;
  const network = session.network;
  if (network === undefined) return attributes;
  attributes["network.transport"] = network.transport;
  if (network.protocolName !== undefined) attributes["network.protocol.name"] = network.protocolName;
  if (network.serverAddress !== undefined) attributes["server.address"] = network.serverAddress;
  if (network.serverPort !== undefined) attributes["server.port"] = network.serverPort;
  return attributes;
}

/**
 * The client ends its listen stream by aborting the request (`close()`): the stream ran its
 * course, as the server's span of it says too, and failed nothing.
 */
function closedListen(method: string, error: unknown): boolean {
  return method === "subscriptions/listen" && error instanceof RequestAbortedError;
}

/** On the client every JSON-RPC error is an error (the conventions), and so is any other failure. */
function recordFailure(operation: Operation, error: unknown): void {
  if (error instanceof McpError) {
    operation.set("rpc.response.status_code", String(error.code));
    operation.set("error.type", String(error.code));
  } else {
    operation.set("error.type", error instanceof Error ? error.name : "Error");
  }
  operation.fail(error instanceof Error ? error.message : String(error));
}
