/**
 * The binary form of semantic candidates, shared by the memory and Redis stores so that both
 * refuse the same inputs: per record, the expiry (float64, little-endian, ms), the id (32 raw bytes
 * of the 64-hex-digit hash) and the vector (one int8 per component). A bucket is its records end to
 * end, newest last, so the newest N are one contiguous read from the end.
 */
import type { SemanticCandidate, SemanticNearest } from './types.ts';

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
 * The cosine of a unit vector and the quantised vector at `offset` of `values` (int8 components,
 * each a 127th of its value): the semantic cache's `similarity`, and a record's read in place.
 */
export function similarityAt(query: Float32Array, values: Int8Array, offset: number): number {
  let dot = 0;
  for (let index = 0; index < query.length; index += 1)
    dot += (query[index] as number) * (values[offset + index] as number);
  return dot / 127;
}

/** How many more than asked the nearest scan holds, for records a newer one of the same id hides. */
const NEAREST_SPARE = 8;

/** The 53 last bits of the id of the record at `start`: ids are hashes, and these tell them apart. */
const idKey = (bytes: Buffer, start: number): number => {
  const last = start + EXPIRY_BYTES + ID_BYTES - 8;
  return (bytes.readUInt32BE(last) & 0x1fffff) * 2 ** 32 + bytes.readUInt32BE(last + 4);
};

/** Whether a live record newer than the one at `start` (after it in `bytes`) has its id. */
function hiddenByNewer(bytes: Buffer, start: number, size: number, nowMs: number): boolean {
  const key = idKey(bytes, start);
  for (let other = start + size; other + size <= bytes.length; other += size) {
    if (bytes.readDoubleLE(other) > nowMs && idKey(bytes, other) === key) return true;
  }
  return false;
}

/**
 * decodeSemanticRecords' `nearest`, without an object for each record read: every live record is
 * scored in place and only the nearest few (and a few spare) are held, ties to the newer, as
 * SemanticCache's bestCandidates ranks them; those a newer record of the same id hides are then
 * dropped. Undefined when more were dropped than the spare covers (the caller decodes them all).
 */
function nearestRecords(
  bytes: Buffer,
  dimensions: number,
  nowMs: number,
  { query, count }: SemanticNearest,
): SemanticCandidate[] | undefined {
  const size = semanticRecordBytes(dimensions);
  const values = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const room = count + NEAREST_SPARE;
  const starts = new Int32Array(room);
  const scores = new Float64Array(room);
  let held = 0;
  for (let end = bytes.length; end - size >= 0; end -= size) {
    const start = end - size;
    if (!(bytes.readDoubleLE(start) > nowMs)) continue;
    const score = similarityAt(query, values, start + EXPIRY_BYTES + ID_BYTES);
    if (held === room && score <= (scores[room - 1] as number)) continue;
    let at = held === room ? room - 1 : held++;
    while (at > 0 && (scores[at - 1] as number) < score) {
      scores[at] = scores[at - 1] as number;
      starts[at] = starts[at - 1] as number;
      at -= 1;
    }
    scores[at] = score;
    starts[at] = start;
  }
  const nearest: SemanticCandidate[] = [];
  for (let index = 0; index < held && nearest.length < count; index += 1) {
    const start = starts[index] as number;
    if (hiddenByNewer(bytes, start, size, nowMs)) continue;
    nearest.push(new DecodedCandidate(bytes, start, dimensions, bytes.readDoubleLE(start)));
  }
  // Fewer than asked though every place was taken: the records past the spare may be among them.
  return nearest.length < count && held === room ? undefined : nearest;
}

/**
 * The records of `bytes` (whole records only, counted from the end: a read that started inside a
 * record skips it), newest first, without expired or repeated ids (the newest of an id wins). The
 * candidates' vectors are views of `bytes`, which must not change afterwards. With `nearest`, only
 * the `count` of them nearest its query, nearest first (ties to the newer): what the semantic
 * cache keeps of a scan, read without an object for each record (a lookup at a depth of 2,000
 * otherwise leaves about half a megabyte for the collector).
 */
export function decodeSemanticRecords(
  bytes: Buffer,
  dimensions: number,
  nowMs: number,
  nearest?: SemanticNearest,
): SemanticCandidate[] {
  if (nearest === undefined) return allRecords(bytes, dimensions, nowMs);
  const picked = nearestRecords(bytes, dimensions, nowMs, nearest);
  if (picked !== undefined) return picked;
  // Rare (many records of the same few ids): every record decoded, then ranked.
  const { query, count } = nearest;
  return allRecords(bytes, dimensions, nowMs)
    .map((candidate) => ({ candidate, score: similarityAt(query, candidate.vector, 0) }))
    .sort((left, right) => right.score - left.score)
    .slice(0, count)
    .map(({ candidate }) => candidate);
}

function allRecords(bytes: Buffer, dimensions: number, nowMs: number): SemanticCandidate[] {
  const size = semanticRecordBytes(dimensions);
  const candidates: SemanticCandidate[] = [];
  const seen = new Set<number>();
  for (let end = bytes.length; end - size >= 0; end -= size) {
    const start = end - size;
    const expiresAtMs = bytes.readDoubleLE(start);
    if (!(expiresAtMs > nowMs)) continue;
    const key = idKey(bytes, start);
    if (seen.has(key)) continue;
    seen.add(key);
    candidates.push(new DecodedCandidate(bytes, start, dimensions, expiresAtMs));
  }
  return candidates;
}
