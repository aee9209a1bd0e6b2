/**
 * The gateway's Prometheus metrics, on a Registry that is injected, never the global one.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { LeanCounter as Counter, LeanHistogram as Histogram } from './lean-metrics.ts';

/** Fine buckets for the gateway's own overhead (sub-millisecond matters). */
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25];
const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export interface GatewayMetrics {
  registry: Registry;
  requests: Counter<'route' | 'status' | 'provider'>;
  requestSeconds: Histogram<'route' | 'provider'>;
  errors: Counter<'route' | 'code'>;
  overheadSeconds: Histogram<'route'>;
  upstreamSeconds: Histogram<'provider' | 'route'>;
  timeToFirstToken: Histogram<'provider' | 'route'>;
  inflightStreams: Gauge<'route'>;
  upstreamErrors: Counter<'provider' | 'kind'>;
  clientAborts: Counter<'route'>;
  costMicros: Counter<'provider' | 'billing'>;
  unpricedResponses: Counter<'provider'>;
  estimatedUsage: Counter<'route'>;
  billingErrors: Counter<'operation'>;
  /** Model routes: each attempt at a target, by its provider and how it ended. */
  routeAttempts: Counter<'provider' | 'outcome'>;
  /** Model routes: attempts after a failed one, by the failure that caused them. */
  routeFallbacks: Counter<'reason'>;
}

export function createGatewayMetrics(registry = new Registry(), withDefaults = true): GatewayMetrics {
  if (withDefaults) collectDefaultMetrics({ register: registry, prefix: 'gateway_process_' });
  return {
    registry,
    requests: new Counter({
      name: 'gateway_requests_total',
      help: 'Inference requests by route, HTTP status and provider',
      labelNames: ['route', 'status', 'provider'],
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Inference requests from arrival to the last byte of the answer (streams included), by route and provider',
      labelNames: ['route', 'provider'],
      buckets: UPSTREAM_BUCKETS,
      registers: [registry],
    }),
    errors: new Counter({
      name: 'gateway_errors_total',
      help: "Error answers by route and the service's error code (a fixed set: service.insufficient_balance, service.rate_limited, service.credential_cap_exceeded, service.upstream_error, ...)",
      labelNames: ['route', 'code'],
      registers: [registry],
    }),
    overheadSeconds: new Histogram({
      name: 'gateway_overhead_seconds',
      help: "Time spent in the gateway itself (request handling minus the upstream's time)",
      labelNames: ['route'],
      buckets: OVERHEAD_BUCKETS,
      registers: [registry],
    }),
    upstreamSeconds: new Histogram({
      name: 'gateway_upstream_seconds',
      help: 'Upstream time: to the last byte for JSON, to the response headers for streams',
      labelNames: ['provider', 'route'],
      buckets: UPSTREAM_BUCKETS,
      registers: [registry],
    }),
    timeToFirstToken: new Histogram({
      name: 'gateway_time_to_first_token_seconds',
      help: 'Streams: from the request reaching the gateway to the first bytes of the answer going out',
      labelNames: ['provider', 'route'],
      buckets: UPSTREAM_BUCKETS,
      registers: [registry],
    }),
    inflightStreams: new Gauge({
      name: 'gateway_inflight_streams',
      help: 'Streamed responses currently open',
      labelNames: ['route'],
      registers: [registry],
    }),
    upstreamErrors: new Counter({
      name: 'gateway_upstream_errors_total',
      help: 'Upstream failures by kind (status, timeout, unreachable, stream)',
      labelNames: ['provider', 'kind'],
      registers: [registry],
    }),
    clientAborts: new Counter({
      name: 'gateway_client_aborts_total',
      help: 'Requests whose client went away before the response finished (upstream aborted)',
      labelNames: ['route'],
      registers: [registry],
    }),
    costMicros: new Counter({
      name: 'gateway_cost_micros_total',
      help: 'Cost of served responses in USD micros, by provider and who pays (platform or byok)',
      labelNames: ['provider', 'billing'],
      registers: [registry],
    }),
    unpricedResponses: new Counter({
      name: 'gateway_unpriced_responses_total',
      help: 'Responses for a model with no listed price, charged at BILLING_FALLBACK_PRICE',
      labelNames: ['provider'],
      registers: [registry],
    }),
    billingErrors: new Counter({
      name: 'gateway_billing_errors_total',
      help: 'Balance reads or debits that failed because the runtime store was unavailable (served anyway)',
      labelNames: ['operation'],
      registers: [registry],
    }),
    routeAttempts: new Counter({
      name: 'gateway_route_attempts_total',
      help: 'Model routes: attempts at a target by provider and outcome (ok, rate_limited, server_error, timeout, connect_error, rejected, final, aborted)',
      labelNames: ['provider', 'outcome'],
      registers: [registry],
    }),
    routeFallbacks: new Counter({
      name: 'gateway_route_fallbacks_total',
      help: 'Model routes: attempts made after a failed one, by the failure (rate_limited, server_error, timeout, connect_error, rejected)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    estimatedUsage: new Counter({
      name: 'gateway_estimated_usage_total',
      help: 'Responses billed on estimated usage because the upstream reported none',
      labelNames: ['route'],
      registers: [registry],
    }),
  };
}
