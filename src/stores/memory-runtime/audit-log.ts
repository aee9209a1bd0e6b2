/**
 * The memory runtime store's audit log: per tenant, entries sorted by id (as the Redis log orders
 * its members), trimmed to the newest `limit`, durable.
 */
import { assertAuditEntry, assertAuditQuery, compareIds, toAuditEntry } from '../runtime-records.ts';
import type { AuditEntry, RuntimeAuditLog } from '../types.ts';
import type { PersistedState } from './persistence.ts';

type PersistedAuditLog = Pick<PersistedState, 'audit'>;

/** The index of the first entry whose id is not below `id` (entries sorted by id). */
function lowerBound(entries: readonly AuditEntry[], id: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareIds((entries[middle] as AuditEntry).id, id) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class MemoryAuditLog implements RuntimeAuditLog {
  /** tenantId → entries sorted by id, oldest first. */
  readonly #audit = new Map<string, AuditEntry[]>();
  readonly #limit: number;
  readonly #onDurableChange: () => void;

  /**
   * `limit`: entries kept per tenant, already checked; `onDurableChange` is called after every
   * change the state file must take up.
   */
  constructor(limit: number, onDurableChange: () => void) {
    this.#limit = limit;
    this.#onDurableChange = onDurableChange;
  }

  async appendAudit(tenantId: string, entry: AuditEntry): Promise<void> {
    assertAuditEntry(tenantId, entry);
    const copy = toAuditEntry(entry) as AuditEntry;
    let entries = this.#audit.get(tenantId);
    if (entries === undefined) {
      entries = [];
      this.#audit.set(tenantId, entries);
    }
    const index = lowerBound(entries, copy.id);
    if (entries[index]?.id === copy.id) entries[index] = copy;
    else entries.splice(index, 0, copy);
    this.#trim(entries);
    this.#onDurableChange();
  }

  async listAudit(tenantId: string, limit: number, before?: string): Promise<AuditEntry[]> {
    assertAuditQuery(tenantId, limit, before);
    const entries = this.#audit.get(tenantId) ?? [];
    const end = before === undefined ? entries.length : lowerBound(entries, before);
    return entries
      .slice(Math.max(0, end - limit), end)
      .reverse()
      .map((entry) => ({ ...entry }));
  }

  /** Takes up what the state file held (once, at start), trimmed to this log's limit. */
  restore(state: PersistedAuditLog): void {
    for (const [tenantId, stored] of Object.entries(state.audit ?? {})) {
      const entries = stored.map((entry) => toAuditEntry(entry) as AuditEntry);
      entries.sort((a, b) => compareIds(a.id, b.id));
      this.#trim(entries);
      this.#audit.set(tenantId, entries);
    }
  }

  persisted(): PersistedAuditLog {
    return { audit: Object.fromEntries(this.#audit) };
  }

  /** Drops the oldest (smallest ids) beyond the limit, as the Redis log trims its lowest members. */
  #trim(entries: AuditEntry[]): void {
    if (entries.length > this.#limit) entries.splice(0, entries.length - this.#limit);
  }
}
