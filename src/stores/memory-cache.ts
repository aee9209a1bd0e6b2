/**
 * The memory runtime store's cache pieces: a byte-bounded LRU of expiring entries and a table of
 * expiring locks. Neither is ever persisted.
 */
import { randomBytes } from 'node:crypto';

export const DEFAULT_MAX_CACHE_BYTES = 256 * 1024 * 1024;

/** A rough allowance for the map slot and record around each entry. */
const ENTRY_OVERHEAD_BYTES = 64;

interface CacheEntry {
  value: string;
  expiresAt: number;
  bytes: number;
}

/**
 * An entry's size as charged against the budget: its key and value at two bytes per UTF-16 code
 * unit (what V8 needs at worst; O(1) to compute, unlike a UTF-8 byte count) plus an overhead.
 */
export function cacheEntryBytes(key: string, value: string): number {
  return (key.length + value.length) * 2 + ENTRY_OVERHEAD_BYTES;
}

/**
 * Entries in a Map, whose insertion order is the recency order: a read moves the entry to the
 * end, eviction takes from the front. Expiry is checked on read; `sweep` drops the expired.
 */
export class LruCache {
  readonly #entries = new Map<string, CacheEntry>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number = DEFAULT_MAX_CACHE_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
      throw new TypeError(`maxCacheBytes must be a positive integer, got ${maxBytes}`);
    }
    this.#maxBytes = maxBytes;
  }

  /** Bytes currently charged against the budget. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, now: number = Date.now()): string | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= now) {
      this.#bytes -= entry.bytes;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores the entry as the most recent, evicting the least recent ones beyond the budget. */
  set(key: string, value: string, ttlMs: number, now: number = Date.now()): void {
    this.delete(key);
    const bytes = cacheEntryBytes(key, value);
    // Larger than the whole budget: storing it would only evict everything else, then itself.
    if (bytes > this.#maxBytes) return;
    this.#entries.set(key, { value, expiresAt: now + ttlMs, bytes });
    this.#bytes += bytes;
    // Least recent first (expired ones included: the sweep may not have reached them yet).
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  sweep(now: number = Date.now()): void {
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(key);
        this.#bytes -= entry.bytes;
      }
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}

/** A random lock token: unguessable, so only the holder can release. */
export function newLockToken(): string {
  return randomBytes(16).toString('base64url');
}

/** Locks by name, each with a token and an expiry; as SET NX PX and a compare-and-delete. */
export class LockTable {
  readonly #locks = new Map<string, { token: string; expiresAt: number }>();

  acquire(name: string, ttlMs: number, now: number = Date.now()): string | undefined {
    const held = this.#locks.get(name);
    if (held !== undefined && held.expiresAt > now) return undefined;
    const token = newLockToken();
    this.#locks.set(name, { token, expiresAt: now + ttlMs });
    return token;
  }

  release(name: string, token: string): void {
    if (this.#locks.get(name)?.token === token) this.#locks.delete(name);
  }

  sweep(now: number = Date.now()): void {
    for (const [name, lock] of this.#locks) {
      if (lock.expiresAt <= now) this.#locks.delete(name);
    }
  }

  clear(): void {
    this.#locks.clear();
  }
}
