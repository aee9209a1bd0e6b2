import { describe, expect, it } from 'vitest';
import { normalise, quantise, similarity } from './embedder.ts';
import { bestCandidates } from './semantic-cache.ts';

const randomUnit = (dimensions: number) =>
  normalise(Float32Array.from({ length: dimensions }, () => Math.random() * 2 - 1));

describe('bestCandidates', () => {
  it('keeps the most similar candidates, best first, as a full sort would', () => {
    const query = randomUnit(32);
    const candidates = Array.from({ length: 500 }, (_, index) => ({
      id: index.toString(16).padStart(64, '0'),
      expiresAtMs: Date.now() + 60_000,
      vector: quantise(randomUnit(32)),
    }));
    const sorted = candidates
      .map((candidate) => ({ id: candidate.id, similarity: similarity(query, candidate.vector) }))
      .sort((left, right) => right.similarity - left.similarity);
    expect(bestCandidates(query, candidates, 3)).toEqual(sorted.slice(0, 3));
    expect(bestCandidates(query, candidates.slice(0, 2), 3)).toEqual(
      sorted.filter((entry) => entry.id <= candidates[1]!.id).slice(0, 2),
    );
    expect(bestCandidates(query, [], 3)).toEqual([]);
  });
});
