/**
 * The memory runtime store's cache pieces: a byte-bounded LRU of expiring entries and a table of
 * expiring locks. Neither is ever persisted.
 */
import { constants as bufferConstants } from 'node:buffer';
import { randomBytes } from 'node:crypto';

export const DEFAULT_MAX_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * What each entry costs besides its key's and its value's bytes: its record header in the ring,
 * its row in the slot tables and its share of the index Map (LruCache).
 */
const ENTRY_OVERHEAD_BYTES = 128;

/** A record's header in the ring: its slot, its value's length, its key's length. */
const RECORD_HEADER_BYTES = 12;
const WRAP = -1;
/** No slot: the end of a hash chain, or a free slot's offset. */
const NONE = -1;

/**
 * An entry's size as charged against the budget: what it really takes, its key's and its value's
 * UTF-8 bytes (both are in the ring) and the overhead above.
 */
export function cacheEntryBytes(key: string, value: string): number {
  return Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8') + ENTRY_OVERHEAD_BYTES;
}

/**
 * The index's hash of a key: 32-bit FNV-1a over its UTF-16 code units, cut to 30 bits so that V8
 * keeps it as a small integer (no number object per entry). Keys that share one are chained.
 */
export function cacheKeyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) {
    hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  }
  return hash & 0x3fffffff;
}

/**
 * A byte-bounded cache of expiring entries, evicted least recently used first, that puts nothing
 * on the garbage collector's heap per entry but its row in a Map of small integers: keys and
 * values live in one ring buffer of the budget's size (outside the V8 heap), and an entry's place,
 * lengths, expiry, charge and hash chain in typed arrays indexed by a slot number. The Map goes
 * from a key's hash to the first slot of its chain; a lookup compares the key with the bytes in
 * the ring. (Entries as objects, each value a Buffer of its own, made every full-cache miss promote
 * five objects and an ArrayBuffer to old space and every collection walk the whole cache: a third
 * of a miss's CPU at the default budget. Keys as strings in a Map cost about 150 bytes of heap an
 * entry, 13 MiB at the default budget, for the collector to trace: bench/README.md, Throughput.)
 *
 * Records are written at the ring's head; space is taken back at its tail, where the oldest record
 * is: a live entry there is evicted, a record whose entry moved or went is skipped. A read moves
 * an entry to the head (its bytes written again) when it sits in the older half of the ring's
 * contents, so the tail reaches entries in the order they were last written or read, as an LRU
 * would, without copying an entry on every read (a hot entry moves at most once per half turn).
 * Expiry is checked on read; `sweep` drops the expired.
 */
export class LruCache {
  /** A key's hash → the first slot of the entries whose keys have it. */
  readonly #index = new Map<number, number>();
  readonly #maxBytes: number;
  readonly #ring: Buffer;
  /** Next write position; oldest record; bytes from tail to head (records, gaps and skipped ones). */
  #head = 0;
  #tail = 0;
  #used = 0;
  #bytes = 0;
  #size = 0;
  /** Slots ever handed out (live or free). */
  #slots = 0;
  // Per slot: the record's position in the ring (NONE: a free slot), the value's and the key's
  // lengths in bytes, expiry, charge, the key's hash and the next slot of its chain.
  #offsets = new Float64Array(64);
  #lengths = new Uint32Array(64);
  #keyLengths = new Uint32Array(64);
  #expiries = new Float64Array(64);
  #charges = new Float64Array(64);
  #hashes = new Int32Array(64);
  #next = new Int32Array(64);
  #freeSlots: number[] = [];

  constructor(maxBytes: number = DEFAULT_MAX_CACHE_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
      throw new TypeError(`maxCacheBytes must be a positive integer, got ${maxBytes}`);
    }
    this.#maxBytes = maxBytes;
    // Never zeroed: the pages are the operating system's until a record is written to them.
    this.#ring = Buffer.allocUnsafeSlow(Math.min(maxBytes, bufferConstants.MAX_LENGTH));
  }

  /** Bytes currently charged against the budget. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#size;
  }

  get(key: string, now: number = Date.now()): string | undefined {
    const slot = this.#find(key, cacheKeyHash(key));
    if (slot === NONE) return undefined;
    if ((this.#expiries[slot] as number) <= now) {
      this.#remove(slot);
      return undefined;
    }
    const offset = this.#offsets[slot] as number;
    const start = offset + RECORD_HEADER_BYTES + (this.#keyLengths[slot] as number);
    const value = this.#ring.toString('utf8', start, start + (this.#lengths[slot] as number));
    // In the older half of the ring's contents: its bytes copied to the head, as the newest, when
    // there is room for them there without evicting anything (a read never evicts).
    // (Its distance behind the head; a record at the head's own position is a whole turn behind.)
    let age = this.#head - offset;
    if (age <= 0) age += this.#ring.length;
    if (age > this.#used / 2) {
      const record = start + (this.#lengths[slot] as number) - offset;
      const at = this.#reserve(record, false);
      if (at !== -1) {
        this.#ring.copy(this.#ring, at, offset, offset + record);
        this.#offsets[slot] = at;
      }
    }
    return value;
  }

  /** Stores the entry as the most recent, evicting the least recent ones beyond the budget. */
  set(key: string, value: string, ttlMs: number, now: number = Date.now()): void {
    const hash = cacheKeyHash(key);
    const previous = this.#find(key, hash);
    if (previous !== NONE) this.#remove(previous);
    const keyLength = Buffer.byteLength(key, 'utf8');
    const length = Buffer.byteLength(value, 'utf8');
    // Larger than the whole budget: storing it would only evict everything else, then itself.
    if (keyLength + length + ENTRY_OVERHEAD_BYTES > this.#maxBytes) return;
    if (RECORD_HEADER_BYTES + keyLength + length > this.#ring.length) return;
    this.#insert(key, hash, keyLength, value, length, now + ttlMs);
  }

  delete(key: string): void {
    const slot = this.#find(key, cacheKeyHash(key));
    if (slot !== NONE) this.#remove(slot);
  }

  sweep(now: number = Date.now()): void {
    for (let slot = 0; slot < this.#slots; slot += 1) {
      if ((this.#offsets[slot] as number) !== NONE && (this.#expiries[slot] as number) <= now)
        this.#remove(slot);
    }
  }

  clear(): void {
    this.#index.clear();
    this.#slots = 0;
    this.#freeSlots = [];
    this.#head = 0;
    this.#tail = 0;
    this.#used = 0;
    this.#bytes = 0;
    this.#size = 0;
  }

  /** The live slot holding `key`, or NONE. */
  #find(key: string, hash: number): number {
    let slot = this.#index.get(hash) ?? NONE;
    while (slot !== NONE && !this.#holds(slot, key)) slot = this.#next[slot] as number;
    return slot;
  }

  /** Whether the record of `slot` has `key` for its key (byte by byte when the key is ASCII). */
  #holds(slot: number, key: string): boolean {
    const keyLength = this.#keyLengths[slot] as number;
    const start = (this.#offsets[slot] as number) + RECORD_HEADER_BYTES;
    if (keyLength === key.length) {
      const ring = this.#ring;
      for (let index = 0; index < keyLength; index += 1) {
        const code = key.charCodeAt(index);
        // A non-ASCII key takes more bytes than it has code units: not this one.
        if (code >= 0x80 || ring[start + index] !== code) return false;
      }
      return true;
    }
    return keyLength > key.length && this.#ring.toString('utf8', start, start + keyLength) === key;
  }

  #insert(
    key: string,
    hash: number,
    keyLength: number,
    value: string,
    length: number,
    expiresAt: number,
  ): void {
    const record = RECORD_HEADER_BYTES + keyLength + length;
    const at = this.#reserve(record, true);
    const slot = this.#newSlot();
    this.#ring.writeInt32LE(slot, at);
    this.#ring.writeUInt32LE(length, at + 4);
    this.#ring.writeUInt32LE(keyLength, at + 8);
    this.#ring.write(key, at + RECORD_HEADER_BYTES, keyLength, 'utf8');
    this.#ring.write(value, at + RECORD_HEADER_BYTES + keyLength, length, 'utf8');
    const charge = keyLength + length + ENTRY_OVERHEAD_BYTES;
    this.#offsets[slot] = at;
    this.#lengths[slot] = length;
    this.#keyLengths[slot] = keyLength;
    this.#expiries[slot] = expiresAt;
    this.#charges[slot] = charge;
    this.#hashes[slot] = hash;
    this.#next[slot] = this.#index.get(hash) ?? NONE;
    this.#index.set(hash, slot);
    this.#bytes += charge;
    this.#size += 1;
    // Least recent first (expired ones included: the sweep may not have reached them yet).
    while (this.#bytes > this.#maxBytes && this.#used > 0) this.#advanceTail();
  }

  /**
   * Room for `record` bytes at the head, taken back from the tail as needed (`evict`), or only if
   * it is free already (else -1); returns where.
   */
  #reserve(record: number, evict: boolean): number {
    const size = this.#ring.length;
    for (;;) {
      if (this.#used === 0) {
        this.#head = 0;
        this.#tail = 0;
      }
      if (this.#head >= this.#tail && this.#used < size) {
        // Free space runs from the head to the end, then from the start to the tail.
        if (size - this.#head >= record) return this.#take(record);
        if (this.#tail >= record) {
          this.#wrap();
          continue;
        }
      } else if (this.#tail - this.#head >= record) {
        return this.#take(record);
      }
      if (!evict) return -1;
      this.#advanceTail();
    }
  }

  #take(record: number): number {
    const at = this.#head;
    this.#head += record;
    if (this.#head === this.#ring.length) this.#head = 0;
    this.#used += record;
    return at;
  }

  /** The bytes from the head to the end go unused this turn (a marker says so when it fits). */
  #wrap(): void {
    const gap = this.#ring.length - this.#head;
    if (gap >= 4) this.#ring.writeInt32LE(WRAP, this.#head);
    this.#used += gap;
    this.#head = 0;
  }

  /** Takes back the oldest record: evicts its entry if it still lives there, else skips it. */
  #advanceTail(): void {
    if (this.#used === 0) return;
    const size = this.#ring.length;
    const gap = size - this.#tail;
    if (gap < RECORD_HEADER_BYTES || this.#ring.readInt32LE(this.#tail) === WRAP) {
      this.#used -= gap;
      this.#tail = 0;
      return;
    }
    const slot = this.#ring.readInt32LE(this.#tail);
    const record =
      RECORD_HEADER_BYTES + this.#ring.readUInt32LE(this.#tail + 4) + this.#ring.readUInt32LE(this.#tail + 8);
    if (this.#offsets[slot] === this.#tail) this.#remove(slot);
    this.#used -= record;
    this.#tail += record;
    if (this.#tail === size) this.#tail = 0;
  }

  /** Drops an entry; its record stays in the ring until the tail passes it. */
  #remove(slot: number): void {
    const hash = this.#hashes[slot] as number;
    const next = this.#next[slot] as number;
    const first = this.#index.get(hash) as number;
    if (first === slot) {
      if (next === NONE) this.#index.delete(hash);
      else this.#index.set(hash, next);
    } else {
      let previous = first;
      while ((this.#next[previous] as number) !== slot) previous = this.#next[previous] as number;
      this.#next[previous] = next;
    }
    this.#offsets[slot] = NONE;
    this.#bytes -= this.#charges[slot] as number;
    this.#size -= 1;
    this.#freeSlots.push(slot);
  }

  #newSlot(): number {
    const free = this.#freeSlots.pop();
    if (free !== undefined) return free;
    const slot = this.#slots;
    this.#slots += 1;
    if (slot === this.#offsets.length) {
      const capacity = slot * 2;
      this.#offsets = grow(this.#offsets, new Float64Array(capacity));
      this.#lengths = grow(this.#lengths, new Uint32Array(capacity));
      this.#keyLengths = grow(this.#keyLengths, new Uint32Array(capacity));
      this.#expiries = grow(this.#expiries, new Float64Array(capacity));
      this.#charges = grow(this.#charges, new Float64Array(capacity));
      this.#hashes = grow(this.#hashes, new Int32Array(capacity));
      this.#next = grow(this.#next, new Int32Array(capacity));
    }
    return slot;
  }
}

function grow<T extends Float64Array | Uint32Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
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
