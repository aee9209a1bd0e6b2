/**
 * The operator's Prometheus metrics, served at /metrics on its probe port: reconciles by kind and
 * result, their duration, the work queue's depth, leadership, and the informers' sync.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface OperatorMetrics {
  registry: Registry;
  reconciles: Counter<'kind' | 'result'>;
  reconcileSeconds: Histogram<'kind'>;
}

/** `health` is read at each scrape (queue depth, leadership, sync). */
export function createOperatorMetrics(
  health: () => { leader: boolean; synced: boolean; queued: number },
): OperatorMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gateway_operator_process_' });
  new Gauge({
    name: 'gateway_operator_queue_depth',
    help: 'Reconciles queued or running',
    registers: [registry],
    collect() {
      this.set(health().queued);
    },
  });
  new Gauge({
    name: 'gateway_operator_leader',
    help: '1 while this replica holds the Lease and reconciles',
    registers: [registry],
    collect() {
      this.set(health().leader ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gateway_operator_synced',
    help: '1 once every informer has listed its resources',
    registers: [registry],
    collect() {
      this.set(health().synced ? 1 : 0);
    },
  });
  return {
    registry,
    reconciles: new Counter({
      name: 'gateway_operator_reconciles_total',
      help: 'Reconciles by kind (Tenant, CachePolicy, Connection, ModelRoute) and result (ok, error)',
      labelNames: ['kind', 'result'],
      registers: [registry],
    }),
    reconcileSeconds: new Histogram({
      name: 'gateway_operator_reconcile_duration_seconds',
      help: 'Time one reconcile took, by kind',
      labelNames: ['kind'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
