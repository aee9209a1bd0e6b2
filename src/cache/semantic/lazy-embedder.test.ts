import { describe, expect, it, vi } from 'vitest';
import type { Embedder } from './embedder.ts';
import { LazyEmbedder } from './lazy-embedder.ts';

/** A stand-in model: its vector is the text's length, so an answer shows which model gave it. */
function fakeModel(dimensions = 3): Embedder & { closed: boolean } {
  return {
    name: 'fake',
    dimensions,
    closed: false,
    async embed(text) {
      return new Float32Array(dimensions).fill(text.length);
    },
    async close() {
      this.closed = true;
    },
  };
}

describe('LazyEmbedder', () => {
  it('loads nothing until the first embed, then loads once for concurrent embeds', async () => {
    const load = vi.fn(async () => fakeModel());
    const embedder = new LazyEmbedder({ name: 'm', dimensions: 3, load, idleMs: 0 });
    expect(load).not.toHaveBeenCalled();
    expect(embedder.loaded).toBe(false);
    const vectors = await Promise.all([embedder.embed('ab'), embedder.embed('abc')]);
    expect(vectors.map((vector) => vector[0])).toEqual([2, 3]);
    expect(load).toHaveBeenCalledTimes(1);
    expect(embedder.loaded).toBe(true);
    await embedder.embed('x');
    expect(load).toHaveBeenCalledTimes(1);
    await embedder.close();
  });

  it('says it is warming while the load runs', async () => {
    let finish!: (model: Embedder) => void;
    const embedder = new LazyEmbedder({
      name: 'm',
      dimensions: 3,
      idleMs: 0,
      load: () =>
        new Promise<Embedder>((resolve) => {
          finish = resolve;
        }),
    });
    const pending = embedder.embed('abcd');
    expect(embedder.warming).toBe(true);
    finish(fakeModel());
    expect((await pending)[0]).toBe(4);
    expect(embedder.warming).toBe(false);
    await embedder.close();
  });

  it('lets the model go after idleMs without use, and loads it again when asked', async () => {
    vi.useFakeTimers();
    try {
      const models: ReturnType<typeof fakeModel>[] = [];
      const events: string[] = [];
      const embedder = new LazyEmbedder({
        name: 'm',
        dimensions: 3,
        idleMs: 1000,
        load: async () => {
          const model = fakeModel();
          models.push(model);
          return model;
        },
        onChange: (event) => events.push(event),
      });
      await embedder.embed('a');
      await vi.advanceTimersByTimeAsync(600);
      await embedder.embed('b');
      // 600 ms after the last use: still held.
      await vi.advanceTimersByTimeAsync(600);
      expect(embedder.loaded).toBe(true);
      await vi.advanceTimersByTimeAsync(600);
      expect(embedder.loaded).toBe(false);
      expect(models[0]?.closed).toBe(true);
      await embedder.embed('c');
      expect(models).toHaveLength(2);
      expect(events).toEqual(['loaded', 'unloaded', 'loaded']);
      await embedder.close();
      expect(models[1]?.closed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails at once after a failed load until retryAfterMs, then tries again', async () => {
    let attempts = 0;
    const embedder = new LazyEmbedder({
      name: 'm',
      dimensions: 3,
      idleMs: 0,
      retryAfterMs: 60_000,
      load: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('model.onnx is corrupt');
        return fakeModel();
      },
    });
    await expect(embedder.embed('a')).rejects.toThrow('corrupt');
    await expect(embedder.embed('a')).rejects.toThrow('corrupt');
    expect(attempts).toBe(1);
    vi.setSystemTime(Date.now() + 61_000);
    try {
      expect((await embedder.embed('ab'))[0]).toBe(2);
    } finally {
      vi.useRealTimers();
    }
    expect(attempts).toBe(2);
    await embedder.close();
  });

  it('refuses a model whose vectors are not the length promised', async () => {
    const model = fakeModel(5);
    const embedder = new LazyEmbedder({ name: 'm', dimensions: 3, idleMs: 0, load: async () => model });
    await expect(embedder.embed('a')).rejects.toThrow('5 dimensions');
    expect(model.closed).toBe(true);
    await embedder.close();
  });
});
