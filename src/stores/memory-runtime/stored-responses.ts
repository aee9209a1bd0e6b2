/**
 * The memory runtime store's stored responses (response-records.ts): records per workspace scope
 * and id, each with its expiry, within a byte budget past which the least recently used go. Memory
 * only, like the cache: a standalone gateway's stored responses die with the process (they can be
 * large, and the state file is rewritten whole on every durable change).
 */
import { assertStoredResponseRead, assertStoredResponseWrite } from '../response-records.ts';
import type { RuntimeStoredResponses } from '../types.ts';

/** The default budget of the records, keys included, at two bytes a character. */
export const DEFAULT_MAX_STORED_RESPONSE_BYTES = 64 * 1024 * 1024;

interface Entry {
  record: string;
  expiresAtMs: number;
  bytes: number;
}

/** The map key of a record: scopes never contain a NUL, so no two scopes' ids can meet. */
const keyOf = (scope: string, id: string): string => `${scope}\u0000${id}`;

export class MemoryStoredResponses implements RuntimeStoredResponses {
  /** In least recently used order: a read or a write moves an entry to the end. */
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number = DEFAULT_MAX_STORED_RESPONSE_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0)
      throw new TypeError(`maxBytes must be a positive integer, got ${maxBytes}`);
    this.#maxBytes = maxBytes;
  }

  async putStoredResponse(
    scope: string,
    id: string,
    record: string,
    ttlMs: number,
    keepAlive: readonly string[],
  ): Promise<void> {
    assertStoredResponseWrite(scope, id, record, ttlMs, keepAlive);
    const now = Date.now();
    const expiresAtMs = now + ttlMs;
    this.#remove(keyOf(scope, id));
    const key = keyOf(scope, id);
    const entry = { record, expiresAtMs, bytes: (key.length + record.length) * 2 };
    // A record larger than the whole budget is not kept (as if evicted at once).
    if (entry.bytes > this.#maxBytes) return;
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    for (const other of keepAlive) {
      const earlier = this.#entries.get(keyOf(scope, other));
      if (earlier !== undefined && earlier.expiresAtMs > now) earlier.expiresAtMs = expiresAtMs;
    }
    this.#evict();
  }

  async getStoredResponses(scope: string, ids: readonly string[]): Promise<Array<string | undefined>> {
    assertStoredResponseRead(scope, ids);
    const now = Date.now();
    return ids.map((id) => {
      const key = keyOf(scope, id);
      const entry = this.#entries.get(key);
      if (entry === undefined) return undefined;
      this.#entries.delete(key);
      if (entry.expiresAtMs <= now) {
        this.#bytes -= entry.bytes;
        return undefined;
      }
      this.#entries.set(key, entry);
      return entry.record;
    });
  }

  async deleteStoredResponse(scope: string, id: string): Promise<boolean> {
    assertStoredResponseRead(scope, [id]);
    const entry = this.#remove(keyOf(scope, id));
    return entry !== undefined && entry.expiresAtMs > Date.now();
  }

  /** Drops what expired by `now`. */
  sweep(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.expiresAtMs <= now) this.#remove(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #remove(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    return entry;
  }

  /** The least recently used go until the budget holds. */
  #evict(): void {
    for (const key of this.#entries.keys()) {
      if (this.#bytes <= this.#maxBytes) return;
      this.#remove(key);
    }
  }
}
