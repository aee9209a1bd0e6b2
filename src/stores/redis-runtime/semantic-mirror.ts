/**
 * The pod's copy of the semantic buckets it reads from Redis, so that a lookup moves only the
 * records written since this pod last read the bucket (semantic-index.ts's SYNC script) instead
 * of the whole tail. Per bucket key: the key's incarnation (random bytes written when the key was
 * created, so a key deleted and written again is never taken for the one this pod knew), how many
 * records were ever appended to it, and the newest of its records, as in Redis. Bounded in bytes
 * over all buckets: past the bound, the buckets read least recently go. No I/O here.
 */
import { decodeSemanticRecords } from '../semantic-records.ts';
import type { SemanticCandidate, SemanticNearest } from '../types.ts';

/** What a SYNC reply says about a bucket key, read in Redis at one moment. */
export interface BucketState {
  /** Written when the key was created (8 bytes, latin1). */
  incarnation: string;
  /** Records ever appended to the key. */
  appended: number;
  /** Records the key holds now (the newest `present` of the appended ones). */
  present: number;
}

/** What this pod knows of a key, sent with a SYNC so that Redis can answer with what is new. */
export interface KnownState {
  incarnation: string;
  appended: number;
}

/** Counts of a mirror's work, read by the metrics. */
export interface SemanticMirrorStats {
  /** Syncs answered with the records appended since (often none). */
  deltaReads: number;
  /** Syncs answered with the bucket's tail (first read, or the copy too old, trimmed past, recreated). */
  fullReads: number;
  /** Syncs that found no bucket (never written, expired, deleted): the copy, if any, dropped. */
  missingReads: number;
  /** Record bytes read from Redis by syncs. */
  bytesRead: number;
  /** Bytes the mirror holds now (room for growth included). */
  bytes: number;
  buckets: number;
}

export function assertSemanticMirrorBytes(maxBytes: number): void {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
    throw new TypeError('the semantic mirror bound must be a non-negative integer of bytes');
}

class MirroredBucket {
  readonly recordBytes: number;
  incarnation: string;
  appended: number;
  present: number;
  /** The most records a scan of this bucket asked for: what the copy keeps. */
  keep: number;
  /**
   * The newest records in `data[start, end)`; past `end` is room for the next ones. Bytes once
   * written are never changed, so the candidates a scan returned (views of `data`) stay valid.
   */
  data: Buffer;
  start: number;
  end: number;

  constructor(recordBytes: number, state: BucketState, keep: number, records: Buffer) {
    this.recordBytes = recordBytes;
    this.incarnation = state.incarnation;
    this.appended = state.appended;
    this.present = state.present;
    this.keep = keep;
    this.data = Buffer.allocUnsafeSlow(records.length);
    records.copy(this.data);
    this.start = 0;
    this.end = records.length;
  }

  get held(): number {
    return (this.end - this.start) / this.recordBytes;
  }

  /** Whether the copy answers a scan of `depth` once brought up to date with the records since. */
  covers(depth: number): boolean {
    return this.held >= depth || this.held >= this.present;
  }

  /**
   * Applies the records appended after `from` up to `state.appended` (`records` ends with them);
   * false when the copy is not at a point of that sequence (another reply moved it elsewhere).
   */
  append(from: number, state: BucketState, records: Buffer): boolean {
    if (state.incarnation !== this.incarnation) return false;
    if (this.appended > state.appended) return true; // already newer than this reply
    if (this.appended < from) return false;
    const freshBytes = (state.appended - this.appended) * this.recordBytes;
    if (freshBytes > records.length) return false;
    const fresh = records.subarray(records.length - freshBytes);
    const holdBytes = Math.min(state.present, this.keep) * this.recordBytes;
    if (this.end + fresh.length <= this.data.length) {
      fresh.copy(this.data, this.end);
      this.end += fresh.length;
    } else {
      // Room for a quarter more (at least 16 records) before the next copy.
      const room = Math.max(
        16 * this.recordBytes,
        Math.floor(holdBytes / 4 / this.recordBytes) * this.recordBytes,
      );
      const grown = Buffer.allocUnsafeSlow(holdBytes + room);
      const keptOld = Math.max(0, Math.min(this.end - this.start, holdBytes - fresh.length));
      this.data.copy(grown, 0, this.end - keptOld, this.end);
      const freshKept = Math.min(fresh.length, holdBytes);
      fresh.copy(grown, keptOld, fresh.length - freshKept);
      this.data = grown;
      this.start = 0;
      this.end = keptOld + freshKept;
    }
    this.start = Math.max(this.start, this.end - holdBytes);
    this.appended = state.appended;
    this.present = state.present;
    return true;
  }

  /** The newest `depth` records, decoded (newest first, live, one per id; or the nearest). */
  scan(dimensions: number, depth: number, nowMs: number, nearest?: SemanticNearest): SemanticCandidate[] {
    const from = Math.max(this.start, this.end - depth * this.recordBytes);
    return decodeSemanticRecords(this.data.subarray(from, this.end), dimensions, nowMs, nearest);
  }
}

export class SemanticMirror {
  /** Map order is use order: the first bucket is the one read least recently. */
  readonly #buckets = new Map<string, MirroredBucket>();
  readonly #maxBytes: number;
  readonly #stats: SemanticMirrorStats = {
    deltaReads: 0,
    fullReads: 0,
    missingReads: 0,
    bytesRead: 0,
    bytes: 0,
    buckets: 0,
  };

  /** `maxBytes` 0 keeps nothing: every scan reads the bucket's tail. */
  constructor(maxBytes: number) {
    assertSemanticMirrorBytes(maxBytes);
    this.#maxBytes = maxBytes;
  }

  get stats(): Readonly<SemanticMirrorStats> {
    return { ...this.#stats, buckets: this.#buckets.size };
  }

  /**
   * What to tell Redis about `key` before a scan of `depth`: the state of a copy that will answer
   * the scan once the records since are applied; undefined asks for the tail.
   */
  known(key: string, recordBytes: number, depth: number): KnownState | undefined {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined || bucket.recordBytes !== recordBytes || !bucket.covers(depth)) return undefined;
    return { incarnation: bucket.incarnation, appended: bucket.appended };
  }

  /** The most records a copy of `key` keeps: a full read asks for at least as many. */
  keepOf(key: string): number {
    return this.#buckets.get(key)?.keep ?? 0;
  }

  /** The key holds nothing (never written, expired, deleted): forgets it. */
  missing(key: string): SemanticCandidate[] {
    this.#stats.missingReads += 1;
    this.#remove(key);
    return [];
  }

  /** The tail of `key` as read (the newest records, at most what was asked); answers the scan. */
  full(
    key: string,
    recordBytes: number,
    state: BucketState,
    records: Buffer,
    dimensions: number,
    depth: number,
    nowMs: number,
    nearest?: SemanticNearest,
  ): SemanticCandidate[] {
    this.#stats.fullReads += 1;
    this.#stats.bytesRead += records.length;
    const keep = Math.max(depth, this.keepOf(key));
    this.#remove(key);
    const bucket = new MirroredBucket(recordBytes, state, keep, records);
    this.#store(key, bucket);
    return bucket.scan(dimensions, depth, nowMs, nearest);
  }

  /**
   * The records appended to `key` since `from` (what this pod sent); answers the scan, or
   * undefined when the copy moved elsewhere meanwhile (the caller then reads the tail).
   */
  delta(
    key: string,
    from: KnownState,
    state: BucketState,
    records: Buffer,
    dimensions: number,
    depth: number,
    nowMs: number,
    nearest?: SemanticNearest,
  ): SemanticCandidate[] | undefined {
    this.#stats.deltaReads += 1;
    this.#stats.bytesRead += records.length;
    const bucket = this.#buckets.get(key);
    if (bucket === undefined || from.incarnation !== state.incarnation) return undefined;
    const before = bucket.data.length;
    if (!bucket.append(from.appended, state, records) || !bucket.covers(depth)) return undefined;
    bucket.keep = Math.max(bucket.keep, depth);
    this.#stats.bytes += bucket.data.length - before;
    this.#touch(key, bucket);
    return bucket.scan(dimensions, depth, nowMs, nearest);
  }

  #store(key: string, bucket: MirroredBucket): void {
    if (bucket.data.length > this.#maxBytes) return;
    this.#buckets.set(key, bucket);
    this.#stats.bytes += bucket.data.length;
    this.#evict(key);
  }

  #touch(key: string, bucket: MirroredBucket): void {
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    this.#evict(key);
  }

  #evict(keep: string): void {
    for (const name of this.#buckets.keys()) {
      if (this.#stats.bytes <= this.#maxBytes) return;
      if (name !== keep) this.#remove(name);
    }
    // Only `keep` is left and it alone passes the bound.
    if (this.#stats.bytes > this.#maxBytes) this.#remove(keep);
  }

  #remove(key: string): void {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return;
    this.#buckets.delete(key);
    this.#stats.bytes -= bucket.data.length;
  }
}
