/**
 * What tracing costs per request, apart from the rest of the gateway (`node bench/tracing-cost.ts`):
 * this process starts tracing as the gateway does (`startTracing`: the SDK, the BatchSpanProcessor,
 * the OTLP/HTTP protobuf exporter) against `otlp-sink.ts` in a child, then makes the spans of one
 * JSON cache miss, as the request path makes them (`RequestTrace`: the server span with its GenAI
 * and gateway attributes, the auth, cache lookup, upstream and cache write children, the upstream's
 * `traceparent` injected), many times over, and reads this process's CPU (all threads: process.cpuUsage)
 * until every span is exported. Variants take parts away, to show where the cost is.
 *
 * The figure to hold against the aim (tracing adds at most 10% to the gateway's CPU per request) is
 * this CPU per request over the untraced gateway's (`node bench/cpu-split.ts`, the same host).
 *
 * Settings: BENCH_REQUESTS (20000 per variant and round), BENCH_ROUNDS (3).
 */
import { ROOT_CONTEXT, SpanKind, type Tracer } from '@opentelemetry/api';
import { createLogger } from '../src/observability/logger.ts';
import { injectContext, RequestTrace, startTracing } from '../src/observability/tracing.ts';
import { machineInfo, runBench, startOtlpSink, stopAll } from './harness.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Variant {
  name: string;
  children: boolean;
  attributes: boolean;
  /** One request in ten sampled (`parentbased_traceidratio`, 0.1), as the README advises busy gateways. */
  tenth?: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'as the gateway (5 spans, attributes)', children: true, attributes: true },
  { name: 'server span only, attributes', children: false, attributes: true },
  { name: '5 spans, no attributes', children: true, attributes: false },
  { name: 'server span only, no attributes', children: false, attributes: false },
  { name: 'as the gateway, 10% sampled', children: true, attributes: true, tenth: true },
];

/** The server span's attributes at its end, as `spanAttributes` writes them for a JSON miss. */
const SERVER_ATTRIBUTES = {
  'gen_ai.operation.name': 'chat',
  'gateway.stream': false,
  'gen_ai.request.model': 'openai/gpt-4o-mini',
  'gen_ai.provider.name': 'openai',
  'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
  'gen_ai.usage.input_tokens': 12,
  'gen_ai.usage.output_tokens': 9,
  'gateway.upstream.model': 'gpt-4o-mini',
  'gateway.tenant.id': 'default',
  'gateway.workspace.id': 'default',
  'gateway.credential.kind': 'api-key',
  'gateway.byok': false,
  'gateway.cache.result': 'miss',
  'gateway.cache.policy': 'default',
  'gateway.cost_micros': 7,
};

/** One JSON miss's tracing, as the request path and the request observer do it. */
function oneRequest(tracer: Tracer, variant: Variant): void {
  const trace = new RequestTrace(
    tracer,
    'POST /v1/chat/completions',
    ROOT_CONTEXT, // a request without a caller's traceparent
    variant.attributes ? { 'http.request.method': 'POST', 'http.route': '/v1/chat/completions' } : {},
  );
  const headers: Record<string, string> = {};
  if (!trace.recording) {
    // Sampled out: no child span, the unsampled context still passed upstream.
    injectContext(trace.span, headers);
  } else {
    trace.span.updateName('chat openai/gpt-4o-mini');
    if (variant.children) {
      trace.startChild('gateway.auth').end();
      trace.startChild('gateway.cache.lookup').end();
      const upstream = trace.startChild(
        'chat gpt-4o-mini',
        variant.attributes
          ? {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': 'openai',
              'gen_ai.request.model': 'gpt-4o-mini',
              'server.address': '127.0.0.1',
            }
          : {},
        SpanKind.CLIENT,
      );
      injectContext(upstream, headers);
      if (variant.attributes) upstream.setAttribute('http.response.status_code', 200);
      upstream.end();
      trace.startChild('gateway.cache.write').end();
    }
    if (variant.attributes) trace.span.setAttributes(SERVER_ATTRIBUTES);
  }
  trace.span.setAttribute('http.response.status_code', 200);
  trace.span.end();
}

runBench(async () => {
  const machine = machineInfo();
  process.stdout.write(
    `tracing cost: ${machine.cpuModel} x${machine.cpuCount}, node ${machine.node}, load ${machine.loadAvgAtStart.join(' ')}; ${REQUESTS} requests per variant and round\n`,
  );
  const sink = await startOtlpSink();
  const log = createLogger('warn', 'tracing-cost');
  const tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }, 'gateway', log);
  const tenth = await startTracing(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    },
    'gateway',
    log,
  );
  const tracerOf = (variant: Variant) => (variant.tenth === true ? tenth.tracer : tracing.tracer);
  const flush = () => Promise.all([tracing.flush(), tenth.flush()]);
  // Warm the JIT on every variant.
  for (const variant of VARIANTS) for (let i = 0; i < 5000; i++) oneRequest(tracerOf(variant), variant);
  await flush();
  const results = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
      const start = process.cpuUsage();
      // In slices, so the exporter's sends interleave with the spans as under load.
      for (let done = 0; done < REQUESTS; done += 256) {
        for (let i = 0; i < 256; i++) oneRequest(tracerOf(variant), variant);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await flush();
      const used = process.cpuUsage(start);
      const perRequest = (used.user + used.system) / REQUESTS;
      results.set(variant.name, [...(results.get(variant.name) ?? []), perRequest]);
    }
  }
  process.stdout.write('\nCPU µs per request (this process, all threads, export included), per round:\n');
  for (const [name, values] of results)
    process.stdout.write(
      `  ${name.padEnd(40)} ${values.map((value) => value.toFixed(1).padStart(6)).join(' ')}\n`,
    );
  await Promise.all([tracing.shutdown(), tenth.shutdown()]);
  await stopAll();
});
