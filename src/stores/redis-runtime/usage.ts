/**
 * The Redis runtime store's usage analytics: a hash per scope and UTC day
 * (`rt:usage:{<scope>}:<day>`), a field per cell and total (`<cell>|<field>`), added to by one
 * script per request (so it leaves with the request's other writes, in the same round trip), the
 * hash expiring after the retention.
 */
import { RedisScript } from '../redis-script.ts';
import { emptyUsageTotals, type RuntimeUsage, USAGE_FIELDS, type UsageTotals } from '../types.ts';
import type { RedisRuntimeConnection } from './connection.ts';

/** KEYS[1] the day's hash; ARGV[1] the cell, ARGV[2] the TTL in seconds, ARGV[3..8] the deltas. */
const ADD_USAGE = new RedisScript(
  `for i = 1, 6 do
  local delta = tonumber(ARGV[i + 2])
  if delta ~= 0 then redis.call('HINCRBY', KEYS[1], ARGV[1] .. '|' .. i, delta) end
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1`,
  1,
);

export class RedisUsage implements RuntimeUsage {
  readonly #connection: RedisRuntimeConnection;

  constructor(connection: RedisRuntimeConnection) {
    this.#connection = connection;
  }

  /** The scope's hash tag keeps a scope's days (and its cache state) in one slot. */
  #key(scopeId: string, day: string): string {
    return `${this.#connection.keys.prefix}rt:usage:{${scopeId}}:${day}`;
  }

  async recordUsage(
    scopeId: string,
    day: string,
    cell: string,
    deltas: UsageTotals,
    ttlSeconds: number,
  ): Promise<void> {
    await ADD_USAGE.run(
      this.#connection.client,
      [this.#key(scopeId, day)],
      [cell, ttlSeconds, ...USAGE_FIELDS.map((field) => Math.round(deltas[field]))],
    );
  }

  async readUsage(scopeId: string, days: readonly string[]): Promise<Map<string, Map<string, UsageTotals>>> {
    const hashes = await Promise.all(
      days.map((day) => this.#connection.client.hgetall(this.#key(scopeId, day))),
    );
    const result = new Map<string, Map<string, UsageTotals>>();
    days.forEach((day, index) => {
      const hash = hashes[index] ?? {};
      const cells = new Map<string, UsageTotals>();
      for (const [field, raw] of Object.entries(hash)) {
        const separator = field.lastIndexOf('|');
        const cell = field.slice(0, separator);
        const which = USAGE_FIELDS[Number(field.slice(separator + 1)) - 1];
        if (which === undefined) continue;
        let totals = cells.get(cell);
        if (totals === undefined) {
          totals = emptyUsageTotals();
          cells.set(cell, totals);
        }
        totals[which] = Number(raw);
      }
      if (cells.size > 0) result.set(day, cells);
    });
    return result;
  }
}
