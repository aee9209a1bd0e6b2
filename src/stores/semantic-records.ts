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
 * The records of `bytes` (whole records only, counted from the end: a read that started inside a
 * record skips it), newest first, without expired or repeated ids (the newest of an id wins).
 */
export function decodeSemanticRecords(bytes: Buffer, dimensions: number, nowMs: number): SemanticCandidate[] {
  const size = semanticRecordBytes(dimensions);
  const candidates: SemanticCandidate[] = [];
  const seen = new Set<string>();
  for (let end = bytes.length; end - size >= 0; end -= size) {
    const start = end - size;
    const expiresAtMs = bytes.readDoubleLE(start);
    if (!(expiresAtMs > nowMs)) continue;
    const id = bytes.toString('hex', start + EXPIRY_BYTES, start + EXPIRY_BYTES + ID_BYTES);
    if (seen.has(id)) continue;
    seen.add(id);
    const vector = new Int8Array(dimensions);
    vector.set(new Int8Array(bytes.buffer, bytes.byteOffset + start + EXPIRY_BYTES + ID_BYTES, dimensions));
    candidates.push({ id, expiresAtMs, vector });
  }
  return candidates;
}
