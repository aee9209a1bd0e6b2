import type { ConfigKind, ConfigRecordMap } from './records.ts';

/**
 * A change announced on the config store's feed. `reset` tells a watcher that changes may have
 * been missed (feed reconnected, store wiped) and it must reload everything.
 */
export type ConfigChange = { op: 'put' | 'delete'; kind: ConfigKind; id: string } | { op: 'reset' };

export type Unsubscribe = () => Promise<void>;

/** Every record of every kind, keyed by id. */
export type ConfigSnapshot = { [K in ConfigKind]: Map<string, ConfigRecordMap[K]> };

/**
 * The config store (DESIGN section 2): derived configuration, rebuilt from the resources by the
 * reconcile step. Redis in production, memory in standalone. Only stores/ knows the key layout.
 */
export interface ConfigStore {
  get<K extends ConfigKind>(kind: K, id: string): Promise<ConfigRecordMap[K] | undefined>;
  list<K extends ConfigKind>(kind: K): Promise<ConfigRecordMap[K][]>;
  /** Every record of every kind in one round trip where the backend allows. */
  snapshot(): Promise<ConfigSnapshot>;
  /** Writes the record and announces `put` on the change feed. */
  put<K extends ConfigKind>(kind: K, id: string, record: ConfigRecordMap[K]): Promise<void>;
  /** Removes the record (no-op if absent) and announces `delete`. */
  delete(kind: ConfigKind, id: string): Promise<void>;
  /**
   * The store's epoch marker: set by the reconciler after a full sync; absent after a wipe
   * (e.g. Redis restarted without persistence), which tells the reconciler to rebuild.
   */
  getEpoch(): Promise<string | undefined>;
  setEpoch(epoch: string): Promise<void>;
  /**
   * Subscribes to the change feed. The listener also receives `reset` whenever the feed
   * (re)connects after a drop, since changes may have been missed meanwhile.
   */
  watch(listener: (change: ConfigChange) => void): Promise<Unsubscribe>;
  close(): Promise<void>;
}

/**
 * The runtime store (DESIGN section 2): balances, counters and (in later modules) cache entries,
 * denylists, rate windows and locks. Redis in production, memory in standalone (with durable
 * records persisted under STATE_DIR).
 */
export interface RuntimeStore {
  /** The tenant's platform balance in USD micros; undefined when never set. */
  getBalance(tenantId: string): Promise<number | undefined>;
  /** Sets the balance only if it has never been set; returns whether it was set. */
  initBalance(tenantId: string, micros: number): Promise<boolean>;
  /** Atomically adds `deltaMicros` (negative to debit) and returns the new balance. */
  adjustBalance(tenantId: string, deltaMicros: number): Promise<number>;
  /**
   * Atomically adds `by` to a named counter and returns its new value. With `ttlSeconds` the
   * counter expires (and is not persisted by the memory store); without, it is durable.
   */
  incrementCounter(name: string, by: number, ttlSeconds?: number): Promise<number>;
  /** A counter's value (0 when absent or expired). */
  getCounter(name: string): Promise<number>;
  /** Whether the backend answers (used by /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
