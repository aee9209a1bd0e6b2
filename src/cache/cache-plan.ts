/**
 * Whether and how one request uses the response cache (DESIGN section 5, step 6): the directive of
 * its headers, the policy in force, the entry's location, and whether it reads and writes. The
 * gateway's cache step (gateway/cache-step.ts) acts on the plan.
 */
import type { ConfigView } from '../stores/config-view.ts';
import { requestHash } from './cache-key.ts';
import { type EffectivePolicy, resolveCachePolicy } from './cache-policy.ts';
import { type CacheDirective, parseCacheDirective } from './cache-request.ts';
import type { CacheEntry, CacheLocation } from './response-cache.ts';

/** Response headers of the cache (specification 4.4). */
export const CACHE_HEADER = 'x-service-cache';
export const CACHE_AGE_HEADER = 'x-service-cache-age';

export type CacheResult = 'hit' | 'miss' | 'refresh' | 'stale';

export interface CachePlan {
  directive: CacheDirective;
  policy: EffectivePolicy;
  location: CacheLocation;
  read: boolean;
  write: boolean;
  /** When the request began: what a tag revalidation is compared with. */
  requestedAtMs: number;
}

/** How a forwarded cacheable request was served, and whether its answer is to be written. */
export interface CacheWrite {
  plan: CachePlan;
  result: 'miss' | 'refresh';
  /** False under `no-store`: the header still says `miss`, nothing is written. */
  write: boolean;
}

/** Who is asking, as far as the cache is concerned. */
export interface CacheScope {
  tenantId: string;
  workspaceId: string;
}

function isCacheableTemperature(body: Record<string, unknown>): boolean {
  return body.temperature === undefined || body.temperature === null || body.temperature === 0;
}

/** Undefined when the request is not cacheable or caching is off (then no cache header at all). */
export function planCache(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: Record<string, unknown>,
  scope: CacheScope,
  routeLabel: string,
  view: ConfigView,
  enabled: boolean,
): CachePlan | undefined {
  const directive = parseCacheDirective(headers);
  if (directive.mode === 'off' || !enabled) return undefined;
  const policy = resolveCachePolicy(view, scope.tenantId, scope.workspaceId, directive);
  // Semantic mode (asked for, or the policy's) caches at any temperature; until semantic
  // matching exists it behaves as exact matching.
  const semantic = directive.mode === 'semantic' || policy.semantic;
  if (!isCacheableTemperature(body) && !directive.force && !semantic) return undefined;
  return {
    directive,
    policy,
    location: {
      workspaceId: scope.workspaceId,
      namespace: directive.namespace,
      hash: requestHash(routeLabel, body),
    },
    read: directive.mode !== 'force-refresh',
    write: directive.mode !== 'no-store',
    requestedAtMs: Date.now(),
  };
}

/** A new entry for an answer the plan writes. */
export function newEntry(
  plan: CachePlan,
  answer: { status: number; contentType: string; body: string; stream: boolean },
  costMicros: number,
): CacheEntry {
  return {
    v: 1,
    ...answer,
    createdAtMs: Date.now(),
    requestedAtMs: plan.requestedAtMs,
    ttlMs: plan.policy.ttlMs,
    swrMs: plan.policy.swrMs,
    tags: plan.policy.tags,
    costMicros,
  };
}
