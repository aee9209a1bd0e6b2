/**
 * Model routes' circuit breakers, read when Prometheus scrapes: how many targets this pod skips
 * now. A count without labels: the targets are named by tenants, and no tenant-controlled string
 * becomes a label value.
 */
import { Gauge, type Registry } from 'prom-client';

export function registerRouteMetrics(registry: Registry, openCircuits: () => number): void {
  new Gauge({
    name: 'gateway_route_open_circuits',
    help: 'Model route targets whose circuit is open (or half-open, awaiting its probe) on this pod',
    registers: [registry],
    collect() {
      this.set(openCircuits());
    },
  });
}
