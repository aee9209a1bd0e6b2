import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerSemanticMirrorMetrics } from './semantic-metrics.ts';

describe('registerSemanticMirrorMetrics', () => {
  it('exports the mirror’s counts as they are when scraped', async () => {
    const registry = new Registry();
    const stats = { deltaReads: 5, fullReads: 2, missingReads: 1, bytesRead: 4240, bytes: 8480, buckets: 1 };
    registerSemanticMirrorMetrics(registry, () => stats);
    stats.deltaReads = 7;
    const text = await registry.metrics();
    expect(text).toContain('gateway_semcache_mirror_reads_total{kind="delta"} 7');
    expect(text).toContain('gateway_semcache_mirror_reads_total{kind="full"} 2');
    expect(text).toContain('gateway_semcache_mirror_reads_total{kind="missing"} 1');
    expect(text).toContain('gateway_semcache_mirror_read_bytes_total 4240');
    expect(text).toContain('gateway_semcache_mirror_bytes 8480');
  });
});
