/** The semantic cache's Prometheus metrics (no tenant-controlled label values). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { SemanticMirrorStats } from '../../stores/redis-runtime/semantic-mirror.ts';

export interface SemanticMetrics {
  lookups: Counter<'route'>;
  hits: Counter<'route'>;
  /** Why a semantic lookup served nothing (or was not made). */
  misses: Counter<'reason'>;
  similarity: Histogram;
  embedSeconds: Histogram;
  /** Time to verify the candidate a lookup would serve (pair-verifier.ts). */
  verifySeconds: Histogram;
  /** Candidates scanned per lookup, as the depth valve allowed. */
  depth: Histogram;
  writes: Counter;
}

export function createSemanticMetrics(registry: Registry): SemanticMetrics {
  return {
    lookups: new Counter({
      name: 'gateway_semcache_lookups_total',
      help: 'Semantic lookups made after an exact miss',
      labelNames: ['route'],
      registers: [registry],
    }),
    hits: new Counter({
      name: 'gateway_semcache_hits_total',
      help: 'Semantic lookups that served a cached answer',
      labelNames: ['route'],
      registers: [registry],
    }),
    misses: new Counter({
      name: 'gateway_semcache_misses_total',
      help: 'Semantic misses by reason: no_candidates, below_threshold, guard, verifier (the pair verifier refused the candidate), verifier_words (the changed words read alone refused it), verifier_loading, verify_failed (the verifier timed out or failed), entry_gone, embed_failed, embedder_loading (the model loading at its first use), store_failed, and the turns not eligible (tool_use, non_text, too_long, no_user_message, operation)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    similarity: new Histogram({
      name: 'gateway_semcache_similarity',
      help: 'Best similarity found per lookup that had candidates',
      buckets: [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98, 1],
      registers: [registry],
    }),
    embedSeconds: new Histogram({
      name: 'gateway_semcache_embed_seconds',
      help: 'Time to embed one question (queueing for the model included)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    verifySeconds: new Histogram({
      name: 'gateway_semcache_verify_seconds',
      help: 'Time to verify the one candidate a lookup would serve with the pair verifier (queueing for the model included)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    depth: new Histogram({
      name: 'gateway_semcache_scan_depth',
      help: 'Candidates a lookup was allowed to scan (the depth valve)',
      buckets: [10, 50, 100, 250, 500, 1000, 2000, 5000, 10000],
      registers: [registry],
    }),
    writes: new Counter({
      name: 'gateway_semcache_writes_total',
      help: 'Answers added to the semantic index',
      registers: [registry],
    }),
  };
}

/**
 * The Redis store's copy of the semantic buckets (redis-runtime/semantic-mirror.ts), read at
 * scrape time: how its syncs were answered, the bytes they moved, what it holds.
 */
export function registerSemanticMirrorMetrics(
  registry: Registry,
  read: () => Readonly<SemanticMirrorStats>,
): void {
  new Counter({
    name: 'gateway_semcache_mirror_reads_total',
    help: 'Semantic scans on Redis by what they read: delta (only the candidates written since this pod last read the bucket, often none), full (the newest candidates: first read, copy evicted, trimmed past or recreated), missing (no bucket)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const stats = read();
      this.reset();
      this.inc({ kind: 'delta' }, stats.deltaReads);
      this.inc({ kind: 'full' }, stats.fullReads);
      this.inc({ kind: 'missing' }, stats.missingReads);
    },
  });
  new Counter({
    name: 'gateway_semcache_mirror_read_bytes_total',
    help: 'Candidate bytes semantic scans read from Redis',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read().bytesRead);
    },
  });
  new Gauge({
    name: 'gateway_semcache_mirror_bytes',
    help: 'Bytes of semantic buckets this process holds a copy of (GATEWAY_SEMCACHE_MIRROR_BYTES bounds it)',
    registers: [registry],
    collect() {
      this.set(read().bytes);
    },
  });
}
