/** The response cache's Prometheus metrics. */
import type { Registry } from 'prom-client';
import { LeanCounter as Counter } from '../observability/lean-metrics.ts';

export interface CacheMetrics {
  results: Counter<'route' | 'result'>;
  bytesWritten: Counter;
  savedMicros: Counter;
  errors: Counter<'operation'>;
  skipped: Counter<'reason'>;
}

export function createCacheMetrics(registry: Registry): CacheMetrics {
  return {
    results: new Counter({
      name: 'gateway_cache_requests_total',
      help: 'Cacheable requests by result: hit, miss, stale (served inside the SWR window), refresh, bypass (store unavailable)',
      labelNames: ['route', 'result'],
      registers: [registry],
    }),
    bytesWritten: new Counter({
      name: 'gateway_cache_written_bytes_total',
      help: 'Bytes of cache entries written',
      registers: [registry],
    }),
    savedMicros: new Counter({
      name: 'gateway_cache_saved_micros_total',
      help: 'Upstream cost (USD micros) not spent thanks to cache hits and stale serves',
      registers: [registry],
    }),
    errors: new Counter({
      name: 'gateway_cache_errors_total',
      help: 'Cache store operations that failed or timed out (the request was served from upstream)',
      labelNames: ['operation'],
      registers: [registry],
    }),
    skipped: new Counter({
      name: 'gateway_cache_skipped_writes_total',
      help: 'Responses not cached, by reason (too_large, failed_stream)',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}
