import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { semanticModelDir } from '../../../test/helpers/semantic-model.ts';
import { quantise, similarity } from './embedder.ts';
import { LocalEmbedder } from './local-embedder.ts';

const modelDir = semanticModelDir();
let embedder: LocalEmbedder;
beforeAll(async () => {
  if (modelDir) embedder = await LocalEmbedder.start({ modelDir });
});
afterAll(async () => {
  await embedder?.close();
});

const cosine = (a: Float32Array, b: Float32Array) =>
  a.reduce((sum, value, index) => sum + value * (b[index] as number), 0);

describe.runIf(modelDir !== undefined)('LocalEmbedder (all-MiniLM-L6-v2, in a worker)', () => {
  it('gives the similarities the model is known for', async () => {
    const [france, paraphrase, bread] = await Promise.all([
      embedder.embed('What is the capital of France?'),
      embedder.embed("what's the capital city of France?"),
      embedder.embed('How do I bake sourdough bread?'),
    ]);
    expect(embedder.dimensions).toBe(384);
    expect(cosine(france as Float32Array, paraphrase as Float32Array)).toBeCloseTo(0.957, 2);
    expect(cosine(france as Float32Array, bread as Float32Array)).toBeCloseTo(0.133, 2);
    // Quantised for storage, the similarity moves by well under a hundredth.
    expect(similarity(france as Float32Array, quantise(paraphrase as Float32Array))).toBeCloseTo(0.957, 2);
  });

  it('embeds a text longer than the model takes (cut at 256 tokens) and keeps the event loop free', async () => {
    const long = 'word '.repeat(2000);
    const vector = await embedder.embed(long);
    expect(vector).toHaveLength(384);
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 1);
    await Promise.all(Array.from({ length: 20 }, (_, index) => embedder.embed(`question number ${index}`)));
    clearInterval(timer);
    // The model ran on its own thread: the loop kept ticking while it worked.
    expect(ticks).toBeGreaterThan(5);
  });
});
