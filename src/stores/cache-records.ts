/**
 * Checks and parsing shared by the runtime stores for cache entries, locks, purge generations and
 * tag invalidations, so that memory and Redis refuse the same inputs and announce the same events.
 */
import type { CacheInvalidationEvent } from './types.ts';

function assertNonEmpty(name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
}

export function assertCacheEntry(key: string, value: string, ttlMs: number): void {
  assertNonEmpty('key', key);
  if (typeof value !== 'string') throw new TypeError('value must be a string');
  assertTtlMs(ttlMs);
}

export function assertTtlMs(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new TypeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  }
}

export function assertCacheKey(key: string): void {
  assertNonEmpty('key', key);
}

export function assertLockName(name: string): void {
  assertNonEmpty('lock name', name);
}

export function assertLockRelease(name: string, token: string): void {
  assertNonEmpty('lock name', name);
  assertNonEmpty('lock token', token);
}

export function assertWorkspaceId(workspaceId: string): void {
  assertNonEmpty('workspaceId', workspaceId);
}

/** A namespace is free-form but not empty: '' stands for the workspace itself in the Redis layout. */
export function assertPurge(workspaceId: string, namespace: string | undefined): void {
  assertNonEmpty('workspaceId', workspaceId);
  if (namespace !== undefined) assertNonEmpty('namespace', namespace);
}

/** Checks the invalidation and returns its tags without duplicates, in their first order. */
export function checkTagInvalidation(workspaceId: string, tags: readonly string[], atMs: number): string[] {
  assertNonEmpty('workspaceId', workspaceId);
  if (!Array.isArray(tags)) throw new TypeError('tags must be an array');
  for (const tag of tags) assertNonEmpty('tag', tag);
  if (typeof atMs !== 'number' || !Number.isSafeInteger(atMs)) {
    throw new TypeError(`atMs must be a safe integer (ms), got ${atMs}`);
  }
  return [...new Set(tags)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isId = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value);

/**
 * A cache feed message: JSON `{type:'purge',workspaceId,namespace?,generation}` or
 * `{type:'tags',workspaceId,tags,atMs}`; undefined when malformed.
 */
export function parseCacheInvalidationMessage(message: string): CacheInvalidationEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !isId(value.workspaceId)) return undefined;
  const { workspaceId } = value;
  if (value.type === 'purge' && isInteger(value.generation)) {
    const { namespace, generation } = value;
    if (namespace === undefined || namespace === null) return { type: 'purge', workspaceId, generation };
    if (!isId(namespace)) return undefined;
    return { type: 'purge', workspaceId, namespace, generation };
  }
  if (value.type === 'tags' && Array.isArray(value.tags) && value.tags.every(isId) && isInteger(value.atMs)) {
    return { type: 'tags', workspaceId, tags: [...value.tags], atMs: value.atMs };
  }
  return undefined;
}
