/**
 * The memory runtime store's cache pieces: a byte-bounded LRU of expiring entries and a table of
 * expiring locks. Neither is ever persisted.
 */
import { randomBytes } from 'node:crypto';

export const DEFAULT_MAX_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * What each entry costs besides its key's characters and its value's bytes, measured (bench
 * `memory-detail.ts`): the entry record, its Map slot, the key string's header, and the value's
 * Buffer (a Uint8Array, its ArrayBuffer and the allocator's header around the bytes).
 */
const ENTRY_OVERHEAD_BYTES = 320;

interface CacheEntry {
  key: string;
  /** The value's UTF-8, outside the V8 heap (see LruCache). */
  value: Buffer;
  expiresAt: number;
  bytes: number;
  /** Neighbours in the recency list: `newer` towards the most recent end. */
  older: CacheEntry | undefined;
  newer: CacheEntry | undefined;
}

/**
 * An entry's size as charged against the budget: what it really takes, its value's UTF-8 bytes,
 * its key's characters (cache keys are ASCII: one byte each in V8) and the overhead above.
 */
export function cacheEntryBytes(key: string, value: string): number {
  return key.length + Buffer.byteLength(value, 'utf8') + ENTRY_OVERHEAD_BYTES;
}

/**
 * The value's UTF-8 in a Buffer of its own (never a slice of Node's shared pool, which it would
 * pin), so that `release` can free exactly its bytes.
 */
function encode(value: string): Buffer {
  const length = Buffer.byteLength(value, 'utf8');
  const buffer = Buffer.allocUnsafeSlow(length);
  buffer.write(value, 0, length, 'utf8');
  return buffer;
}

/**
 * Frees a value's bytes now rather than when the garbage collector next collects its wrapper:
 * detaching the ArrayBuffer (a transfer to length 0) hands its memory back to the allocator at
 * once, where the next entry written reuses it. Left to the collector, an evicted entry's bytes
 * stayed resident until a full GC reached its wrapper in old space: under a steady stream of
 * misses that was half the budget again (bench/README.md, Throughput). Only for a Buffer made by
 * `encode` (its ArrayBuffer is its own) and never read again: `get` hands out copies.
 */
function release(value: Buffer): void {
  const backing = value.buffer;
  if (backing instanceof ArrayBuffer) backing.transfer(0);
}

/**
 * Entries by key in a Map, and in a doubly linked recency list. Values are kept as UTF-8 Buffers,
 * outside the V8 heap: the budget is then what the entries really take, and a full cache does not
 * make the garbage collector's old space (and the pages it keeps committed) grow with it. Keys
 * stay strings (the Map's). a read moves the entry to the
 * most recent end in O(1), eviction takes from the least recent end. (Moving an entry by deleting
 * and re-inserting its Map key would be simpler, but V8 keeps the deleted slots in the bucket chain
 * until a rehash, so every read of a hot key gets slower as the store grows.) Expiry is checked on
 * read; `sweep` drops the expired.
 */
export class LruCache {
  readonly #entries = new Map<string, CacheEntry>();
  readonly #maxBytes: number;
  #bytes = 0;
  #oldest: CacheEntry | undefined;
  #newest: CacheEntry | undefined;

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

  #unlink(entry: CacheEntry): void {
    if (entry.older === undefined) this.#oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) this.#newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }

  #linkNewest(entry: CacheEntry): void {
    entry.older = this.#newest;
    entry.newer = undefined;
    if (this.#newest === undefined) this.#oldest = entry;
    else this.#newest.newer = entry;
    this.#newest = entry;
  }

  #remove(entry: CacheEntry): void {
    this.#entries.delete(entry.key);
    this.#unlink(entry);
    this.#bytes -= entry.bytes;
    release(entry.value);
  }

  get(key: string, now: number = Date.now()): string | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#remove(entry);
      return undefined;
    }
    if (entry !== this.#newest) {
      this.#unlink(entry);
      this.#linkNewest(entry);
    }
    return entry.value.toString('utf8');
  }

  /** Stores the entry as the most recent, evicting the least recent ones beyond the budget. */
  set(key: string, value: string, ttlMs: number, now: number = Date.now()): void {
    this.delete(key);
    const encoded = encode(value);
    const bytes = key.length + encoded.length + ENTRY_OVERHEAD_BYTES;
    // Larger than the whole budget: storing it would only evict everything else, then itself.
    if (bytes > this.#maxBytes) return;
    const entry: CacheEntry = {
      key,
      value: encoded,
      expiresAt: now + ttlMs,
      bytes,
      older: undefined,
      newer: undefined,
    };
    this.#entries.set(key, entry);
    this.#linkNewest(entry);
    this.#bytes += bytes;
    // Least recent first (expired ones included: the sweep may not have reached them yet).
    while (this.#bytes > this.#maxBytes && this.#oldest !== undefined) this.#remove(this.#oldest);
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) this.#remove(entry);
  }

  sweep(now: number = Date.now()): void {
    for (const entry of this.#entries.values()) {
      if (entry.expiresAt <= now) this.#remove(entry);
    }
  }

  clear(): void {
    for (const entry of this.#entries.values()) release(entry.value);
    this.#entries.clear();
    this.#oldest = undefined;
    this.#newest = undefined;
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
