/**
 * Whether and how one request uses the response cache (DESIGN section 5, step 6): the directive of
 * its headers, the policy in force, the entry's location, and whether it reads and writes. The
 * gateway's cache step (gateway/cache-step.ts) acts on the plan.
 */
import type { ClientDialect, Operation } from '../shapes/api.ts';
import type { ConfigView } from '../stores/config-view.ts';
import { cacheScopeId, requestHash } from './cache-key.ts';
import { type EffectivePolicy, resolveCachePolicy } from './cache-policy.ts';
import { type CacheDirective, parseCacheDirective } from './cache-request.ts';
import type { CacheEntry, CacheLocation } from './response-cache.ts';
import { analyseTurn, type IneligibleReason } from './semantic/eligibility.ts';
import type { SemanticPlan } from './semantic/semantic-cache.ts';
import { interpolateToolTags, readToolDeclarations, readToolUse } from './tool-declarations.ts';

/** Response headers of the cache (specification 4.4). */
export const CACHE_HEADER = 'x-service-cache';
export const CACHE_AGE_HEADER = 'x-service-cache-age';
export const CACHE_SIMILARITY_HEADER = 'x-service-cache-similarity';

/** Tags one entry may carry (header, policy and tools' together); an answer with more is not written. */
export const MAX_ENTRY_TAGS = 64;

export type CacheResult = 'hit' | 'semantic-hit' | 'miss' | 'refresh' | 'stale';

export interface CachePlan {
  directive: CacheDirective;
  policy: EffectivePolicy;
  location: CacheLocation;
  read: boolean;
  write: boolean;
  /** When the request began: what a tag revalidation is compared with. */
  requestedAtMs: number;
  /** Semantic mode on an eligible turn with an embedder: the question and its bucket. */
  semantic?: SemanticPlan;
  /** Semantic mode asked for, but this turn uses exact matching only, and why. */
  semanticSkipped?: IneligibleReason | 'disabled';
}

/** What the request path knows that the cache plan needs. */
export interface CachePlanContext {
  operation: Operation;
  dialect: ClientDialect;
  routeLabel: string;
  /** GATEWAY_CACHE (the kill switch). */
  enabled: boolean;
  /** Whether semantic lookups can be made (GATEWAY_SEMCACHE on, and an embedder started). */
  semanticAvailable: boolean;
  /** The threshold when the request names none (0.8). */
  defaultThreshold: number;
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

/**
 * Undefined when the request is not cacheable or caching is off (then no cache header at all).
 * Tools' declared tags (placeholders filled from the calls' arguments) join the entry's tags, in
 * exact mode too; an answer whose declared tags cannot be made is not written. `conversation` is the body
 * the conversation is read from (tool use, the latest question, the semantic bucket) when the
 * operation's own has no `messages` (the Responses API: its input seen as chat messages).
 */
export function planCache(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: Record<string, unknown>,
  scope: CacheScope,
  view: ConfigView,
  context: CachePlanContext,
  conversation: Record<string, unknown> = body,
): CachePlan | undefined {
  const directive = parseCacheDirective(headers);
  if (directive.mode === 'off' || !context.enabled) return undefined;
  const policy = resolveCachePolicy(view, scope.tenantId, scope.workspaceId, directive);
  const semanticMode = directive.mode === 'semantic' || policy.semantic;
  // Semantic mode (asked for, or the policy's) caches at any temperature.
  if (!isCacheableTemperature(body) && !directive.force && !semanticMode) return undefined;
  const declarations = readToolDeclarations(body);
  const toolUse = readToolUse(conversation, context.dialect);
  const toolTags = interpolateToolTags(toolUse, declarations);
  const tags =
    toolTags === undefined || toolTags.length === 0
      ? policy.tags
      : [...new Set([...policy.tags, ...toolTags])];
  const plan: CachePlan = {
    directive,
    policy: { ...policy, tags },
    location: {
      scopeId: cacheScopeId(scope.tenantId, scope.workspaceId),
      namespace: directive.namespace,
      hash: requestHash(context.routeLabel, body),
    },
    read: directive.mode !== 'force-refresh',
    // No revalidation could reach an answer whose declared tags could not be made.
    write: directive.mode !== 'no-store' && toolTags !== undefined && tags.length <= MAX_ENTRY_TAGS,
    requestedAtMs: Date.now(),
  };
  if (!semanticMode) return plan;
  if (!context.semanticAvailable) return { ...plan, semanticSkipped: 'disabled' };
  const turn = analyseTurn(
    context.operation,
    context.dialect,
    context.routeLabel,
    conversation,
    toolUse,
    declarations,
  );
  if (!turn.eligible) return { ...plan, semanticSkipped: turn.reason };
  return {
    ...plan,
    semantic: {
      question: turn.question,
      bucket: turn.bucket,
      threshold: directive.threshold ?? context.defaultThreshold,
    },
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
    ...(plan.semantic === undefined ? {} : { question: plan.semantic.question }),
  };
}
