/**
 * The memory runtime store's cache pieces: a byte-bounded LRU of expiring entries and a table of
 * expiring locks. Neither is ever persisted.
 */
import { constants as bufferConstants } from 'node:buffer';
import { randomBytes } from 'node:crypto';

export const DEFAULT_MAX_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * What each entry costs besides its key's characters and its value's bytes: its Map slot, the key
 * string's header, its row in the slot tables and its record header in the ring (LruCache).
 */
const ENTRY_OVERHEAD_BYTES = 128;

/** Before each value in the ring: the entry's slot (int32; WRAP marks the end's unused bytes) and the value's length (uint32). */
const RECORD_HEADER_BYTES = 8;

/**
 * Makes V8 hold a string as one run of characters. A key built by concatenation (a template
 * literal of scope, namespace, generations and hash) is held as a tree of its parts, and a Map
 * neither copies nor flattens its keys: a heap snapshot of a full cache found each key kept as a
 * chain of seven nodes plus its parts, about 600 bytes against the 128 charged. Converting a
 * string to a number is the cheapest operation that flattens it in place (the garbage collector
 * then drops the tree for the flat string); the number is not used.
 */
function flatten(text: string): void {
  Number(text);
}
const WRAP = -1;

/**
 * An entry's size as charged against the budget: what it really takes, its value's UTF-8 bytes,
 * its key's characters (cache keys are ASCII: one byte each in V8) and the overhead above.
 */
export function cacheEntryBytes(key: string, value: string): number {
  return key.length + Buffer.byteLength(value, 'utf8') + ENTRY_OVERHEAD_BYTES;
}

/**
 * A byte-bounded cache of expiring entries, evicted least recently used first, that puts nothing
 * on the garbage collector's heap per entry but its key: values live in one ring buffer of the
 * budget's size (outside the V8 heap), and an entry's place, length, expiry and charge in typed
 * arrays indexed by a slot number that a Map gives for the key. (Entries as objects, each value a
 * Buffer of its own, made every full-cache miss promote five objects and an ArrayBuffer to old
 * space and every collection walk the whole cache: a third of a miss's CPU at the default budget,
 * bench/README.md, Throughput.)
 *
 * Values are written at the ring's head; space is taken back at its tail, where the oldest record
 * is: a live entry there is evicted, a record whose entry moved or went is skipped. A read moves
 * an entry to the head (its bytes written again) when it sits in the older half of the ring's
 * contents, so the tail reaches entries in the order they were last written or read, as an LRU
 * would, without copying an entry on every read (a hot entry moves at most once per half turn).
 * Expiry is checked on read; `sweep` drops the expired.
 */
export class LruCache {
  readonly #index = new Map<string, number>();
  readonly #maxBytes: number;
  readonly #ring: Buffer;
  /** Next write position; oldest record; bytes from tail to head (records, gaps and skipped ones). */
  #head = 0;
  #tail = 0;
  #used = 0;
  #bytes = 0;
  // Per slot: the key, the record's position in the ring, the value's length, expiry, charge.
  #keys: (string | undefined)[] = [];
  #offsets = new Float64Array(64);
  #lengths = new Uint32Array(64);
  #expiries = new Float64Array(64);
  #charges = new Float64Array(64);
  #freeSlots: number[] = [];

  constructor(maxBytes: number = DEFAULT_MAX_CACHE_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
      throw new TypeError(`maxCacheBytes must be a positive integer, got ${maxBytes}`);
    }
    this.#maxBytes = maxBytes;
    // Never zeroed: the pages are the operating system's until a value is written to them.
    this.#ring = Buffer.allocUnsafeSlow(Math.min(maxBytes, bufferConstants.MAX_LENGTH));
  }

  /** Bytes currently charged against the budget. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#index.size;
  }

  get(key: string, now: number = Date.now()): string | undefined {
    const slot = this.#index.get(key);
    if (slot === undefined) return undefined;
    if ((this.#expiries[slot] as number) <= now) {
      this.#remove(slot);
      return undefined;
    }
    const start = (this.#offsets[slot] as number) + RECORD_HEADER_BYTES;
    const value = this.#ring.toString('utf8', start, start + (this.#lengths[slot] as number));
    // In the older half of the ring's contents: its bytes copied to the head, as the newest, when
    // there is room for them there without evicting anything (a read never evicts).
    // (Its distance behind the head; a record at the head's own position is a whole turn behind.)
    const offset = this.#offsets[slot] as number;
    let age = this.#head - offset;
    if (age <= 0) age += this.#ring.length;
    if (age > this.#used / 2) {
      const record = RECORD_HEADER_BYTES + (this.#lengths[slot] as number);
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
    this.delete(key);
    const length = Buffer.byteLength(value, 'utf8');
    // Larger than the whole budget: storing it would only evict everything else, then itself.
    if (key.length + length + ENTRY_OVERHEAD_BYTES > this.#maxBytes) return;
    if (length + RECORD_HEADER_BYTES > this.#ring.length) return;
    this.#insert(key, value, length, now + ttlMs);
  }

  delete(key: string): void {
    const slot = this.#index.get(key);
    if (slot !== undefined) this.#remove(slot);
  }

  sweep(now: number = Date.now()): void {
    for (const slot of this.#index.values()) {
      if ((this.#expiries[slot] as number) <= now) this.#remove(slot);
    }
  }

  clear(): void {
    this.#index.clear();
    this.#keys = [];
    this.#freeSlots = [];
    this.#head = 0;
    this.#tail = 0;
    this.#used = 0;
    this.#bytes = 0;
  }

  #insert(key: string, value: string, length: number, expiresAt: number): void {
    const record = RECORD_HEADER_BYTES + length;
    const at = this.#reserve(record, true);
    const slot = this.#newSlot();
    this.#ring.writeInt32LE(slot, at);
    this.#ring.writeUInt32LE(length, at + 4);
    this.#ring.write(value, at + RECORD_HEADER_BYTES, length, 'utf8');
    const charge = key.length + length + ENTRY_OVERHEAD_BYTES;
    flatten(key);
    this.#keys[slot] = key;
    this.#offsets[slot] = at;
    this.#lengths[slot] = length;
    this.#expiries[slot] = expiresAt;
    this.#charges[slot] = charge;
    this.#index.set(key, slot);
    this.#bytes += charge;
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
    const record = RECORD_HEADER_BYTES + this.#ring.readUInt32LE(this.#tail + 4);
    if (this.#keys[slot] !== undefined && this.#offsets[slot] === this.#tail) this.#remove(slot);
    this.#used -= record;
    this.#tail += record;
    if (this.#tail === size) this.#tail = 0;
  }

  /** Drops an entry; its record stays in the ring until the tail passes it. */
  #remove(slot: number): void {
    const key = this.#keys[slot] as string;
    this.#index.delete(key);
    this.#keys[slot] = undefined;
    this.#offsets[slot] = -1;
    this.#bytes -= this.#charges[slot] as number;
    this.#freeSlots.push(slot);
  }

  #newSlot(): number {
    const free = this.#freeSlots.pop();
    if (free !== undefined) return free;
    const slot = this.#keys.length;
    this.#keys.push(undefined);
    if (slot === this.#offsets.length) {
      const capacity = slot * 2;
      this.#offsets = grow(this.#offsets, new Float64Array(capacity));
      this.#lengths = grow(this.#lengths, new Uint32Array(capacity));
      this.#expiries = grow(this.#expiries, new Float64Array(capacity));
      this.#charges = grow(this.#charges, new Float64Array(capacity));
    }
    return slot;
  }
}

function grow<T extends Float64Array | Uint32Array>(from: T, to: T): T {
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
