/**
 * The exact-match response cache: lookup (fresh, stale inside the SWR window, or miss), the SWR
 * refresh lock, and writes. Every store call is bounded by a timeout; a failing store makes the
 * cache step a bypass (counted and logged), never an error for the client.
 */
import type { Logger } from '../observability/logger.ts';
import { StoreUnavailableError } from '../stores/store-breaker.ts';
import type { CacheScopeState, RuntimeStore } from '../stores/types.ts';
import { failAfter } from '../stores/wait-at-most.ts';
import { namespaceDigest } from './cache-key.ts';
import type { CacheMetrics } from './cache-metrics.ts';
import type { CacheScopeMirror } from './scope-mirror.ts';

/** What a cache entry holds. Versioned; an unreadable entry is a miss. */
export interface CacheEntry {
  v: 1;
  status: number;
  contentType: string;
  /** The JSON body, or the SSE text exactly as the client received it. */
  body: string;
  stream: boolean;
  createdAtMs: number;
  /**
   * When the request that fetched it began: a tag revalidated after this instant stops the entry,
   * even one whose answer was still on its way when the revalidation happened. Absent in entries
   * written before the field existed (their `createdAtMs` stands in).
   */
  requestedAtMs?: number;
  ttlMs: number;
  swrMs: number;
  tags: string[];
  /** What the response cost when it was fetched: what each hit saves. */
  costMicros: number;
  /** The question of a semantic entry (its latest user message), for the hit guard. */
  question?: string;
}

export type Lookup =
  | { kind: 'hit'; entry: CacheEntry; ageSeconds: number }
  | { kind: 'stale'; entry: CacheEntry; lockToken?: string }
  | { kind: 'miss' }
  | { kind: 'bypass' };

const MISS: Lookup = Object.freeze({ kind: 'miss' });

export interface CacheLocation {
  /** The workspace's cache scope, `<tenantId>/<workspaceId>` (cache-key.ts cacheScopeId). */
  scopeId: string;
  namespace: string;
  hash: string;
  /**
   * Scope, namespace and purge generations, as the request's first key found them (set by
   * ResponseCache): the request's later keys (its cache write, its semantic bucket, its lock)
   * use the same generations, so an answer that was on its way during a purge is written where
   * the purged entries were, and never served after the purge.
   */
  scopePrefix?: string;
}

export interface ResponseCacheOptions {
  runtime: RuntimeStore;
  mirror: CacheScopeMirror;
  metrics: CacheMetrics;
  log: Logger;
  /** Entries larger than this are not cached. */
  maxEntryBytes: number;
  /**
   * Bound on each store call on the request path; 0 for none (the memory store, which answers
   * within the call: a timer per call there costs more than the call).
   */
  timeoutMs: number;
}

class CacheTimeoutError extends Error {}

/**
 * An entry as stored: its fields but the body as JSON, a newline, then the body as it is. The body
 * (often the longest part, an SSE answer full of quotes and line breaks) is neither escaped on a
 * write nor unescaped on a read. JSON never holds a raw newline, so the first one ends the fields.
 */
export function serializeEntry(entry: CacheEntry): string {
  const { body, ...fields } = entry;
  return `${JSON.stringify(fields)}\n${body}`;
}

/**
 * The entry `text` holds; undefined when it is unreadable (a miss). Entries written whole as JSON,
 * before the body went apart, are still read.
 */
export function parseEntry(text: string): CacheEntry | undefined {
  try {
    const newline = text.indexOf('\n');
    const entry =
      newline === -1
        ? (JSON.parse(text) as CacheEntry)
        : ({ ...JSON.parse(text.slice(0, newline)), body: text.slice(newline + 1) } as CacheEntry);
    return entry?.v === 1 && typeof entry.body === 'string' ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** The scope prefix of `location` under `scope`'s generations, kept on the location (computed once). */
function prefixOf(
  location: Pick<CacheLocation, 'scopeId' | 'namespace' | 'scopePrefix'>,
  scope: CacheScopeState,
): string {
  const namespaceGeneration = location.namespace === '' ? 0 : (scope.namespaces.get(location.namespace) ?? 0);
  const namespace = location.namespace === '' ? '-' : namespaceDigest(location.namespace);
  location.scopePrefix = `${location.scopeId}:${namespace}:${scope.generation}.${namespaceGeneration}`;
  return location.scopePrefix;
}

export class ResponseCache {
  readonly #options: ResponseCacheOptions;

  constructor(options: ResponseCacheOptions) {
    this.#options = options;
  }

  /** The largest entry stored (GATEWAY_CACHE_MAX_ENTRY_BYTES): a stream recorded for it stops past this. */
  get maxEntryBytes(): number {
    return this.#options.maxEntryBytes;
  }

  /** `operation` bounded by the store timeout (itself when there is none: no promise more). */
  #bounded<T>(operation: Promise<T>): Promise<T> {
    return this.#options.timeoutMs === 0
      ? operation
      : failAfter(operation, this.#options.timeoutMs, () => new CacheTimeoutError('cache store timed out'));
  }

  #failed(operation: string, error: unknown): void {
    this.#options.metrics.errors.inc({ operation });
    // An outage is logged once by the store's breaker; a lookup failing fast during it is only counted.
    if (error instanceof StoreUnavailableError) return;
    this.#options.log.warn({ err: error, operation }, 'response cache unavailable: bypassing it');
  }

  /**
   * The store key: workspace, namespace, both purge generations, request hash. A string when the
   * scope is at hand (the mirror holds it, or the request's first key found it): no promise then.
   */
  #entryKey(location: CacheLocation): string | Promise<string> {
    const prefix = this.#scopePrefix(location);
    return typeof prefix === 'string'
      ? `${prefix}:${location.hash}`
      : prefix.then((known) => `${known}:${location.hash}`);
  }

  /**
   * Workspace, namespace and both purge generations: a purge moves every key under it at once.
   * Computed once per location (see CacheLocation.scopePrefix).
   */
  #scopePrefix(
    location: Pick<CacheLocation, 'scopeId' | 'namespace' | 'scopePrefix'>,
  ): string | Promise<string> {
    if (location.scopePrefix !== undefined) return location.scopePrefix;
    const known = this.#options.mirror.known(location.scopeId);
    if (known !== undefined) return prefixOf(location, known);
    return this.#options.mirror.scope(location.scopeId).then((scope) => prefixOf(location, scope));
  }

  /**
   * The key of a semantic bucket in the same scope as the entries (so a purge drops both): the
   * context's hash and the vectors' dimensions.
   */
  async semanticBucketKey(
    location: Pick<CacheLocation, 'scopeId' | 'namespace' | 'scopePrefix'>,
    bucket: string,
    dimensions: number,
  ): Promise<string> {
    return `${await this.#scopePrefix(location)}:s:${bucket}:d${dimensions}`;
  }

  /**
   * The entry at `location` when it is fresh and none of its tags was revalidated after its request
   * began (a semantic candidate's answer); undefined otherwise, or when the store fails.
   */
  async freshEntry(location: CacheLocation, nowMs = Date.now()): Promise<CacheEntry | undefined> {
    try {
      const lookup = await this.#bounded(this.#lookup(location, false, nowMs));
      return lookup.kind === 'hit' ? lookup.entry : undefined;
    } catch (error) {
      this.#failed('lookup', error);
      return undefined;
    }
  }

  /**
   * Looks the request up. With `lockForStale` (a caller that will write the fresh answer), a stale
   * entry comes with the refresh lock when this caller is the one to refresh; a caller that will
   * not write (`no-store`) never takes it, so it cannot use up the window's one refresh.
   */
  lookup(location: CacheLocation, lockForStale: boolean, nowMs = Date.now()): Promise<Lookup> {
    const bypass = (error: unknown): Lookup => {
      this.#failed('lookup', error);
      return { kind: 'bypass' };
    };
    // Not an async function: a request's lookup makes one promise less.
    try {
      return this.#bounded(this.#lookup(location, lockForStale, nowMs)).then(undefined, bypass);
    } catch (error) {
      return Promise.resolve(bypass(error));
    }
  }

  /** Not an async function: a miss (the common case) makes no promise beyond the store's own. */
  #lookup(location: CacheLocation, lockForStale: boolean, nowMs: number): Promise<Lookup> {
    const entryKey = this.#entryKey(location);
    const judge = (key: string) =>
      this.#options.runtime
        .getCacheEntry(key)
        .then((text) =>
          text === undefined ? MISS : this.#judge(key, location, parseEntry(text), lockForStale, nowMs),
        );
    return typeof entryKey === 'string' ? judge(entryKey) : entryKey.then(judge);
  }

  /** A stored entry found: served, stale (with the refresh lock when this caller takes it) or a miss. */
  async #judge(
    key: string,
    location: CacheLocation,
    entry: CacheEntry | undefined,
    lockForStale: boolean,
    nowMs: number,
  ): Promise<Lookup> {
    if (entry === undefined) return { kind: 'miss' };
    // Served only if its request began after every invalidation of its tags. (Pod clocks are
    // taken to be NTP-synchronised: their skew is the margin of error.)
    const scope =
      this.#options.mirror.known(location.scopeId) ?? (await this.#options.mirror.scope(location.scopeId));
    const requestedAtMs = entry.requestedAtMs ?? entry.createdAtMs;
    for (const tag of entry.tags) {
      const invalidatedAt = scope.tags.get(tag);
      if (invalidatedAt !== undefined && invalidatedAt >= requestedAtMs) return { kind: 'miss' };
    }
    const age = nowMs - entry.createdAtMs;
    if (age < entry.ttlMs) return { kind: 'hit', entry, ageSeconds: Math.max(0, Math.floor(age / 1000)) };
    if (age < entry.ttlMs + entry.swrMs) {
      if (!lockForStale) return { kind: 'stale', entry };
      // One caller per window refreshes: the lock lives until the window ends at the latest.
      const lockToken = await this.#options.runtime.acquireLock(
        `swr:${key}`,
        Math.max(1000, entry.ttlMs + entry.swrMs - age),
      );
      return lockToken === undefined ? { kind: 'stale', entry } : { kind: 'stale', entry, lockToken };
    }
    return { kind: 'miss' };
  }

  /** Writes an entry; returns whether it was written (too large or a failing store: not). */
  store(location: CacheLocation, entry: CacheEntry): Promise<boolean> {
    const text = serializeEntry(entry);
    const bytes = Buffer.byteLength(text);
    if (bytes > this.#options.maxEntryBytes) {
      this.#options.metrics.skipped.inc({ reason: 'too_large' });
      return Promise.resolve(false);
    }
    const ttlMs = entry.ttlMs + entry.swrMs;
    const written = () => {
      this.#options.metrics.bytesWritten.inc(bytes);
      return true;
    };
    const failed = (error: unknown) => {
      this.#failed('store', error);
      return false;
    };
    // Not an async function: a write whose key is at hand makes one promise besides the store's.
    try {
      const entryKey = this.#entryKey(location);
      const writing =
        typeof entryKey === 'string'
          ? this.#bounded(this.#options.runtime.setCacheEntry(entryKey, text, ttlMs))
          : this.#bounded(entryKey).then((key) =>
              this.#bounded(this.#options.runtime.setCacheEntry(key, text, ttlMs)),
            );
      return writing.then(written, failed);
    } catch (error) {
      return Promise.resolve(failed(error));
    }
  }

  /** Gives the refresh lock back (after a failed refresh, so another caller may try). */
  async release(location: CacheLocation, lockToken: string): Promise<void> {
    try {
      const entryKey = this.#entryKey(location);
      const key = typeof entryKey === 'string' ? entryKey : await this.#bounded(entryKey);
      await this.#bounded(this.#options.runtime.releaseLock(`swr:${key}`, lockToken));
    } catch (error) {
      this.#failed('release', error);
    }
  }
}
