/**
 * OpenTelemetry for the requests a server handles, after the MCP semantic conventions
 * (development status): one SERVER span per request, named `{method} {tool or prompt}` and
 * parented by the trace context the client put in `params._meta` (`traceparent`, `tracestate`,
 * `baggage`), and its duration in the `mcp.server.operation.duration` histogram.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  type Meter,
  propagation,
  SpanKind,
  type TextMapGetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { MiddlewareFunction, RefusedRequest, ServerTelemetry } from "../server/context.js";
import { toLegacyWireError } from "../server/legacy/outbound.js";
import { silentLogger } from "../server/logger.js";
import { UnknownEntryError } from "../server/mcp/unknown-entry.js";
import { toWireError } from "../server/wire-error.js";
import { messageOf } from "../shared/errors.js";
import { wasCancelled } from "../shared/lazy-signal.js";
import { isKnownProtocolVersion } from "../types/core.js";
import { ErrorCode, type ErrorObject, McpError, MetaKey, type RequestId } from "../types/index.js";
import { isRecord } from "../types/record.js";
import { isModernProtocolVersion } from "../types/versions.js";
import { instrumentsOf, Operation, operationAttributes, spanName, spanOnlyAttributes } from "./attributes.js";

/**
 * Options of {@link serverTelemetry}.
 *
 * @example
 * const options: ServerTelemetryOptions = { tracer: trace.getTracer("billing-mcp"), recordArguments: false };
 */
export interface ServerTelemetryOptions {
  /** The tracer spans come from. Default: the global provider's tracer named `roundtrip-mcp`. */
  readonly tracer?: Tracer;
  /** The meter the duration histogram comes from. Default: the global provider's, `roundtrip-mcp`. */
  readonly meter?: Meter;
  /**
   * Record a tool call's arguments as `gen_ai.tool.call.arguments` and a prompt's as
   * `gen_ai.prompt.variable.<name>` on spans (opt-in in the conventions: they may hold personal data).
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
 * A middleware that wraps each handled request in a span and times it, and reports the requests
 * the server refuses before its middleware runs the same way. Pass it as the server's `telemetry`
 * option: it then runs first, so spans cover request-state verification and sealing too.
 * Handlers run inside the span's context, so their own spans (a database call, an HTTP request)
 * are its children.
 *
 * Span attributes: `mcp.method.name`, `mcp.protocol.version`, `jsonrpc.request.id`,
 * `gen_ai.tool.name` with `gen_ai.operation.name: "execute_tool"`, `gen_ai.prompt.name`,
 * `mcp.resource.uri`, `network.transport` and `network.protocol.name` over HTTP
 * (`network.transport: "pipe"` alone over stdio),
 * `rpc.response.status_code` and `error.type` on errors (`tool_error` for a tool result with
 * `isError`; `cancelled`, with no status code, for a request the client cancelled), and `roundtrip.result_type: "input_required"` for a round that asks the client for
 * input. The duration histogram carries the same, without the request id and resource URI. A
 * method the server does not serve is named `_OTHER`, and a tool or prompt the `MCPServer` does not
 * have is left out of the span name and the duration, so a client cannot mint names or series.
 *
 * @example
 * import { serverTelemetry } from "roundtrip-mcp/otel";
 * const mcp = new MCPServer("billing", { telemetry: serverTelemetry() });
 */
export function serverTelemetry(options: ServerTelemetryOptions = {}): ServerTelemetry {
  const { recordArguments, tracer, histogram } = instrumentsOf(
    options,
    "mcp.server.operation.duration",
    "MCP request duration as observed on the receiver, from the request to its result",
  );
  const start = (request: Traced) => {
    const ambient = context.active();
    const parent = parentContext(request.params, ambient);
    const shared = sharedAttributes(request);
    const span = tracer.startSpan(
      spanName(request.method, request.params),
      {
        kind: SpanKind.SERVER,
        attributes: {
          ...shared,
          "jsonrpc.request.id": String(request.requestId),
          ...spanOnlyAttributes(request.method, request.params, recordArguments),
        },
        links: ambientLinks(ambient, parent),
      },
      parent,
    );
    return { parent, span, operation: new Operation(span, shared) };
  };
  // A tracer, span processor or meter that throws is logged: telemetry never changes an answer,
  // nor runs a handler twice or not at all.
  const middleware: MiddlewareFunction = (ctx, next) => {
    let started: ReturnType<typeof start>;
    try {
      started = start(ctx);
    } catch (failure) {
      ctx.logger.error(`telemetry failed to trace ${ctx.method}: ${messageOf(failure)}`);
      return next(ctx);
    }
    const { parent, span, operation } = started;
    // The span ends even when recording its outcome threw: a span left open is never exported.
    const finish = (record: () => void) => {
      try {
        try {
          record();
        } finally {
          operation.end(histogram());
        }
      } catch (failure) {
        ctx.logger.error(`telemetry failed to record ${ctx.method}: ${messageOf(failure)}`);
      }
    };
    return context
      .with(trace.setSpan(parent, span), () => next(ctx))
      .then(
        (result) => {
          finish(() => {
            // The client got no answer, whatever the handler made of the abort; a listen stream
            // is ended by its client that way, and ran its course.
            if (wasCancelled(ctx) && ctx.method !== "subscriptions/listen") recordCancelled(operation);
            else operation.result(result);
          });
          return result;
        },
        (error: unknown) => {
          finish(() => {
            if (error instanceof UnknownEntryError) operation.untarget(ctx.method);
            if (wasCancelled(ctx)) recordCancelled(operation);
            else {
              // The error the client gets: each era's wire maps retired and reserved codes (the server logs).
              const wire = isModernProtocolVersion(ctx.protocolVersion) ? toWireError : toLegacyWireError;
              recordFailure(operation, wire(ctx.method, error, silentLogger), error);
            }
          });
          throw error;
        },
      );
  };
  // A method the server does not serve is client-chosen text: `_OTHER` keeps names and series bounded.
  // So is the tool or prompt name of a refused request, which no handler looked up: the span keeps
  // it as an attribute, out of the span's name and the duration's series.
  const refused = (request: RefusedRequest) => {
    const params = request.served ? request.params : {};
    const { operation } = start({
      method: request.served ? request.method : "_OTHER",
      requestId: request.requestId,
      params,
      protocolVersion: request.protocolVersion ?? envelopeVersion(request.params),
      http: request.http,
      transport: request.transport,
    });
    if (request.served) operation.untarget(request.method);
    recordFailure(operation, request.error);
    operation.end(histogram());
  };
  return Object.assign(middleware, { refused });
}

/** What a span is started from: a handled request's context, or a refused request's fields. */
interface Traced {
  readonly method: string;
  readonly requestId: RequestId;
  readonly params: Readonly<Record<string, unknown>>;
  readonly protocolVersion: string | undefined;
  readonly http?: unknown;
  readonly transport?: "pipe" | undefined;
}

/** A refused request's protocol version, when its envelope names a known one (bounded values only). */
function envelopeVersion(params: Readonly<Record<string, unknown>>): string | undefined {
  const meta = params._meta;
  const version = isRecord(meta) ? meta[MetaKey.ProtocolVersion] : undefined;
  return isKnownProtocolVersion(version) ? version : undefined;
}

function parentContext(params: Readonly<Record<string, unknown>>, active: Context): Context {
  const meta = params._meta;
  if (meta === null || typeof meta !== "object") return active;
  return propagation.extract(active, meta as Record<string, unknown>, META_GETTER);
}

/**
 * The conventions: the context from `_meta` is the parent, and the ambient one (the transport's,
 * say an HTTP server span) is linked when it is another span, so neither trace loses the request.
 */
function ambientLinks(ambient: Context, parent: Context): Link[] | undefined {
  const transport = trace.getSpanContext(ambient);
  const remote = trace.getSpanContext(parent);
  if (transport === undefined || remote === undefined || remote.spanId === transport.spanId) return undefined;
  return [{ context: transport }];
}

/** What the span and the duration both carry. */
function sharedAttributes(request: Traced): Attributes {
  const attributes = operationAttributes(request.method, request.params);
  if (request.protocolVersion !== undefined) attributes["mcp.protocol.version"] = request.protocolVersion;
  if (request.http !== undefined) {
    attributes["network.transport"] = "tcp";
    attributes["network.protocol.name"] = "http";
  } else if (request.transport !== undefined) attributes["network.transport"] = request.transport;
  return attributes;
}

/**
 * A request the client cancelled (or whose connection went away) got no answer: no status code,
 * and not a server error, whatever the handler made of the abort (a throw, an `isError` result,
 * a result as if nothing happened).
 */
function recordCancelled(operation: Operation): void {
  operation.set("error.type", "cancelled");
  operation.fail("The request was cancelled");
}

/** `error` is what the client got; a `thrown` that is no `McpError` is kept for the operator. */
function recordFailure(operation: Operation, error: ErrorObject, thrown?: unknown): void {
  operation.set("rpc.response.status_code", String(error.code));
  if (NOT_SERVER_ERRORS.has(error.code)) return;
  operation.set("error.type", String(error.code));
  operation.fail(error.message);
  if (!(thrown instanceof McpError) && thrown instanceof Error) operation.recordException(thrown);
}
