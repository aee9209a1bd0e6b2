/**
 * The cache step of the request path (DESIGN section 5, step 6): looks the request's cache plan
 * (cache/cache-plan.ts) up, serves entries (JSON, or the recorded SSE bytes), and says what the
 * forwarded answer is to be written as. A hit costs nothing and never reaches the provider.
 */
import type { FastifyReply } from 'fastify';
import { CACHE_AGE_HEADER, CACHE_HEADER, type CachePlan, type CacheWrite } from '../cache/cache-plan.ts';
import type { CacheEntry } from '../cache/response-cache.ts';
import type { InferenceDeps } from './inference-deps.ts';

/** What the cache step decided: serve an entry, or forward (with a stale refresh's lock, and what to write). */
export type CacheDecision =
  | { kind: 'serve'; entry: CacheEntry; result: 'hit' | 'stale'; ageSeconds?: number }
  | { kind: 'forward'; write: CacheWrite | undefined; refresh?: { entry: CacheEntry; lockToken: string } };

export async function decideFromCache(
  plan: CachePlan | undefined,
  routeLabel: string,
  deps: Pick<InferenceDeps, 'cache' | 'cacheMetrics'>,
): Promise<CacheDecision> {
  if (plan === undefined) return { kind: 'forward', write: undefined };
  const lookup = plan.read ? await deps.cache.lookup(plan.location, plan.write) : { kind: 'miss' as const };
  if (lookup.kind === 'hit') {
    return { kind: 'serve', entry: lookup.entry, result: 'hit', ageSeconds: lookup.ageSeconds };
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
  served: { entry: CacheEntry; result: 'hit' | 'stale'; ageSeconds?: number },
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
  return reply.send(entry.body);
}
