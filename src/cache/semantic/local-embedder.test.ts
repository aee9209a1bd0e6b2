import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { semanticModelDir } from '../../../test/helpers/semantic-model.ts';
import { quantise, similarity } from './embedder.ts';
import { LocalEmbedder, QUANTIZED_MODEL_FILE } from './local-embedder.ts';

const modelDir = semanticModelDir();
const hasQuantized = modelDir !== undefined && existsSync(join(modelDir, QUANTIZED_MODEL_FILE));
/** model.onnx as shipped (float matrix products once ONNX Runtime folds its int8 weights). */
let embedder: LocalEmbedder;
beforeAll(async () => {
  if (modelDir) embedder = await LocalEmbedder.start({ modelDir, quantized: false });
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

  it('runs model.onnx when told not to use the quantised file', () => {
    expect(basename(embedder.modelFile)).toBe('model.onnx');
  });

  it.runIf(hasQuantized)(
    'runs the quantised derivative by default, with the same similarities to within 0.02',
    async () => {
      const quantized = await LocalEmbedder.start({ modelDir: modelDir as string });
      try {
        expect(basename(quantized.modelFile)).toBe(QUANTIZED_MODEL_FILE);
        const texts = [
          'What is the capital of France?',
          "what's the capital city of France?",
          'How do I bake sourdough bread?',
          'Convert 10 miles to kilometers',
          'Convert 20 miles to kilometers',
        ];
        const exact = await Promise.all(texts.map((text) => embedder.embed(text)));
        const fast = await Promise.all(texts.map((text) => quantized.embed(text)));
        for (const [a, b] of [
          [0, 1],
          [0, 2],
          [3, 4],
          [1, 4],
        ] as const) {
          const reference = cosine(exact[a] as Float32Array, exact[b] as Float32Array);
          expect(Math.abs(cosine(fast[a] as Float32Array, fast[b] as Float32Array) - reference)).toBeLessThan(
            0.02,
          );
        }
        // The same question, each model: nearly the same vector.
        expect(cosine(exact[0] as Float32Array, fast[0] as Float32Array)).toBeGreaterThan(0.98);
        // And the same vector every time, whatever is asked beside it (each text is a run of its own:
        // the activations' scale is per run).
        const [alone] = await Promise.all([quantized.embed(texts[0] as string)]);
        const [crowded] = await Promise.all([
          quantized.embed(texts[0] as string),
          quantized.embed('word '.repeat(200)),
          quantized.embed('a much longer and entirely unrelated question about sourdough starters'),
        ]);
        expect(Array.from(crowded as Float32Array)).toEqual(Array.from(alone as Float32Array));
      } finally {
        await quantized.close();
      }
    },
  );

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
