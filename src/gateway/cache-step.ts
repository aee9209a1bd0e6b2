/**
 * The cache step of the request path (DESIGN section 5, step 6): whether and how a request is
 * cached, serving entries (JSON or the recorded SSE bytes), and writing new ones.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import { renderBalanceHeaders } from '../billing/accountant.ts';
import { ZERO_USAGE } from '../billing/usage.ts';
import { requestHash } from '../cache/cache-key.ts';
import { type EffectivePolicy, resolveCachePolicy } from '../cache/cache-policy.ts';
import { type CacheDirective, parseCacheDirective } from '../cache/cache-request.ts';
import type { CacheEntry, CacheLocation } from '../cache/response-cache.ts';
import { renderRoutingHeaders } from '../providers/resolve-route.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { Exchange, InferenceDeps } from './exchange.ts';
import type { JsonObject } from './validate-body.ts';

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

function isCacheableTemperature(body: JsonObject): boolean {
  return body.temperature === undefined || body.temperature === null || body.temperature === 0;
}

/** Undefined when the request is not cacheable or caching is off (then no cache header at all). */
export function planCache(
  request: FastifyRequest,
  body: JsonObject,
  principal: Principal,
  routeLabel: string,
  view: ConfigView,
  enabled: boolean,
): CachePlan | undefined {
  const directive = parseCacheDirective(request.headers);
  if (directive.mode === 'off' || !enabled) return undefined;
  const policy = resolveCachePolicy(view, principal.tenantId, principal.workspaceId, directive);
  // Semantic mode (asked for, or the policy's) caches at any temperature; until semantic
  // matching exists it behaves as exact matching.
  const semantic = directive.mode === 'semantic' || policy.semantic;
  if (!isCacheableTemperature(body) && !directive.force && !semantic) return undefined;
  return {
    directive,
    policy,
    location: {
      workspaceId: principal.workspaceId,
      namespace: directive.namespace,
      hash: requestHash(routeLabel, body),
    },
    read: directive.mode !== 'force-refresh',
    write: directive.mode !== 'no-store',
    requestedAtMs: Date.now(),
  };
}

export function newEntry(
  plan: CachePlan,
  status: number,
  contentType: string,
  body: string,
  stream: boolean,
  costMicros: number,
): CacheEntry {
  return {
    v: 1,
    status,
    contentType,
    body,
    stream,
    createdAtMs: Date.now(),
    requestedAtMs: plan.requestedAtMs,
    ttlMs: plan.policy.ttlMs,
    swrMs: plan.policy.swrMs,
    tags: plan.policy.tags,
    costMicros,
  };
}

/** Answers from an entry: costs nothing, never reaches the provider. */
export async function serveFromCache(
  reply: FastifyReply,
  entry: CacheEntry,
  result: 'hit' | 'stale',
  ageSeconds: number | undefined,
  exchange: Exchange,
  deps: InferenceDeps,
): Promise<FastifyReply> {
  await deps.limiter.settle(exchange.hold, 0, ZERO_USAGE);
  deps.cacheMetrics.results.inc({ route: exchange.routeLabel, result });
  deps.cacheMetrics.savedMicros.inc(entry.costMicros);
  reply
    .code(entry.status)
    .headers(renderBalanceHeaders(exchange.balance, 0))
    .headers(renderRoutingHeaders(exchange.route))
    .header('content-type', entry.contentType)
    .header(CACHE_HEADER, result);
  if (result === 'hit' && ageSeconds !== undefined) reply.header(CACHE_AGE_HEADER, String(ageSeconds));
  return reply.send(entry.body);
}
