/**
 * Traces (OpenTelemetry, docs/adr/0014). The SDK is started once per process by `startTelemetry`,
 * configured only by the standard OTEL_* variables, and stays off unless an exporter is named
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER) and
 * OTEL_SDK_DISABLED is not true. Spans are made here, by hand, at the few boundaries that matter:
 * HTTP requests (http/app.ts), calls to other services, the event store → bus relay, bus publish
 * and consume, ffmpeg processes and model calls. No module patching: the compiled bundles and the
 * tsx sources behave alike, and a process without telemetry loads none of the SDK.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

export const tracer = trace.getTracer('baret');

const truthy = (v: string | undefined) => v !== undefined && ['true', '1', 'yes', 'on'].includes(v.trim().toLowerCase());

/** Whether the environment asks for traces: an exporter named, and the SDK not disabled. */
export function telemetryWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (truthy(env.OTEL_SDK_DISABLED)) return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (exporters.includes('none')) return false;
  return exporters.length > 0 || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface Telemetry {
  enabled: boolean;
  /** Flushes the spans not exported yet. */
  shutdown(): Promise<void>;
}

let started: Telemetry | undefined;

/** The span exporters OTEL_TRACES_EXPORTER names (default `otlp`), over the protocol OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL names. */
async function exportersFromEnv(env: NodeJS.ProcessEnv) {
  const names = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((s) => s.trim()).filter(Boolean);
  return Promise.all(
    names.map(async (name) => {
      if (name === 'console') return new (await import('@opentelemetry/sdk-trace-node')).ConsoleSpanExporter();
      if (name !== 'otlp') throw new Error(`OTEL_TRACES_EXPORTER=${name} is not supported: use otlp, console or none`);
      // Endpoint, headers, timeout and compression: the exporter reads OTEL_EXPORTER_OTLP_* itself.
      const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
      if (protocol === 'http/protobuf') return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
      if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
      throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf or http/json`);
    }),
  );
}

/**
 * Starts tracing for this process when the environment asks for it (see above): a Node tracer
 * provider (AsyncLocalStorage context, W3C trace context propagation, the sampler of
 * OTEL_TRACES_SAMPLER, batches per OTEL_BSP_*) exporting over OTLP/HTTP. The process is named
 * `baret-<service>` unless OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) says
 * otherwise. Traces only: metrics are Prometheus (`/metrics`), logs stay pino lines carrying the
 * trace id. These parts of the OpenTelemetry SDK load in a fraction of the time of
 * `@opentelemetry/sdk-node` (docs/adr/0014).
 */
export async function startTelemetry(service: string, env: NodeJS.ProcessEnv = process.env): Promise<Telemetry> {
  if (started) return started;
  if (!telemetryWanted(env)) return (started = { enabled: false, shutdown: async () => undefined });
  const [{ NodeTracerProvider, BatchSpanProcessor }, { detectResources, envDetector, resourceFromAttributes }, exporters] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    exportersFromEnv(env),
  ]);
  // What OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES say wins over the default name.
  const resource = resourceFromAttributes({ 'service.name': `baret-${service}` }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: exporters.map((e) => new BatchSpanProcessor(e)) });
  provider.register();
  return (started = { enabled: true, shutdown: () => provider.shutdown().catch(() => undefined) });
}

/** The trace and span ids of the active span, for log lines; empty outside a span. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const ctx = span.spanContext();
  return trace.isSpanContextValid(ctx) ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
}

/** The W3C trace context (`traceparent`, `tracestate`) of the active span, as string headers. */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** Headers with the active trace context added, unless they already carry one. */
export function withTraceHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (headers?.traceparent) return headers;
  const trace = traceHeaders();
  return Object.keys(trace).length > 0 ? { ...headers, ...trace } : headers;
}

/** The context a carrier (message headers, event metadata, request headers) names; the root context if none. */
export function extractContext(carrier: Record<string, unknown>): Context {
  const strings: Record<string, string> = {};
  for (const k of ['traceparent', 'tracestate']) if (typeof carrier[k] === 'string') strings[k] = carrier[k];
  return propagation.extract(ROOT_CONTEXT, strings);
}

/** Whether a carrier holds a trace context. */
export const hasTraceContext = (carrier: Record<string, unknown>): boolean => typeof carrier.traceparent === 'string';

/**
 * Runs `fn` in a new span (child of the active one, or of `parent`), ended when `fn` settles;
 * a thrown error marks the span as failed and is thrown on.
 */
export async function withSpan<T>(
  name: string,
  options: { attributes?: Attributes; kind?: SpanKind; parent?: Context },
  fn: (span: Span) => Promise<T> | T,
): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      span.recordException(e instanceof Error ? e : String(e));
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
      throw e;
    } finally {
      span.end();
    }
  });
}

/**
 * The span of a message consumed from the bus: a child of the trace the message carries (its
 * `traceparent` header), so a job's trace continues across Kafka. Messages without one are
 * handled without a span (the relay's untraced events would each start a trace of their own).
 */
export function consumeSpan<T>(
  system: 'kafka' | 'sqlite',
  message: { topic: string; headers: Record<string, string>; offset: string },
  group: string,
  fn: () => Promise<T>,
): Promise<T> {
  if (!hasTraceContext(message.headers)) return fn();
  return withSpan(
    `${message.topic} process`,
    {
      kind: SpanKind.CONSUMER,
      parent: extractContext(message.headers),
      attributes: {
        'messaging.system': system,
        'messaging.operation.type': 'process',
        'messaging.destination.name': message.topic,
        'messaging.consumer.group.name': group,
        'messaging.message.id': message.offset,
        ...(message.headers['event-type'] ? { 'baret.event.type': message.headers['event-type'] } : {}),
      },
    },
    fn,
  );
}

export { SpanKind, SpanStatusCode, context as otelContext, trace as otelTrace, type Span };
