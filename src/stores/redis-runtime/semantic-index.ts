/**
 * The Redis runtime store's semantic index: one string per bucket holding fixed-size binary
 * records end to end, newest last (semantic-records.ts). A write appends one record (and trims the
 * oldest past the cap) in one script; a scan of the newest N is one GETRANGE from the end, however
 * large the bucket. One key per bucket, so it lives in one hash slot of a Redis Cluster.
 */

import { RedisScript } from '../redis-script.ts';
import {
  assertSemanticBucket,
  assertSemanticCandidate,
  assertSemanticScan,
  decodeSemanticRecords,
  encodeSemanticRecord,
  semanticRecordBytes,
} from '../semantic-records.ts';
import type { RuntimeSemanticIndex, SemanticCandidate } from '../types.ts';
import type { RedisRuntimeConnection } from './connection.ts';

/**
 * KEYS: the bucket. ARGV: the record, the bytes to keep when trimming (the newest maxCandidates),
 * the length past which to trim, the bucket's minimum remaining life (ms). Appends; past the
 * limit keeps only the newest records; extends the expiry, never shortens it.
 */
const ADD = new RedisScript(
  `local length = redis.call('APPEND', KEYS[1], ARGV[1])
if length > tonumber(ARGV[3]) then
  local kept = redis.call('GETRANGE', KEYS[1], -tonumber(ARGV[2]), -1)
  redis.call('SET', KEYS[1], kept, 'KEEPTTL')
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1`,
  1,
);

export class RedisSemanticIndex implements RuntimeSemanticIndex {
  readonly #connection: RedisRuntimeConnection;

  constructor(connection: RedisRuntimeConnection) {
    this.#connection = connection;
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
      [encodeSemanticRecord(candidate), size * maxCandidates, size * Math.ceil(maxCandidates * 1.25), ttlMs],
    );
  }

  async scanSemanticCandidates(
    bucket: string,
    dimensions: number,
    depth: number,
  ): Promise<SemanticCandidate[]> {
    assertSemanticBucket(bucket);
    assertSemanticScan(dimensions, depth);
    if (depth === 0) return [];
    const { client, keys } = this.#connection;
    const bytes = await client.getrangeBuffer(
      keys.semanticBucket(bucket),
      -semanticRecordBytes(dimensions) * depth,
      -1,
    );
    return decodeSemanticRecords(bytes, dimensions, Date.now());
  }
}
