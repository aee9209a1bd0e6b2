/**
 * The cache step of the request path (DESIGN section 5, step 6): looks the request's cache plan
 * (cache/cache-plan.ts) up, serves entries (JSON, or the recorded SSE bytes), and says what the
 * forwarded answer is to be written as. A hit costs nothing and never reaches the provider.
 */

import type { FastifyReply } from 'fastify';
import {
  CACHE_AGE_HEADER,
  CACHE_HEADER,
  CACHE_SIMILARITY_HEADER,
  type CachePlan,
  type CacheWrite,
  newEntry,
} from '../cache/cache-plan.ts';
import type { CacheEntry } from '../cache/response-cache.ts';
import type { RequestTrace } from '../observability/tracing.ts';
import type { InferenceDeps } from './inference-deps.ts';

/** An entry to answer from: an exact hit, a semantic one (with its similarity), or a stale copy. */
export interface ServedEntry {
  entry: CacheEntry;
  result: 'hit' | 'semantic-hit' | 'stale';
  ageSeconds?: number;
  similarity?: number;
}

/** What the cache step decided: serve an entry, or forward (with a stale refresh's lock, and what to write). */
export type CacheDecision =
  | ({ kind: 'serve' } & ServedEntry)
  | { kind: 'forward'; write: CacheWrite | undefined; refresh?: { entry: CacheEntry; lockToken: string } };

export async function decideFromCache(
  plan: CachePlan | undefined,
  routeLabel: string,
  deps: Pick<InferenceDeps, 'cache' | 'cacheMetrics' | 'semantic'>,
  requestTrace?: RequestTrace,
): Promise<CacheDecision> {
  if (plan === undefined) return { kind: 'forward', write: undefined };
  if (plan.semanticSkipped !== undefined && deps.semantic !== undefined) {
    deps.semantic.countSkipped(plan.semanticSkipped);
  }
  const lookup = plan.read ? await deps.cache.lookup(plan.location, plan.write) : { kind: 'miss' as const };
  if (lookup.kind === 'hit') {
    return { kind: 'serve', entry: lookup.entry, result: 'hit', ageSeconds: lookup.ageSeconds };
  }
  // On an exact miss, a semantic match: another question of the same context that means the same.
  if (lookup.kind === 'miss' && plan.read && plan.semantic !== undefined && deps.semantic !== undefined) {
    const found = await deps.semantic.lookup(plan.location, plan.semantic, routeLabel, requestTrace);
    if (found !== undefined) {
      return { kind: 'serve', entry: found.entry, result: 'semantic-hit', similarity: found.similarity };
    }
  }
  if (lookup.kind === 'stale' && lookup.lockToken === undefined) {
    return { kind: 'serve', entry: lookup.entry, result: 'stale' };
  }
  if (lookup.kind === 'bypass') {
    deps.cacheMetrics.results.inc({ route: routeLabel, result: 'bypass' });
    return { kind: 'forward', write: undefined };
  }
  const refresh =
    lookup.kind === 'stale' ? { entry: lookup.entry, lockToken: lookup.lockToken as string } : undefined;
  const result = refresh !== undefined || plan.directive.mode === 'force-refresh' ? 'refresh' : 'miss';
  deps.cacheMetrics.results.inc({ route: routeLabel, result });
  return {
    kind: 'forward',
    write: { plan, result, write: plan.write },
    ...(refresh === undefined ? {} : { refresh }),
  };
}

/** Answers from an entry with the request's balance and routing headers; costs nothing. */
export function serveFromCache(
  reply: FastifyReply,
  served: ServedEntry,
  headers: Record<string, string>,
  routeLabel: string,
  deps: Pick<InferenceDeps, 'cacheMetrics'>,
): FastifyReply {
  const { entry, result } = served;
  deps.cacheMetrics.results.inc({ route: routeLabel, result });
  deps.cacheMetrics.savedMicros.inc(entry.costMicros);
  reply
    .code(entry.status)
    .headers(headers)
    .header('content-type', entry.contentType)
    .header(CACHE_HEADER, result);
  if (result === 'hit' && served.ageSeconds !== undefined)
    reply.header(CACHE_AGE_HEADER, String(served.ageSeconds));
  if (result === 'semantic-hit' && served.similarity !== undefined)
    reply.header(CACHE_SIMILARITY_HEADER, served.similarity.toFixed(3));
  return reply.send(entry.body);
}

/**
 * Writes a forwarded answer as its plan says: the exact entry, and on a semantic plan the
 * question's vector next to it (for as long as the answer is fresh).
 */
export async function storeAnswer(
  write: CacheWrite,
  answer: { status: number; contentType: string; body: string; stream: boolean },
  costMicros: number,
  deps: Pick<InferenceDeps, 'cache' | 'semantic'>,
): Promise<void> {
  const { plan } = write;
  const stored = await deps.cache.store(plan.location, newEntry(plan, answer, costMicros));
  if (stored && plan.semantic !== undefined && deps.semantic !== undefined) {
    await deps.semantic.remember(plan.location, plan.semantic, plan.policy.ttlMs);
  }
}
