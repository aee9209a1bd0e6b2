/**
 * The runtime store's health, read when Prometheus scrapes: whether the store answers (the circuit
 * breaker closed), how many outages there were, and the spend journal (DESIGN section 2).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * What the metrics read of the store's circuit breaker (stores/store-breaker.ts) and of the spend
 * journal (billing/spend-journal.ts), named here so that observability imports neither folder:
 * both import observability for their logger.
 */
export interface StoreBreakerReadings {
  readonly open: boolean;
  readonly outages: number;
}

export interface SpendJournalReadings {
  readonly size: number;
  readonly stats: {
    readonly journaled: number;
    readonly replayed: number;
    readonly withoutBalance: number;
    readonly dropped: number;
    readonly awaiting: number;
  };
}

export function registerStoreMetrics(
  registry: Registry,
  sources: { breaker: StoreBreakerReadings | undefined; journal: SpendJournalReadings },
): void {
  const { breaker, journal } = sources;
  new Gauge({
    name: 'gateway_runtime_store_up',
    help: '1 while the runtime store answers, 0 while the gateway serves degraded (its circuit breaker open)',
    registers: [registry],
    collect() {
      this.set(breaker?.open === true ? 0 : 1);
    },
  });
  new Gauge({
    name: 'gateway_spend_journal_entries',
    help: 'Balances and counters with spend journaled during an outage, not yet applied',
    registers: [registry],
    collect() {
      this.set(journal.size);
    },
  });
  new Gauge({
    name: 'gateway_spend_journal_awaiting',
    help: 'Spend changes sent to a runtime store that has not answered them yet (a stalled Redis): applied if it answers, journaled if the connection drops',
    registers: [registry],
    collect() {
      this.set(journal.stats.awaiting);
    },
  });
  // Counters kept by their sources, read at scrape time.
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  counter(
    'gateway_runtime_store_outages_total',
    'Times the runtime store became unreachable since the process started',
    () => breaker?.outages ?? 0,
  );
  counter(
    'gateway_spend_journal_journaled_total',
    'Spend changes journaled since start (the store was unreachable)',
    () => journal.stats.journaled,
  );
  counter(
    'gateway_spend_journal_replayed_total',
    'Journaled spend operations applied after an outage, since start',
    () => journal.stats.replayed,
  );
  counter(
    'gateway_spend_journal_without_balance_total',
    'Journaled balance debits replayed where the tenant had no balance record (postpaid, or the record gone), since start',
    () => journal.stats.withoutBalance,
  );
  counter(
    'gateway_spend_journal_dropped_total',
    'Spend changes dropped because the journal was full, since start',
    () => journal.stats.dropped,
  );
}
