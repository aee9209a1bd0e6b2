/**
 * The memory runtime store's usage analytics: rolled-up cells per scope and UTC day, dropped once
 * their retention has passed. Memory only, like the cache: a standalone restart starts them afresh.
 */
import { emptyUsageTotals, type RuntimeUsage, USAGE_FIELDS, type UsageTotals } from '../types.ts';

interface Day {
  cells: Map<string, UsageTotals>;
  expiresAt: number;
}

export class MemoryUsage implements RuntimeUsage {
  /** `<scope>\0<day>` → the day's cells. */
  readonly #days = new Map<string, Day>();

  async recordUsage(
    scopeId: string,
    day: string,
    cell: string,
    deltas: UsageTotals,
    ttlSeconds: number,
  ): Promise<void> {
    const key = `${scopeId}\u0000${day}`;
    let entry = this.#days.get(key);
    if (entry === undefined) {
      entry = { cells: new Map(), expiresAt: 0 };
      this.#days.set(key, entry);
    }
    entry.expiresAt = Date.now() + ttlSeconds * 1000;
    let totals = entry.cells.get(cell);
    if (totals === undefined) {
      totals = emptyUsageTotals();
      entry.cells.set(cell, totals);
    }
    for (const field of USAGE_FIELDS) totals[field] += deltas[field];
  }

  async readUsage(scopeId: string, days: readonly string[]): Promise<Map<string, Map<string, UsageTotals>>> {
    const now = Date.now();
    const result = new Map<string, Map<string, UsageTotals>>();
    for (const day of days) {
      const entry = this.#days.get(`${scopeId}\u0000${day}`);
      if (entry === undefined || entry.expiresAt <= now) continue;
      result.set(day, new Map([...entry.cells].map(([cell, totals]) => [cell, { ...totals }])));
    }
    return result;
  }

  /** Drops the days past their retention. */
  sweep(now: number = Date.now()): void {
    for (const [key, entry] of this.#days) if (entry.expiresAt <= now) this.#days.delete(key);
  }
}
