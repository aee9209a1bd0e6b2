/**
 * The memory runtime store's semantic index: per bucket the encoded records end to end, newest
 * last (the layout the Redis store keeps, semantic-records.ts), with the bucket's expiry. Bounded
 * in total bytes: past the budget, the buckets written least recently go. Memory only, like the
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
import type { RuntimeSemanticIndex, SemanticCandidate } from '../types.ts';

interface Bucket {
  records: Buffer;
  expiresAtMs: number;
}

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
    const current = this.#live(bucket, nowMs);
    let records = Buffer.concat([current?.records ?? Buffer.alloc(0), encodeSemanticRecord(candidate)]);
    // Keep the newest maxCandidates, trimming in steps (a quarter past the cap) rather than on every write.
    if (records.length > size * Math.ceil(maxCandidates * 1.25)) {
      records = Buffer.from(records.subarray(records.length - size * maxCandidates));
    }
    this.#remove(bucket);
    const expiresAtMs = Math.max(current?.expiresAtMs ?? 0, nowMs + ttlMs);
    this.#buckets.set(bucket, { records, expiresAtMs });
    this.#bytes += records.length;
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
  ): Promise<SemanticCandidate[]> {
    assertSemanticBucket(bucket);
    assertSemanticScan(dimensions, depth);
    const nowMs = Date.now();
    const records = this.#live(bucket, nowMs)?.records;
    if (records === undefined || depth === 0) return [];
    const take = Math.min(records.length, semanticRecordBytes(dimensions) * depth);
    return decodeSemanticRecords(records.subarray(records.length - take), dimensions, nowMs);
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
    this.#bytes -= bucket.records.length;
  }
}
