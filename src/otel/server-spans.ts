/**
 * OpenTelemetry spans for the requests a server handles, after the MCP semantic conventions
 * (development status): one SERVER span per request, named `{method} {tool or prompt}`, parented by
 * the trace context the client put in `params._meta` (`traceparent`, `tracestate`, `baggage`).
 */
import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { MiddlewareFunction, ServerRequestContext } from "../server/context.js";
import { ErrorCode, McpError } from "../types/index.js";
import { recordResult, requestAttributes, spanName } from "./attributes.js";

/**
 * Options of {@link tracing}.
 *
 * @example
 * const options: TracingOptions = { tracer: trace.getTracer("billing-mcp"), recordArguments: false };
 */
export interface TracingOptions {
  /** The tracer spans come from. Default: the global provider's tracer named `roundtrip-mcp`. */
  readonly tracer?: Tracer;
  /**
   * Record a tool call's arguments as `gen_ai.tool.call.arguments` and a prompt's as
   * `gen_ai.prompt.variable.<name>` (opt-in in the conventions: they may hold personal data).
   */
  readonly recordArguments?: boolean;
}

/** Caller mistakes: recorded as the status code, not as a server error (the conventions' list). */
const NOT_SERVER_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.MethodNotFound,
  ErrorCode.InvalidParams,
  -32002,
]);

/** `params._meta` as a carrier: only string values are trace context. */
const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

/**
 * A middleware that wraps each handled request in a span. Put it first, so that the span covers
 * request-state verification and sealing too, and so that a refused state is traced:
 * `mcp.server.middleware.unshift(tracing())`. Handlers run inside the span's context, so their
 * own spans (a database call, an HTTP request) are its children.
 *
 * Attributes: `mcp.method.name`, `mcp.protocol.version`, `jsonrpc.request.id`, `gen_ai.tool.name`
 * with `gen_ai.operation.name: "execute_tool"`, `gen_ai.prompt.name`, `mcp.resource.uri`,
 * `network.transport` and `network.protocol.name` over HTTP, `rpc.response.status_code` and
 * `error.type` on errors (`tool_error` for a tool result with `isError`), and
 * `roundtrip.result_type: "input_required"` for a round that asks the client for input.
 *
 * @example
 * import { tracing } from "roundtrip-mcp/otel";
 * mcp.server.middleware.unshift(tracing());
 */
export function tracing(options: TracingOptions = {}): MiddlewareFunction {
  const recordArguments = options.recordArguments === true;
  return (ctx, next) => {
    const tracer = options.tracer ?? trace.getTracer("roundtrip-mcp");
    const parent = parentContext(ctx);
    const span = tracer.startSpan(
      spanName(ctx.method, ctx.params),
      { kind: SpanKind.SERVER, attributes: attributesOf(ctx, recordArguments) },
      parent,
    );
    return context
      .with(trace.setSpan(parent, span), () => next(ctx))
      .then(
        (result) => {
          recordResult(span, result);
          span.end();
          return result;
        },
        (error: unknown) => {
          recordFailure(span, error);
          span.end();
          throw error;
        },
      );
  };
}

function parentContext(ctx: ServerRequestContext): Context {
  const meta = ctx.params._meta;
  const active = context.active();
  if (meta === null || typeof meta !== "object") return active;
  return propagation.extract(active, meta as Record<string, unknown>, META_GETTER);
}

function attributesOf(ctx: ServerRequestContext, recordArguments: boolean): Attributes {
  const attributes = requestAttributes(ctx.method, ctx.params, recordArguments);
  attributes["mcp.protocol.version"] = ctx.protocolVersion;
  attributes["jsonrpc.request.id"] = String(ctx.requestId);
  if (ctx.http !== undefined) {
    attributes["network.transport"] = "tcp";
    attributes["network.protocol.name"] = "http";
  }
  return attributes;
}

function recordFailure(span: Span, error: unknown): void {
  const code = error instanceof McpError ? error.code : ErrorCode.InternalError;
  span.setAttribute("rpc.response.status_code", String(code));
  if (NOT_SERVER_ERRORS.has(code)) return;
  span.setAttribute("error.type", String(code));
  // The wire's message: an McpError's own, "Internal error" for anything else (whose text is logged).
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof McpError ? error.message : "Internal error",
  });
  if (!(error instanceof McpError) && error instanceof Error) span.recordException(error);
}
