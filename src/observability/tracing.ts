/**
 * OpenTelemetry traces (DESIGN section 8): exported over OTLP/HTTP when the standard variables
 * say where (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; the exporter
 * reads `OTEL_EXPORTER_OTLP_*` itself: headers, timeout), with `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` / `_ARG`, `OTEL_BSP_*` and `OTEL_SDK_DISABLED`
 * honoured.
 * Unset, nothing is created: the request path checks `enabled` and does no tracing work at all.
 *
 * Spans are parented explicitly (a span's context is passed down), not through a context manager,
 * and the trace context reaches upstreams as W3C `traceparent` headers the gateway injects.
 */
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Sampler } from '@opentelemetry/sdk-trace';
import type { Logger } from './logger.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * W3C trace context, made by startTracing: with tracing off, @opentelemetry/core (about 2.6 MB of
 * heap) is never loaded, and no request carries a trace to extract or inject.
 */
let propagator: W3CTraceContextPropagator | undefined;
const headerGetter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = carrier[key];
    return typeof value === 'string' || Array.isArray(value) ? (value as string | string[]) : undefined;
  },
};
const headerSetter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

export interface Tracing {
  readonly enabled: boolean;
  readonly tracer: Tracer;
  /** Sends what is buffered, and goes on. */
  flush(): Promise<void>;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Tracing off: nothing is created, nothing is exported. */
export const TRACING_OFF: Tracing = Object.freeze({
  enabled: false,
  tracer: trace.getTracer('off'),
  flush: async () => {},
  shutdown: async () => {},
});

/** Whether the standard variables ask for traces. */
export function tracingRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

type SdkTrace = typeof import('@opentelemetry/sdk-trace');

/** OTEL_TRACES_SAMPLER (default parentbased_always_on) with its OTEL_TRACES_SAMPLER_ARG ratio. */
function samplerOf(env: Env, sdk: SdkTrace): Sampler {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = sdk;
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const bounded = Number.isFinite(ratio) ? Math.min(Math.max(ratio, 0), 1) : 1;
  switch (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(bounded);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(bounded) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/**
 * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL: `http/protobuf` (the
 * specification's default, and the cheaper: its serializer writes spans straight to bytes) or
 * `http/json`. Anything else (`grpc`) is not served here: a warning, and protobuf over HTTP.
 */
export function otlpProtocolOf(env: Env, log?: Logger): OtlpProtocol {
  const raw = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '')
    .trim()
    .toLowerCase();
  if (raw === 'http/json') return 'http/json';
  if (raw !== '' && raw !== 'http/protobuf') {
    log?.warn({ protocol: raw }, 'OTLP protocol not supported for traces; sending http/protobuf');
  }
  return 'http/protobuf';
}

/** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
function tracesUrl(env: Env): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim().replace(/\/+$/, '')}/v1/traces`;
}

const positive = (raw: string | undefined, fallback: number) => {
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
};

/**
 * Starts tracing for one role of the service when the environment asks for it. The SDK and the
 * exporter (about 10 MB resident) are loaded only then.
 */
export async function startTracing(env: Env, role: string, log: Logger): Promise<Tracing> {
  if (!tracingRequested(env)) return TRACING_OFF;
  const protocol = otlpProtocolOf(env, log);
  const [sdk, { OTLPTraceExporter }, { detectResources, envDetector, resourceFromAttributes }, core] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      protocol === 'http/json'
        ? import('@opentelemetry/exporter-trace-otlp-http')
        : import('@opentelemetry/exporter-trace-otlp-proto'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
    ]);
  propagator ??= new core.W3CTraceContextPropagator();
  const { BatchSpanProcessor, TracerProvider } = sdk;
  const resource = resourceFromAttributes({
    'service.name': env.OTEL_SERVICE_NAME?.trim() || 'inference-gateway',
    'service.namespace': 'inference-gateway',
    'inference_gateway.role': role,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(env, sdk),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: tracesUrl(env) }),
        scheduledDelayMillis: positive(env.OTEL_BSP_SCHEDULE_DELAY, 5000),
        maxQueueSize: positive(env.OTEL_BSP_MAX_QUEUE_SIZE, 2048),
        maxExportBatchSize: positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512),
      }),
    ],
  });
  log.info({ role, protocol }, 'tracing on: spans exported over OTLP/HTTP');
  return {
    enabled: true,
    tracer: provider.getTracer('inference-gateway'),
    async flush() {
      await provider
        .forceFlush()
        .catch((error: unknown) => log.warn({ err: error }, 'flushing traces failed'));
    },
    async shutdown() {
      await provider.shutdown().catch((error: unknown) => log.warn({ err: error }, 'flushing traces failed'));
    },
  };
}

/** The trace context a request arrived with (`traceparent`), for its server span's parent. */
export function extractContext(headers: Record<string, unknown>): Context {
  if (propagator === undefined) return context.active();
  return propagator.extract(context.active(), headers, headerGetter);
}

/** Adds `traceparent` (and `tracestate`) for `span` to outgoing headers. */
export function injectContext(span: Span, headers: Record<string, string>): void {
  propagator?.inject(trace.setSpan(context.active(), span), headers, headerSetter);
}

/** A failed span: its status and the exception (type and message only: never request content). */
export function recordFailure(span: Span, error: unknown): void {
  const name = error instanceof Error ? error.name : 'Error';
  const code = (error as { code?: unknown }).code;
  span.setAttribute('error.type', typeof code === 'string' ? code : name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : name });
}

/**
 * One request's spans: the server span and its children. The request path holds one only when
 * tracing is on (`request.trace`), so that tracing off costs nothing.
 */
export class RequestTrace {
  readonly span: Span;
  /** Sampled: its spans are recorded and exported. A request sampled out gets no child spans at all. */
  readonly recording: boolean;
  readonly #tracer: Tracer;
  readonly #context: Context;

  constructor(tracer: Tracer, name: string, parent: Context, attributes: Attributes) {
    this.#tracer = tracer;
    this.span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    this.recording = this.span.isRecording();
    this.#context = trace.setSpan(parent, this.span);
  }

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  set(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }

  /** A child span, ended by the caller. */
  startChild(name: string, attributes: Attributes = {}, kind: SpanKind = SpanKind.INTERNAL): Span {
    return this.#tracer.startSpan(name, { kind, attributes }, this.#context);
  }

  /** Runs `work` in a child span named `name`; a failure marks it and is rethrown. */
  async step<T>(name: string, work: (span: Span) => Promise<T>, attributes: Attributes = {}): Promise<T> {
    const span = this.startChild(name, attributes);
    try {
      return await work(span);
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  }
}

/** A step of the request path, in a child span when the request is traced. */
export function traced<T>(
  requestTrace: RequestTrace | undefined,
  name: string,
  work: () => Promise<T>,
): Promise<T> {
  return requestTrace?.recording === true ? requestTrace.step(name, work) : work();
}
