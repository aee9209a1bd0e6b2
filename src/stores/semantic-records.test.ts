import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeSemanticRecords, encodeSemanticRecord, similarityAt } from './semantic-records.ts';

const DIMENSIONS = 16;

/** A seeded generator (mulberry32), so that a failing bucket can be rebuilt. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const idOf = (name: string) => createHash('sha256').update(name).digest('hex');

/** A bucket of `records` records, oldest first: some ids written again, some records expired. */
function bucket(seed: number, records: number, ids: number, nowMs: number) {
  const random = generator(seed);
  const parts: Buffer[] = [];
  for (let index = 0; index < records; index += 1) {
    const vector = new Int8Array(DIMENSIONS);
    // Few distinct values, so that equal scores (ties) happen too.
    for (let component = 0; component < DIMENSIONS; component += 1)
      vector[component] = Math.floor(random() * 5) * 30 - 60;
    const expired = random() < 0.15;
    parts.push(
      encodeSemanticRecord({
        id: idOf(String(Math.floor(random() * ids))),
        expiresAtMs: nowMs + (expired ? -1_000 : 60_000),
        vector,
      }),
    );
  }
  return Buffer.concat(parts);
}

/** The `count` nearest of every live record, one per id, the way the semantic cache ranks them. */
function nearestByHand(bytes: Buffer, query: Float32Array, count: number, nowMs: number) {
  return decodeSemanticRecords(bytes, DIMENSIONS, nowMs)
    .map((candidate) => ({ id: candidate.id, score: similarityAt(query, candidate.vector, 0) }))
    .sort((left, right) => right.score - left.score) // stable: the newer first on a tie
    .slice(0, count);
}

describe('decodeSemanticRecords with nearest', () => {
  const nowMs = 1_000_000;

  it.each([
    [1, 200, 150, 3],
    [2, 200, 40, 3],
    [3, 500, 500, 1],
    [4, 60, 8, 5],
    [5, 300, 20, 10],
  ])(
    'keeps what a full decode ranks first (seed %i: %i records, %i ids, %i nearest)',
    (seed, records, ids, count) => {
      const bytes = bucket(seed, records, ids, nowMs);
      const random = generator(seed + 100);
      for (let round = 0; round < 20; round += 1) {
        const query = Float32Array.from({ length: DIMENSIONS }, () => random() - 0.5);
        const nearest = decodeSemanticRecords(bytes, DIMENSIONS, nowMs, { query, count });
        expect(nearest.map((candidate) => [candidate.id, similarityAt(query, candidate.vector, 0)])).toEqual(
          nearestByHand(bytes, query, count, nowMs).map(({ id, score }) => [id, score]),
        );
      }
    },
  );

  it('drops a record a newer one of its id hides, even past the spare it holds', () => {
    // Twelve old records of one id, nearer the query than anything, and one newer record of that
    // id far from it: the old ones are hidden, and the nearest are the other ids.
    const near = new Int8Array(DIMENSIONS).fill(100);
    const far = new Int8Array(DIMENSIONS).fill(-100);
    const query = new Float32Array(DIMENSIONS).fill(0.25);
    const records = [
      ...Array.from({ length: 12 }, () => ({
        id: idOf('hidden'),
        expiresAtMs: nowMs + 60_000,
        vector: near,
      })),
      ...Array.from({ length: 5 }, (_, index) => ({
        id: idOf(`other ${index}`),
        expiresAtMs: nowMs + 60_000,
        vector: new Int8Array(DIMENSIONS).fill(10 * (index + 1)),
      })),
      { id: idOf('hidden'), expiresAtMs: nowMs + 60_000, vector: far },
    ];
    const bytes = Buffer.concat(records.map(encodeSemanticRecord));
    const nearest = decodeSemanticRecords(bytes, DIMENSIONS, nowMs, { query, count: 3 });
    expect(nearest.map((candidate) => candidate.id)).toEqual([
      idOf('other 4'),
      idOf('other 3'),
      idOf('other 2'),
    ]);
    // A newer record that expired hides nothing.
    const expiredNewer = Buffer.concat(
      [...records.slice(0, -1), { ...records.at(-1), expiresAtMs: nowMs - 1 }].map((record) =>
        encodeSemanticRecord(record as (typeof records)[number]),
      ),
    );
    expect(decodeSemanticRecords(expiredNewer, DIMENSIONS, nowMs, { query, count: 1 })[0]?.id).toBe(
      idOf('hidden'),
    );
  });

  it('returns fewer than asked when the bucket holds fewer, and nothing from an empty read', () => {
    const query = new Float32Array(DIMENSIONS).fill(0.25);
    const bytes = bucket(9, 4, 4, nowMs);
    expect(decodeSemanticRecords(bytes, DIMENSIONS, nowMs, { query, count: 10 })).toHaveLength(
      nearestByHand(bytes, query, 10, nowMs).length,
    );
    expect(decodeSemanticRecords(Buffer.alloc(0), DIMENSIONS, nowMs, { query, count: 3 })).toEqual([]);
  });
});
