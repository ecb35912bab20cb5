/**
 * What the client and server telemetry share: span names, the request's own attributes, and one
 * recorded operation (its span, and the duration histogram's attributes as they accrue).
 */
import {
  type Attributes,
  type AttributeValue,
  type Histogram,
  type Meter,
  metrics,
  type Span,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";

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

/** The request's low-cardinality attributes: method, tool or prompt. */
export function operationAttributes(method: string, params: Readonly<Record<string, unknown>>): Attributes {
  const attributes: Attributes = { "mcp.method.name": method };
  const { name } = params;
  if (method === "tools/call" && typeof name === "string") {
    attributes["gen_ai.tool.name"] = name;
    attributes["gen_ai.operation.name"] = "execute_tool";
  }
  if (method === "prompts/get" && typeof name === "string") attributes["gen_ai.prompt.name"] = name;
  return attributes;
}

/** The requests that name a resource by its URI (the conventions' list; subscribing is 2025's). */
const RESOURCE_METHODS: ReadonlySet<string> = new Set([
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/**
 * What a span carries on top: the resource URI, and on opt-in (the conventions': they may hold
 * personal data) the tool's arguments and the prompt's variables.
 */
export function spanOnlyAttributes(
  method: string,
  params: Readonly<Record<string, unknown>>,
  recordArguments: boolean,
): Attributes {
  const attributes: Attributes = {};
  if (RESOURCE_METHODS.has(method) && typeof params.uri === "string")
    attributes["mcp.resource.uri"] = params.uri;
  if (!recordArguments) return attributes;
  const args = params.arguments;
  if (method === "tools/call") attributes["gen_ai.tool.call.arguments"] = JSON.stringify(args ?? {});
  if (method === "prompts/get" && args !== null && typeof args === "object") {
    for (const [key, value] of Object.entries(args)) {
      attributes[`gen_ai.prompt.variable.${key}`] = typeof value === "string" ? value : JSON.stringify(value);
    }
  }
  return attributes;
}

/** What both sides are configured with. */
export interface TelemetryOptions {
  readonly tracer?: Tracer | undefined;
  readonly meter?: Meter | undefined;
  readonly recordArguments?: boolean | undefined;
}

/**
 * One side's instruments: its tracer (by default the global API's, which follows a provider
 * registered later) and its histogram.
 */
export function instrumentsOf(options: TelemetryOptions, histogramName: string, description: string) {
  const histogram = durationHistogram(histogramName, description, options.meter);
  return {
    recordArguments: options.recordArguments === true,
    tracer: options.tracer ?? trace.getTracer("roundtrip-mcp"),
    histogram,
  };
}

/** Bucket boundaries the conventions give for MCP operation durations, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/**
 * A duration histogram, created on first use, so that a meter provider registered after the
 * middleware or client was built still gets it.
 */
function durationHistogram(name: string, description: string, meter: Meter | undefined): () => Histogram {
  let histogram: Histogram | undefined;
  return () => {
    histogram ??= (meter ?? metrics.getMeter("roundtrip-mcp")).createHistogram(name, {
      unit: "s",
      description,
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    return histogram;
  };
}

/** One request being recorded: its span, and the attributes its duration is recorded with. */
export class Operation {
  readonly #span: Span;
  readonly #metric: Attributes;
  readonly #started = performance.now();

  constructor(span: Span, metricAttributes: Attributes) {
    this.#span = span;
    this.#metric = metricAttributes;
  }

  /** An outcome attribute, on the span and on the duration. */
  set(key: string, value: AttributeValue): void {
    this.#span.setAttribute(key, value);
    this.#metric[key] = value;
  }

  fail(message: string): void {
    this.#span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  /**
   * The request named no tool or prompt the server has: its name is only the client's text, kept
   * out of the span name and the duration's series (the span keeps it as an attribute).
   */
  untarget(method: string): void {
    this.#span.updateName(method);
    delete this.#metric["gen_ai.tool.name"];
    delete this.#metric["gen_ai.prompt.name"];
  }

  recordException(error: Error): void {
    this.#span.recordException(error);
  }

  /** A round that asks for input is marked; a tool result with `isError` is a `tool_error`. */
  result(result: Readonly<Record<string, unknown>>): void {
    if (result.resultType === "input_required") this.set("roundtrip.result_type", "input_required");
    if (result.isError === true) {
      this.set("error.type", "tool_error");
      this.fail("the tool reported an error");
    }
  }

  end(histogram: Histogram): void {
    this.#span.end();
    histogram.record((performance.now() - this.#started) / 1000, this.#metric);
  }
}
