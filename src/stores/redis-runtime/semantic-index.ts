/**
 * The Redis runtime store's semantic index: one string per bucket, a 16-byte header (the key's
 * incarnation: 8 random bytes written when the key is created; then the count of records ever
 * appended to it, float64 little-endian) and the fixed-size binary records end to end, newest last
 * (semantic-records.ts). A write appends one record (and trims the oldest past the cap) in one
 * script. A scan is one script too (SYNC): given what this pod's mirror (semantic-mirror.ts) knows
 * of the key, it answers with only the records appended since, or with the tail asked for when the
 * copy is too old, was trimmed past, or the key is another one (deleted or expired, then written
 * again). One key per bucket, so it lives in one hash slot of a Redis Cluster.
 */

import { randomBytes } from 'node:crypto';
import { RedisScript } from '../redis-script.ts';
import {
  assertSemanticBucket,
  assertSemanticCandidate,
  assertSemanticScan,
  encodeSemanticRecord,
  semanticRecordBytes,
} from '../semantic-records.ts';
import type { RuntimeSemanticIndex, SemanticCandidate, SemanticNearest } from '../types.ts';
import type { RedisRuntimeConnection } from './connection.ts';
import {
  type BucketState,
  type KnownState,
  SemanticMirror,
  type SemanticMirrorStats,
} from './semantic-mirror.ts';

/** The incarnation (8 bytes) and the count of records ever appended (float64 LE). */
const HEADER_BYTES = 16;

/**
 * KEYS: the bucket. ARGV: the record, the bytes of records to keep when trimming (the newest
 * maxCandidates), the record bytes past which to trim, the bucket's minimum remaining life (ms),
 * the incarnation of a key this write creates. A missing key (or one not of this layout) starts
 * over with a new incarnation; otherwise appends, counts, and past the limit keeps only the newest
 * records; extends the expiry, never shortens it.
 */
const ADD = new RedisScript(
  `local key = KEYS[1]
local size = string.len(ARGV[1])
local length = redis.call('STRLEN', key)
if length < ${HEADER_BYTES} or (length - ${HEADER_BYTES}) % size ~= 0 then
  redis.call('SET', key, ARGV[5] .. struct.pack('<d', 1) .. ARGV[1], 'PX', ARGV[4])
  return 1
end
local appended = struct.unpack('<d', redis.call('GETRANGE', key, 8, 15)) + 1
length = redis.call('APPEND', key, ARGV[1])
redis.call('SETRANGE', key, 8, struct.pack('<d', appended))
if length - ${HEADER_BYTES} > tonumber(ARGV[3]) then
  local kept = redis.call('GETRANGE', key, -tonumber(ARGV[2]), -1)
  redis.call('SET', key, redis.call('GETRANGE', key, 0, ${HEADER_BYTES - 1}) .. kept, 'KEEPTTL')
end
local ttl = redis.call('PTTL', key)
if ttl < tonumber(ARGV[4]) then redis.call('PEXPIRE', key, ARGV[4]) end
return 1`,
  1,
);

/**
 * KEYS: the bucket. ARGV: the incarnation the caller knows ('' for none), the count of records
 * appended it knows, the record size, the records wanted when the whole tail is sent. Replies nil
 * for no bucket; else {header, records present, 0, the records appended since} when the caller's
 * copy is of this key and all of them are still present, {header, present, 1, the newest records
 * wanted} otherwise.
 */
const SYNC = new RedisScript(
  `local key = KEYS[1]
local size = tonumber(ARGV[3])
local length = redis.call('STRLEN', key)
if length < ${HEADER_BYTES} + size or (length - ${HEADER_BYTES}) % size ~= 0 then return false end
local header = redis.call('GETRANGE', key, 0, ${HEADER_BYTES - 1})
local present = (length - ${HEADER_BYTES}) / size
local fresh = struct.unpack('<d', header, 9) - tonumber(ARGV[2])
if string.sub(header, 1, 8) == ARGV[1] and fresh >= 0 and fresh <= present then
  return {header, present, 0, redis.call('GETRANGE', key, length - fresh * size, -1)}
end
local wanted = math.min(present, tonumber(ARGV[4]))
return {header, present, 1, redis.call('GETRANGE', key, length - wanted * size, -1)}`,
  1,
);

interface SyncReply {
  state: BucketState;
  delta: boolean;
  records: Buffer;
}

function parseSyncReply(reply: unknown): SyncReply | undefined {
  if (reply === null) return undefined;
  if (!Array.isArray(reply) || reply.length !== 4) throw new Error('malformed semantic sync reply');
  const [header, present, kind, records] = reply as [unknown, unknown, unknown, unknown];
  if (
    !Buffer.isBuffer(header) ||
    header.length !== HEADER_BYTES ||
    typeof present !== 'number' ||
    !Buffer.isBuffer(records)
  ) {
    throw new Error('malformed semantic sync reply');
  }
  return {
    state: { incarnation: header.toString('latin1', 0, 8), appended: header.readDoubleLE(8), present },
    delta: kind === 0,
    records,
  };
}

/** Bytes the mirror of semantic buckets keeps by default (GATEWAY_SEMCACHE_MIRROR_BYTES). */
export const DEFAULT_SEMANTIC_MIRROR_BYTES = 64 * 1024 * 1024;

export class RedisSemanticIndex implements RuntimeSemanticIndex {
  readonly #connection: RedisRuntimeConnection;
  readonly #mirror: SemanticMirror;

  constructor(connection: RedisRuntimeConnection, mirrorBytes = DEFAULT_SEMANTIC_MIRROR_BYTES) {
    this.#connection = connection;
    this.#mirror = new SemanticMirror(mirrorBytes);
  }

  get mirrorStats(): Readonly<SemanticMirrorStats> {
    return this.#mirror.stats;
  }

  async addSemanticCandidate(
    bucket: string,
    candidate: SemanticCandidate,
    maxCandidates: number,
    ttlMs: number,
  ): Promise<void> {
    assertSemanticBucket(bucket);
    assertSemanticCandidate(candidate, maxCandidates, ttlMs);
    const { client, keys } = this.#connection;
    const size = semanticRecordBytes(candidate.vector.length);
    await ADD.run(
      client,
      [keys.semanticBucket(bucket)],
      [
        encodeSemanticRecord(candidate),
        size * maxCandidates,
        size * Math.ceil(maxCandidates * 1.25),
        ttlMs,
        randomBytes(8),
      ],
    );
  }

  async scanSemanticCandidates(
    bucket: string,
    dimensions: number,
    depth: number,
    nearest?: SemanticNearest,
  ): Promise<SemanticCandidate[]> {
    assertSemanticBucket(bucket);
    assertSemanticScan(dimensions, depth);
    if (depth === 0) return [];
    const key = this.#connection.keys.semanticBucket(bucket);
    const mirror = this.#mirror;
    const size = semanticRecordBytes(dimensions);
    const known = mirror.known(key, size, depth);
    const reply = await this.#sync(key, known, size, depth);
    if (reply === undefined) return mirror.missing(key);
    if (reply.delta && known !== undefined) {
      const found = mirror.delta(
        key,
        known,
        reply.state,
        reply.records,
        dimensions,
        depth,
        Date.now(),
        nearest,
      );
      if (found !== undefined) return found;
      // Another reply moved the copy meanwhile (concurrent scans of one bucket): read the tail.
      const again = await this.#sync(key, undefined, size, depth);
      if (again === undefined) return mirror.missing(key);
      return mirror.full(key, size, again.state, again.records, dimensions, depth, Date.now(), nearest);
    }
    return mirror.full(key, size, reply.state, reply.records, dimensions, depth, Date.now(), nearest);
  }

  async #sync(
    key: string,
    known: KnownState | undefined,
    size: number,
    depth: number,
  ): Promise<SyncReply | undefined> {
    const reply = await SYNC.runBuffer(
      this.#connection.client,
      [key],
      [
        known === undefined ? '' : Buffer.from(known.incarnation, 'latin1'),
        known?.appended ?? 0,
        size,
        Math.max(depth, this.#mirror.keepOf(key)),
      ],
    );
    return parseSyncReply(reply);
  }
}
