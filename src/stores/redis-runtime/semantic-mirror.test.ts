import { describe, expect, it } from 'vitest';
import { encodeSemanticRecord, semanticRecordBytes } from '../semantic-records.ts';
import { SemanticMirror } from './semantic-mirror.ts';

const DIMENSIONS = 4;
const SIZE = semanticRecordBytes(DIMENSIONS);
const id = (n: number) => n.toString(16).padStart(64, '0');
/** Records `from` to `to`, oldest first, as a bucket holds them. */
const records = (from: number, to: number) =>
  Buffer.concat(
    Array.from({ length: to - from + 1 }, (_, k) =>
      encodeSemanticRecord({
        id: id(from + k),
        expiresAtMs: Date.now() + 60_000,
        vector: Int8Array.from([1, 2, 3, from + k]),
      }),
    ),
  );
const ids = (found: { id: string }[] | undefined) =>
  found?.map((candidate) => Number.parseInt(candidate.id, 16));
const state = (appended: number, present = appended) => ({ incarnation: 'abcdefgh', appended, present });

describe('SemanticMirror', () => {
  it('applies the records appended since, keeping the newest the bucket still holds', () => {
    const mirror = new SemanticMirror(1 << 20);
    expect(ids(mirror.full('k', SIZE, state(3), records(1, 3), DIMENSIONS, 10, Date.now()))).toEqual([
      3, 2, 1,
    ]);
    const known = mirror.known('k', SIZE, 10);
    expect(known).toEqual({ incarnation: 'abcdefgh', appended: 3 });
    // 40 more, the bucket trimmed to its newest 12.
    const found = mirror.delta(
      'k',
      known ?? state(0),
      state(43, 12),
      records(4, 43),
      DIMENSIONS,
      10,
      Date.now(),
    );
    expect(ids(found)).toEqual([43, 42, 41, 40, 39, 38, 37, 36, 35, 34]);
    // It keeps as many as scans asked for (10): a deeper scan reads the tail again.
    expect(mirror.known('k', SIZE, 10)).toEqual({ incarnation: 'abcdefgh', appended: 43 });
    expect(mirror.known('k', SIZE, 11)).toBeUndefined();
  });

  it('applies only the part of a delta it lacks, and keeps a copy newer than a late reply', () => {
    const mirror = new SemanticMirror(1 << 20);
    mirror.full('k', SIZE, state(2), records(1, 2), DIMENSIONS, 10, Date.now());
    const known = state(2);
    // Two scans sent from 2; the first reply (up to 4) arrives, then the second (up to 5).
    mirror.delta('k', known, state(4), records(3, 4), DIMENSIONS, 10, Date.now());
    expect(ids(mirror.delta('k', known, state(5), records(3, 5), DIMENSIONS, 10, Date.now()))).toEqual([
      5, 4, 3, 2, 1,
    ]);
    expect(ids(mirror.delta('k', known, state(4), records(3, 4), DIMENSIONS, 10, Date.now()))).toEqual([
      5, 4, 3, 2, 1,
    ]);
    // A reply from another incarnation, or from before the copy's point, is not applied.
    expect(
      mirror.delta('k', known, { ...state(9), incarnation: 'zzzzzzzz' }, records(6, 9), DIMENSIONS, 10, 0),
    ).toBeUndefined();
    mirror.full('j', SIZE, state(2), records(1, 2), DIMENSIONS, 10, Date.now());
    expect(mirror.delta('j', state(5), state(9), records(6, 9), DIMENSIONS, 10, 0)).toBeUndefined();
  });

  it('holds at most its bound, forgetting the buckets read least recently', () => {
    const mirror = new SemanticMirror(25 * SIZE);
    for (const key of ['a', 'b', 'c']) mirror.full(key, SIZE, state(10), records(1, 10), DIMENSIONS, 10, 0);
    expect(mirror.stats).toMatchObject({ buckets: 2, bytes: 20 * SIZE, fullReads: 3 });
    expect(mirror.known('a', SIZE, 10)).toBeUndefined();
    expect(mirror.known('b', SIZE, 10)).toBeDefined();
    // Larger than the whole bound: answered, not kept.
    expect(mirror.full('big', SIZE, state(30), records(1, 30), DIMENSIONS, 30, Date.now())).toHaveLength(30);
    expect(mirror.known('big', SIZE, 1)).toBeUndefined();
    mirror.missing('b');
    expect(mirror.stats).toMatchObject({ buckets: 1, bytes: 10 * SIZE, missingReads: 1 });
  });
});
