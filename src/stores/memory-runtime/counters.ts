/**
 * The memory runtime store's balances and counters: spend, budgets and rate windows, and the cap
 * reservations that token limits and connection caps make on them. Balances and counters without
 * a TTL are durable; a counter with a TTL is durable only once created or touched with
 * `keep: 'durable'` (spend, kept with its expiry), else it is a rate window held in memory alone.
 * An expired counter is dropped on read, by the sweep and on load.
 */
import {
  assertReservation,
  assertSafeInteger,
  assertSpendChange,
  assertTtlSeconds,
} from '../counter-records.ts';
import {
  type CounterKeep,
  type RuntimeCounters,
  SPEND_OPERATION_TTL_MS,
  type SpendChange,
  type SpendOnceOutcome,
} from '../types.ts';
import type { PersistedState } from './persistence.ts';

interface ExpiringCounter {
  value: number;
  expiresAt: number;
  /** Persisted (spend) rather than memory only (a rate window). */
  durable: boolean;
}

type PersistedCounters = Pick<PersistedState, 'balances' | 'counters' | 'expiringCounters'>;

export class MemoryCounters implements RuntimeCounters {
  readonly #balances = new Map<string, number>();
  readonly #durableCounters = new Map<string, number>();
  readonly #expiringCounters = new Map<string, ExpiringCounter>();
  /** Operation ids applied by applySpendOnce, until when they are remembered. */
  readonly #appliedOperations = new Map<string, number>();
  readonly #onDurableChange: () => void;

  /** `onDurableChange` is called after every change the state file must take up. */
  constructor(onDurableChange: () => void) {
    this.#onDurableChange = onDurableChange;
  }

  async getBalance(tenantId: string): Promise<number | undefined> {
    return this.#balances.get(tenantId);
  }

  async initBalance(tenantId: string, micros: number): Promise<boolean> {
    assertSafeInteger('micros', micros);
    if (this.#balances.has(tenantId)) return false;
    this.#balances.set(tenantId, micros);
    this.#onDurableChange();
    return true;
  }

  async adjustBalance(tenantId: string, deltaMicros: number): Promise<number> {
    assertSafeInteger('deltaMicros', deltaMicros);
    const balance = (this.#balances.get(tenantId) ?? 0) + deltaMicros;
    this.#balances.set(tenantId, balance);
    this.#onDurableChange();
    return balance;
  }

  /**
   * Mirrors Redis INCRBY + EXPIRE NX: the TTL is set when the counter has none (usually at
   * creation) and is kept by later increments, with or without a TTL argument.
   */
  async incrementCounter(
    name: string,
    by: number,
    ttlSeconds?: number,
    keep: CounterKeep = 'memory',
  ): Promise<number> {
    assertSafeInteger('by', by);
    assertTtlSeconds(ttlSeconds);
    return this.#increment(name, by, ttlSeconds, keep);
  }

  async getCounter(name: string): Promise<number> {
    return this.#counterValue(name);
  }

  async reserveWithinCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
    keep: CounterKeep = 'memory',
  ): Promise<{ ok: boolean; value: number }> {
    assertReservation(amount, cap, ttlSeconds);
    const current = this.#counterValue(name);
    if (current + amount > cap) return { ok: false, value: current };
    return { ok: true, value: this.#increment(name, amount, ttlSeconds, keep) };
  }

  async reserveUpToCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
    keep: CounterKeep = 'memory',
  ): Promise<{ ok: boolean; reserved: number; value: number }> {
    assertReservation(amount, cap, ttlSeconds);
    const current = this.#counterValue(name);
    if (current >= cap || amount <= 0) return { ok: current < cap, reserved: 0, value: current };
    const reserved = Math.min(amount, cap - current);
    return { ok: true, reserved, value: this.#increment(name, reserved, ttlSeconds, keep) };
  }

  async applySpendOnce(change: SpendChange, operationId: string): Promise<SpendOnceOutcome> {
    assertSpendChange(change, operationId);
    const nowMs = Date.now();
    if ((this.#appliedOperations.get(operationId) ?? 0) > nowMs) return 'repeat';
    this.#appliedOperations.set(operationId, nowMs + SPEND_OPERATION_TTL_MS);
    if (change.kind === 'balance') {
      if (!this.#balances.has(change.tenantId)) return 'no-balance';
      await this.adjustBalance(change.tenantId, change.deltaMicros);
    } else this.#increment(change.name, change.by, change.ttlSeconds, change.keep ?? 'durable');
    return 'applied';
  }

  /** Drops the counters expired by `now`; the next write leaves them out anyway. */
  sweep(now: number): void {
    for (const [name, counter] of this.#expiringCounters) {
      if (counter.expiresAt <= now) this.#expiringCounters.delete(name);
    }
    for (const [operationId, until] of this.#appliedOperations) {
      if (until <= now) this.#appliedOperations.delete(operationId);
    }
  }

  /** Takes up what the state file held (once, at start). */
  restore(state: PersistedCounters): void {
    for (const [tenantId, micros] of Object.entries(state.balances)) this.#balances.set(tenantId, micros);
    for (const [name, value] of Object.entries(state.counters)) this.#durableCounters.set(name, value);
    for (const [name, { value, expiresAt }] of Object.entries(state.expiringCounters ?? {})) {
      this.#expiringCounters.set(name, { value, expiresAt, durable: true });
    }
    this.sweep(Date.now());
  }

  /** What the state file keeps: balances, counters without a TTL, and durable ones still live at `now`. */
  persisted(now: number): PersistedCounters {
    return {
      balances: Object.fromEntries(this.#balances),
      counters: Object.fromEntries(this.#durableCounters),
      expiringCounters: Object.fromEntries(
        [...this.#expiringCounters]
          .filter(([, counter]) => counter.durable && counter.expiresAt > now)
          .map(([name, { value, expiresAt }]) => [name, { value, expiresAt }]),
      ),
    };
  }

  #counterValue(name: string): number {
    return this.#liveExpiringCounter(name)?.value ?? this.#durableCounters.get(name) ?? 0;
  }

  #increment(name: string, by: number, ttlSeconds: number | undefined, keep: CounterKeep): number {
    const expiring = this.#liveExpiringCounter(name);
    if (expiring !== undefined) {
      expiring.value += by;
      if (keep === 'durable') expiring.durable = true;
      if (expiring.durable) this.#onDurableChange();
      return expiring.value;
    }
    const value = (this.#durableCounters.get(name) ?? 0) + by;
    if (ttlSeconds === undefined) {
      this.#durableCounters.set(name, value);
    } else {
      const wasDurable = this.#durableCounters.delete(name);
      const durable = keep === 'durable';
      this.#expiringCounters.set(name, { value, expiresAt: Date.now() + ttlSeconds * 1000, durable });
      if (wasDurable || durable) this.#onDurableChange();
      return value;
    }
    this.#onDurableChange();
    return value;
  }

  #liveExpiringCounter(name: string): ExpiringCounter | undefined {
    const counter = this.#expiringCounters.get(name);
    if (counter === undefined) return undefined;
    if (counter.expiresAt > Date.now()) return counter;
    this.#expiringCounters.delete(name);
    return undefined;
  }
}
