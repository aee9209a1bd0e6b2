/**
 * The memory runtime store's semantic index: per bucket the encoded records end to end, newest
 * last (the layout the Redis store keeps, semantic-records.ts), with the bucket's expiry. Bounded
 * in total bytes (room reserved for growth included): past the budget, the buckets written least
 * recently go. Memory only, like the
 * entries the candidates point at.
 */
import {
  assertSemanticBucket,
  assertSemanticCandidate,
  assertSemanticScan,
  decodeSemanticRecords,
  encodeSemanticRecord,
  semanticRecordBytes,
} from '../semantic-records.ts';
import type { RuntimeSemanticIndex, SemanticCandidate, SemanticNearest } from '../types.ts';

interface Bucket {
  /** The records in `data[0, length)`; the rest is room for the next ones. */
  data: Buffer;
  length: number;
  expiresAtMs: number;
}

/** Room for this many records at first; doubled as a bucket grows. */
const FIRST_RECORDS = 8;

export class MemorySemanticIndex implements RuntimeSemanticIndex {
  /** Insertion order is write order: the first bucket is the one written least recently. */
  readonly #buckets = new Map<string, Bucket>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  async addSemanticCandidate(
    bucket: string,
    candidate: SemanticCandidate,
    maxCandidates: number,
    ttlMs: number,
  ): Promise<void> {
    assertSemanticBucket(bucket);
    assertSemanticCandidate(candidate, maxCandidates, ttlMs);
    const nowMs = Date.now();
    const size = semanticRecordBytes(candidate.vector.length);
    const record = encodeSemanticRecord(candidate);
    const current = this.#live(bucket, nowMs);
    this.#remove(bucket);
    // Appends go into room left at the end: a write copies one record, not the bucket. Records
    // already written are never changed in place, so a scan's views of them stay valid.
    const trimAt = size * Math.ceil(maxCandidates * 1.25);
    let data = current?.data ?? Buffer.alloc(0);
    let length = current?.length ?? 0;
    if (length + size > data.length) {
      const grown = Buffer.alloc(Math.min(Math.max(2 * data.length, size * FIRST_RECORDS), trimAt + size));
      data.copy(grown, 0, 0, length);
      data = grown;
    }
    record.copy(data, length);
    length += size;
    // Keep the newest maxCandidates, trimming in steps (a quarter past the cap) rather than on every write.
    if (length > trimAt) {
      const kept = size * maxCandidates;
      const trimmed = Buffer.alloc(trimAt + size);
      data.copy(trimmed, 0, length - kept, length);
      data = trimmed;
      length = kept;
    }
    const expiresAtMs = Math.max(current?.expiresAtMs ?? 0, nowMs + ttlMs);
    this.#buckets.set(bucket, { data, length, expiresAtMs });
    this.#bytes += data.length;
    // Past the budget, the buckets written least recently go (deleting while iterating a Map is safe).
    for (const name of this.#buckets.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      if (name !== bucket) this.#remove(name);
    }
  }

  async scanSemanticCandidates(
    bucket: string,
    dimensions: number,
    depth: number,
    nearest?: SemanticNearest,
  ): Promise<SemanticCandidate[]> {
    assertSemanticBucket(bucket);
    assertSemanticScan(dimensions, depth);
    const nowMs = Date.now();
    const live = this.#live(bucket, nowMs);
    if (live === undefined || depth === 0) return [];
    const take = Math.min(live.length, semanticRecordBytes(dimensions) * depth);
    return decodeSemanticRecords(
      live.data.subarray(live.length - take, live.length),
      dimensions,
      nowMs,
      nearest,
    );
  }

  /** Drops buckets past their expiry (called by the store's sweep). */
  sweep(nowMs = Date.now()): void {
    for (const [name, bucket] of this.#buckets) if (bucket.expiresAtMs <= nowMs) this.#remove(name);
  }

  #live(name: string, nowMs: number): Bucket | undefined {
    const bucket = this.#buckets.get(name);
    if (bucket === undefined || bucket.expiresAtMs > nowMs) return bucket;
    this.#remove(name);
    return undefined;
  }

  #remove(name: string): void {
    const bucket = this.#buckets.get(name);
    if (bucket === undefined) return;
    this.#buckets.delete(name);
    this.#bytes -= bucket.data.length;
  }
}
