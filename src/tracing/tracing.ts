/**
 * OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: a server
 * span per request, a span per GraphQL operation executed (REST's in-process ones included) and a span per SQL
 * statement, nested as they run, sent over OTLP/HTTP (docs/operations.md#traces). Without it nothing is loaded and
 * `inSpan` only runs its function: the SDK and exporter are imported when tracing starts.
 */
import {
  type Attributes,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';

/** The tracer while tracing is on in this process; undefined otherwise (the default). */
let tracer: Tracer | undefined;

export const tracingOn = (): boolean => tracer !== undefined;

/** Whether the environment asks for traces, as the OpenTelemetry SDK reads it. */
export function tracingWanted(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts exporting spans (the exporter reads the OTEL_EXPORTER_OTLP_* and OTEL_BSP_* settings itself); answers how
 * to stop, sending what is left.
 */
export async function startTracing(serviceVersion: string): Promise<() => Promise<void>> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      commonJs(import('@opentelemetry/sdk-trace-node')),
      commonJs(import('@opentelemetry/exporter-trace-otlp-http')),
      commonJs(import('@opentelemetry/resources')),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': process.env.OTEL_SERVICE_NAME || 'calendar-events-service',
      'service.version': serviceVersion,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The global provider, the AsyncLocalStorage context manager (spans nest across awaits) and W3C trace context.
  provider.register();
  tracer = trace.getTracer('calendar-events-service', serviceVersion);
  return async () => {
    tracer = undefined;
    await provider.shutdown();
  };
}

/**
 * A CommonJS package's exports, imported dynamically: the bundle (scripts/bundle.ts) hands some of them over as the
 * namespace's `default` only.
 */
async function commonJs<T extends object>(imported: Promise<T>): Promise<T> {
  const namespace = (await imported) as T & { default?: T };
  return namespace.default && typeof namespace.default === 'object'
    ? { ...namespace.default, ...namespace }
    : namespace;
}

/** Runs `run` inside a span that ends when it settles (an error marks the span); just runs it when tracing is off. */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  run: (span: Span | undefined) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!tracer) return run(undefined);
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await run(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A server span for a request read on node:http, continuing the caller's trace (W3C `traceparent`); `handle` runs
 * inside it and the span ends when the answer is written (`finished`). Answers `handle`'s call when tracing is off.
 */
export function serverSpan(
  method: string,
  path: string,
  headers: Record<string, string | string[] | undefined>,
  handle: (finished: (status: number, route: string) => void) => void,
): void {
  if (!tracer) return handle(() => {});
  const parent = propagation.extract(context.active(), headers);
  const span = tracer.startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } },
    parent,
  );
  context.with(trace.setSpan(parent, span), () =>
    handle((status, route) => {
      span.updateName(`${method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }),
  );
}
