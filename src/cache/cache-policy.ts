/**
 * Which policy applies, and the TTL, stale window and tags an entry gets under it.
 */
import { InvalidRequestError } from '../errors/gateway-error.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { CachePolicyRecord } from '../stores/records.ts';
import { type CacheDirective, MAX_CACHE_TTL_SECONDS } from './cache-request.ts';

/** The name of the policy used when a request names none (a tenant may configure its own). */
export const DEFAULT_POLICY_NAME = 'default';

/** Built in when nothing is configured: 600 s fresh, no stale window, 24 h ceiling. */
export const BUILTIN_POLICY = Object.freeze({
  ttlSeconds: 600,
  swrSeconds: 0,
  maxTtlSeconds: MAX_CACHE_TTL_SECONDS,
  defaultTags: [] as string[],
  semantic: false,
});

export interface EffectivePolicy {
  name: string;
  ttlMs: number;
  swrMs: number;
  tags: string[];
  semantic: boolean;
}

export function resolveCachePolicy(
  view: ConfigView,
  tenantId: string,
  workspaceId: string,
  directive: CacheDirective,
): EffectivePolicy {
  let policy: Pick<
    CachePolicyRecord,
    'ttlSeconds' | 'swrSeconds' | 'maxTtlSeconds' | 'defaultTags' | 'semantic'
  >;
  const name = directive.policyName ?? DEFAULT_POLICY_NAME;
  const configured = view.cachePolicy(tenantId, workspaceId, name);
  if (configured !== undefined) policy = configured;
  else if (directive.policyName === undefined) policy = BUILTIN_POLICY;
  else throw new InvalidRequestError(`unknown cache policy '${directive.policyName}'`);
  const ceiling = Math.min(policy.maxTtlSeconds, MAX_CACHE_TTL_SECONDS);
  const ttlSeconds = Math.min(directive.ttlSeconds ?? policy.ttlSeconds, ceiling);
  return {
    name,
    ttlMs: ttlSeconds * 1000,
    swrMs: policy.swrSeconds * 1000,
    tags:
      directive.tags.length === 0 && policy.defaultTags.length === 0
        ? []
        : [...new Set([...directive.tags, ...policy.defaultTags])],
    semantic: policy.semantic,
  };
}
