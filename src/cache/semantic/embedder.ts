/**
 * What turns a question into a vector for the semantic cache (DESIGN section 6): the local model
 * by default (local-embedder.ts, in a worker thread), or an embeddings model reached through the
 * gateway's own routing (gateway/route-embedder.ts). Vectors are L2-normalised, so a dot product
 * is their cosine similarity.
 */
import { similarityAt } from '../../stores/semantic-records.ts';

export interface Embedder {
  /** Names the model, for logs (never a secret). */
  readonly name: string;
  /** Components of each vector; a bucket's candidates all have this many. */
  readonly dimensions: number;
  /** The vector of one text; rejects when the model cannot answer (the lookup then falls back to exact). */
  embed(text: string): Promise<Float32Array>;
  /** True while the model is being loaded (lazy-embedder.ts): a failed embed then is no fault. */
  readonly warming?: boolean;
  close(): Promise<void>;
}

/** Scales a vector to length 1 (in place), so that a dot product is a cosine. */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const component of vector) sum += component * component;
  const length = Math.sqrt(sum);
  if (length > 0)
    for (let index = 0; index < vector.length; index += 1) vector[index] = (vector[index] as number) / length;
  return vector;
}

/** A unit vector quantised for storage: each component × 127, rounded (see stores SemanticCandidate). */
export function quantise(vector: Float32Array): Int8Array {
  const quantised = new Int8Array(vector.length);
  for (let index = 0; index < vector.length; index += 1) {
    quantised[index] = Math.max(-127, Math.min(127, Math.round((vector[index] as number) * 127)));
  }
  return quantised;
}

/** Cosine of a unit vector and a quantised one. */
export function similarity(query: Float32Array, candidate: Int8Array): number {
  return similarityAt(query, candidate, 0);
}
