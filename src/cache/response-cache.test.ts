import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.ts';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import { createCacheMetrics } from './cache-metrics.ts';
import { type CacheEntry, parseEntry, ResponseCache, serializeEntry } from './response-cache.ts';
import { CacheScopeMirror } from './scope-mirror.ts';

const entry = (body: string, extra: Partial<CacheEntry> = {}): CacheEntry => ({
  v: 1,
  status: 200,
  contentType: 'text/event-stream',
  body,
  stream: true,
  createdAtMs: 1_700_000_000_000,
  requestedAtMs: 1_699_999_999_000,
  ttlMs: 60_000,
  swrMs: 0,
  tags: ['user:1', 'a "quoted"\ntag'],
  costMicros: 42,
  ...extra,
});

describe('cache entry format', () => {
  it('gives back every field and the body exactly, whatever the body holds', () => {
    const bodies = [
      '',
      '{"choices":[{"message":{"content":"hi"}}]}',
      'data: {"choices":[{"delta":{"content":"a \\"b\\"\\n"}}]}\n\ndata: [DONE]\n\n',
      'line one\nline two\r\n\n\\n and a backslash \\, é, 日本, 😀',
    ];
    for (const body of bodies) {
      const written = entry(body, { question: 'what is\nthe "answer"?' });
      expect(parseEntry(serializeEntry(written))).toEqual(written);
    }
  });

  it('writes the body as it is, not escaped as a JSON string', () => {
    const text = serializeEntry(entry('data: "x"\n\n'));
    expect(text.endsWith('\ndata: "x"\n\n')).toBe(true);
    expect(text).not.toContain('\\"x\\"');
  });

  it('still reads an entry written whole as JSON, and takes anything else for a miss', () => {
    const old = entry('{"id":1}', { contentType: 'application/json', stream: false });
    expect(parseEntry(JSON.stringify(old))).toEqual(old);
    expect(parseEntry('not json')).toBeUndefined();
    expect(parseEntry('not json\nbody')).toBeUndefined();
    expect(parseEntry(`${JSON.stringify({ v: 2, status: 200 })}\nbody`)).toBeUndefined();
    expect(parseEntry('null\nbody')).toBeUndefined();
  });
});

/** A memory store whose cache reads and writes hang while `hanging` is set (a paused Redis). */
class HangingStore extends MemoryRuntimeStore {
  hanging = false;

  override getCacheEntry(key: string): Promise<string | undefined> {
    return this.hanging ? new Promise(() => {}) : super.getCacheEntry(key);
  }

  override setCacheEntry(key: string, value: string, ttlMs: number): Promise<void> {
    return this.hanging ? new Promise(() => {}) : super.setCacheEntry(key, value, ttlMs);
  }
}

describe('ResponseCache store timeout', () => {
  it('bypasses a store that does not answer in time, counts it, and uses it again once it answers', async () => {
    const runtime = new HangingStore();
    const mirror = new CacheScopeMirror(runtime);
    await mirror.start();
    const registry = new Registry();
    const metrics = createCacheMetrics(registry);
    const cache = new ResponseCache({
      runtime,
      mirror,
      metrics,
      log: createLogger('silent', 'test'),
      maxEntryBytes: 1 << 20,
      timeoutMs: 30,
    });
    const location = { scopeId: 't1/ws1', namespace: '', hash: 'a'.repeat(64) };
    const stored = entry('{"id":1}', { createdAtMs: Date.now(), requestedAtMs: Date.now(), tags: [] });
    const errors = async () =>
      (await registry.getSingleMetricAsString('gateway_cache_errors_total'))
        .split('\n')
        .filter((line) => !line.startsWith('#'));

    runtime.hanging = true;
    // Each call gives up after its own timeout (without one, the test's would end it).
    expect(await cache.store(location, stored)).toBe(false);
    expect(await cache.lookup(location, false)).toEqual({ kind: 'bypass' });
    expect(await errors()).toEqual([
      'gateway_cache_errors_total{operation="store"} 1',
      'gateway_cache_errors_total{operation="lookup"} 1',
    ]);

    runtime.hanging = false;
    expect(await cache.store(location, stored)).toBe(true);
    const found = await cache.lookup(location, false);
    expect(found.kind).toBe('hit');
    expect(found.kind === 'hit' ? found.entry : undefined).toEqual(stored);
    await mirror.close();
    await runtime.close();
  });
});
