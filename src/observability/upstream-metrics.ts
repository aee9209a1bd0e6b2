/**
 * The upstream connection pools, read when Prometheus scrapes: open connections (with HTTP/2 each
 * carries many requests), requests on them and requests waiting for one (every connection full,
 * GATEWAY_UPSTREAM_CONNECTIONS of them, or still connecting), so that queueing for an upstream
 * shows instead of passing as slow upstream time.
 */
import { Gauge, type Registry } from 'prom-client';

/** One origin's pool now (the shape of `UpstreamClient.stats()`). */
export interface UpstreamPoolStats {
  origin: string;
  connected: number;
  running: number;
  queued: number;
}

export function registerUpstreamMetrics(registry: Registry, read: () => UpstreamPoolStats[]): void {
  const gauge = (name: string, help: string, field: 'connected' | 'running' | 'queued') =>
    new Gauge({
      name,
      help,
      labelNames: ['origin'],
      registers: [registry],
      collect() {
        // Reset first: an origin whose pool was closed (idle) drops out instead of keeping its last value.
        this.reset();
        for (const pool of read()) this.set({ origin: pool.origin }, pool[field]);
      },
    });
  gauge(
    'gateway_upstream_connections',
    'Open connections to each upstream origin (HTTP/2: each carries up to 100 requests)',
    'connected',
  );
  gauge(
    'gateway_upstream_requests_active',
    'Requests on an upstream connection (sent, answer not finished), by origin',
    'running',
  );
  gauge(
    'gateway_upstream_requests_queued',
    'Requests waiting for an upstream connection (every connection full, or connecting), by origin',
    'queued',
  );
}
