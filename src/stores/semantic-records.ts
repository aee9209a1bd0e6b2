/**
 * The binary form of semantic candidates, shared by the memory and Redis stores so that both
 * refuse the same inputs: per record, the expiry (float64, little-endian, ms), the id (32 raw bytes
 * of the 64-hex-digit hash) and the vector (one int8 per component). A bucket is its records end to
 * end, newest last, so the newest N are one contiguous read from the end.
 */
import type { SemanticCandidate } from './types.ts';

const EXPIRY_BYTES = 8;
const ID_BYTES = 32;
const HEX_ID = /^[0-9a-f]{64}$/;
export const MAX_SEMANTIC_DIMENSIONS = 4096;

export function semanticRecordBytes(dimensions: number): number {
  return EXPIRY_BYTES + ID_BYTES + dimensions;
}

export function assertSemanticBucket(bucket: string): void {
  if (typeof bucket !== 'string' || bucket === '' || bucket.length > 512) {
    throw new TypeError('a semantic bucket must be a non-empty string of at most 512 characters');
  }
}

export function assertSemanticCandidate(
  candidate: SemanticCandidate,
  maxCandidates: number,
  ttlMs: number,
): void {
  if (!HEX_ID.test(candidate.id)) throw new TypeError('a semantic candidate id must be 64 hex digits');
  if (!Number.isSafeInteger(candidate.expiresAtMs)) throw new TypeError('expiresAtMs must be a safe integer');
  const dimensions = candidate.vector?.length;
  if (!(candidate.vector instanceof Int8Array) || dimensions < 1 || dimensions > MAX_SEMANTIC_DIMENSIONS) {
    throw new TypeError(
      `a semantic vector must be an Int8Array of 1 to ${MAX_SEMANTIC_DIMENSIONS} components`,
    );
  }
  if (!Number.isSafeInteger(maxCandidates) || maxCandidates < 1)
    throw new TypeError('maxCandidates must be positive');
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new TypeError('ttlMs must be a positive integer');
}

export function assertSemanticScan(dimensions: number, depth: number): void {
  if (!Number.isSafeInteger(dimensions) || dimensions < 1 || dimensions > MAX_SEMANTIC_DIMENSIONS) {
    throw new TypeError(`dimensions must be 1 to ${MAX_SEMANTIC_DIMENSIONS}`);
  }
  if (!Number.isSafeInteger(depth) || depth < 0) throw new TypeError('depth must be a non-negative integer');
}

export function encodeSemanticRecord(candidate: SemanticCandidate): Buffer {
  const record = Buffer.alloc(semanticRecordBytes(candidate.vector.length));
  record.writeDoubleLE(candidate.expiresAtMs, 0);
  record.write(candidate.id, EXPIRY_BYTES, 'hex');
  Buffer.from(candidate.vector.buffer, candidate.vector.byteOffset, candidate.vector.length).copy(
    record,
    EXPIRY_BYTES + ID_BYTES,
  );
  return record;
}

/**
 * A record read from a bucket: the vector is a view of the bytes read (no copy), the id is spelled
 * out in hex only when asked for (a lookup needs the few best candidates' ids, not all of them).
 */
class DecodedCandidate implements SemanticCandidate {
  readonly expiresAtMs: number;
  readonly vector: Int8Array;
  readonly #bytes: Buffer;
  readonly #idStart: number;
  #id: string | undefined;

  constructor(bytes: Buffer, start: number, dimensions: number, expiresAtMs: number) {
    this.expiresAtMs = expiresAtMs;
    this.#bytes = bytes;
    this.#idStart = start + EXPIRY_BYTES;
    this.vector = new Int8Array(bytes.buffer, bytes.byteOffset + this.#idStart + ID_BYTES, dimensions);
  }

  get id(): string {
    this.#id ??= this.#bytes.toString('hex', this.#idStart, this.#idStart + ID_BYTES);
    return this.#id;
  }
}

/**
 * The records of `bytes` (whole records only, counted from the end: a read that started inside a
 * record skips it), newest first, without expired or repeated ids (the newest of an id wins). The
 * candidates' vectors are views of `bytes`, which must not change afterwards.
 */
export function decodeSemanticRecords(bytes: Buffer, dimensions: number, nowMs: number): SemanticCandidate[] {
  const size = semanticRecordBytes(dimensions);
  const candidates: SemanticCandidate[] = [];
  // Ids are hashes: 53 of their last bits tell them apart.
  const seen = new Set<number>();
  for (let end = bytes.length; end - size >= 0; end -= size) {
    const start = end - size;
    const expiresAtMs = bytes.readDoubleLE(start);
    if (!(expiresAtMs > nowMs)) continue;
    const last = start + EXPIRY_BYTES + ID_BYTES - 8;
    const key = (bytes.readUInt32BE(last) & 0x1fffff) * 2 ** 32 + bytes.readUInt32BE(last + 4);
    if (seen.has(key)) continue;
    seen.add(key);
    candidates.push(new DecodedCandidate(bytes, start, dimensions, expiresAtMs));
  }
  return candidates;
}
