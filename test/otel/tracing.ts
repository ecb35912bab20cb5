// The real OpenTelemetry SDK wired for tests: an in-memory span exporter, AsyncLocalStorage context
// and W3C propagation, installed globally for one test file (vitest runs each file in its own realm).
import { context, propagation, SpanKind, type Tracer, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { type HistogramMetricData, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll } from "vitest";

export const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
export const tracer = provider.getTracer("test");

/** Things to close after each test (servers), run before the exporter is emptied. */
export const closers: (() => Promise<void>)[] = [];

/** Installs the SDK globally for the calling test file; each test starts with no spans. */
export function installTracing(): void {
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(() => {
    trace.disable();
    propagation.disable();
    context.disable();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    exporter.reset();
  });
}

/** The SERVER spans of handled calls (connecting's `server/discover` left out). */
export const serverSpans = () =>
  exporter
    .getFinishedSpans()
    .filter(
      (span) => span.kind === SpanKind.SERVER && span.attributes["mcp.method.name"] !== "server/discover",
    );

/** A reader the test collects from by hand. */
export class CollectingReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

/** The data points of one histogram: attributes and count, sorted for comparison. */
export async function durations(reader: CollectingReader, name: string) {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((entry) => entry.descriptor.name === name) as HistogramMetricData | undefined;
  return {
    unit: metric?.descriptor.unit,
    boundaries: metric?.dataPoints[0]?.value.buckets.boundaries,
    points: (metric?.dataPoints ?? [])
      .map((point) => ({ attributes: point.attributes, count: point.value.count }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  };
}

/** A tracer whose spans throw on `setStatus`: telemetry must still end them, and change no answer. */
export function statusFailingTracer(): Tracer {
  return {
    startSpan: (...args: Parameters<Tracer["startSpan"]>) =>
      Object.assign(tracer.startSpan(...args), {
        setStatus: () => {
          throw new Error("status down");
        },
      }),
  } as unknown as Tracer;
}
