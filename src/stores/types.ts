import type { ConfigKind, ConfigRecordMap } from './records.ts';

/**
 * A change announced on the config store's feed. `reset` tells a watcher that changes may have
 * been missed (feed reconnected, store wiped) and it must reload everything.
 */
export type ConfigChange = { op: 'put' | 'delete'; kind: ConfigKind; id: string } | { op: 'reset' };

export type Unsubscribe = () => Promise<void>;

/** Every record of every kind, keyed by id. */
export type ConfigSnapshot = { [K in ConfigKind]: Map<string, ConfigRecordMap[K]> };

/**
 * The config store (DESIGN section 2): derived configuration, rebuilt from the resources by the
 * reconcile step. Redis in production, memory in standalone. Only stores/ knows the key layout.
 */
export interface ConfigStore {
  get<K extends ConfigKind>(kind: K, id: string): Promise<ConfigRecordMap[K] | undefined>;
  list<K extends ConfigKind>(kind: K): Promise<ConfigRecordMap[K][]>;
  /** Every record of every kind in one round trip where the backend allows. */
  snapshot(): Promise<ConfigSnapshot>;
  /** Writes the record and announces `put` on the change feed. */
  put<K extends ConfigKind>(kind: K, id: string, record: ConfigRecordMap[K]): Promise<void>;
  /** Removes the record (no-op if absent) and announces `delete`. */
  delete(kind: ConfigKind, id: string): Promise<void>;
  /**
   * The store's epoch marker: set by the reconciler after a full sync; absent after a wipe
   * (e.g. Redis restarted without persistence), which tells the reconciler to rebuild.
   */
  getEpoch(): Promise<string | undefined>;
  setEpoch(epoch: string): Promise<void>;
  /**
   * Subscribes to the change feed. The listener also receives `reset` whenever the feed
   * (re)connects after a drop, since changes may have been missed meanwhile.
   */
  watch(listener: (change: ConfigChange) => void): Promise<Unsubscribe>;
  close(): Promise<void>;
}

/**
 * The runtime store (DESIGN section 2): balances, counters and (in later modules) cache entries,
 * denylists, rate windows and locks. Redis in production, memory in standalone (with durable
 * records persisted under STATE_DIR).
 */
export interface RuntimeStore {
  /** The tenant's platform balance in USD micros; undefined when never set. */
  getBalance(tenantId: string): Promise<number | undefined>;
  /** Sets the balance only if it has never been set; returns whether it was set. */
  initBalance(tenantId: string, micros: number): Promise<boolean>;
  /** Atomically adds `deltaMicros` (negative to debit) and returns the new balance. */
  adjustBalance(tenantId: string, deltaMicros: number): Promise<number>;
  /**
   * Atomically adds `by` to a named counter and returns its new value. With `ttlSeconds` the
   * counter expires; without, it never does. Every counter is durable on Redis; the memory store
   * persists counters without a TTL, and those with one only when created or touched with
   * `keep: 'durable'` (see CounterKeep).
   */
  incrementCounter(name: string, by: number, ttlSeconds?: number, keep?: CounterKeep): Promise<number>;
  /** A counter's value (0 when absent or expired). */
  getCounter(name: string): Promise<number>;
  /**
   * Atomically adds `amount` to a counter unless that would take it above `cap`. Returns whether
   * it was added and the counter's value afterwards. With `ttlSeconds` the counter expires (set on
   * creation, never extended), as with incrementCounter.
   */
  reserveWithinCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
    keep?: CounterKeep,
  ): Promise<{ ok: boolean; value: number }>;
  /**
   * Atomically reserves `min(amount, cap - value)` on a counter that is still below `cap`, and
   * refuses (adding nothing) once it is at or above it. Returns whether it reserved, how much, and
   * the counter's value afterwards. Concurrent callers therefore share out what is left instead of
   * all passing on the last unit. TTL and durability as with reserveWithinCap.
   */
  reserveUpToCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
    keep?: CounterKeep,
  ): Promise<{ ok: boolean; reserved: number; value: number }>;
  /**
   * Applies a change to a balance or a counter once per `operationId`, however often it is sent
   * (a journaled change replayed after an outage, resent after a lost reply). A balance is changed
   * only if it exists (a postpaid tenant has none). Returns what this call did: `applied`;
   * `no-balance`, the operation taken but the balance not there to change; `repeat`, the operation
   * taken before (a repeat within a day is ignored).
   */
  applySpendOnce(change: SpendChange, operationId: string): Promise<SpendOnceOutcome>;

  /** Records a minted ephemeral token's owner (for revocation checks); kept until it expires. Durable. */
  recordToken(record: TokenRecord): Promise<void>;
  getToken(jti: string): Promise<TokenRecord | undefined>;
  /** Denylists one token until `expiresAtMs`; announced on the revocation feed. Durable. */
  revokeToken(jti: string, expiresAtMs: number): Promise<void>;
  /**
   * Revokes every token of a key issued before `atMs` (a later call with an earlier time never
   * moves it back); kept for a day, the longest a token lives. Announced on the feed. Durable.
   */
  revokeTokensForKey(keyId: string, atMs: number): Promise<void>;
  /** The whole denylist, for a process's local mirror (expired entries left out). */
  loadRevocations(): Promise<Revocations>;
  /** Direct checks, for when the feed is down. */
  isTokenRevoked(jti: string): Promise<boolean>;
  keyRevokedAt(keyId: string): Promise<number | undefined>;
  /**
   * Subscribes to revocations. The listener receives `reset` after the feed (re)connects following
   * a drop, and `down` when it drops, so a mirror knows when it cannot be trusted.
   */
  watchRevocations(listener: (event: RevocationEvent) => void): Promise<Unsubscribe>;

  /** Appends to a tenant's audit log (newest kept; at most AUDIT_LOG_LIMIT per tenant). Durable. */
  appendAudit(tenantId: string, entry: AuditEntry): Promise<void>;
  /** Newest first; `before` is an entry id to page from. */
  listAudit(tenantId: string, limit: number, before?: string): Promise<AuditEntry[]>;

  /** A cached response (opaque serialised entry), or undefined when absent or expired. Not durable. */
  getCacheEntry(key: string): Promise<string | undefined>;
  /** Stores a cache entry for `ttlMs` (fresh time plus stale window). */
  setCacheEntry(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * Takes a lock if free (e.g. one stale-while-revalidate refresh per entry); returns a token to
   * release it with, or undefined when someone holds it. The lock expires after `ttlMs` regardless.
   */
  acquireLock(name: string, ttlMs: number): Promise<string | undefined>;
  /** Releases a lock only if `token` still holds it. */
  releaseLock(name: string, token: string): Promise<void>;
  /** A workspace's purge generations and tag invalidation times, for a process's local mirror. */
  loadCacheScope(workspaceId: string): Promise<CacheScopeState>;
  /**
   * Purges a workspace's cache (or one namespace of it) by bumping its generation: O(1), old
   * entries age out. Announced on the cache feed. Returns the new generation.
   */
  purgeCache(workspaceId: string, namespace?: string): Promise<number>;
  /**
   * Records that entries with any of `tags` written before `atMs` must not be served (a tag's
   * time never moves back). Announced on the cache feed.
   */
  invalidateCacheTags(workspaceId: string, tags: readonly string[], atMs: number): Promise<void>;
  /** Cache invalidations as they happen; `down` when the feed drops, `reset` when it is back. */
  watchCacheInvalidations(listener: (event: CacheInvalidationEvent) => void): Promise<Unsubscribe>;

  /**
   * Adds a candidate to a semantic bucket (an opaque key of the caller's, naming one context of
   * one workspace and namespace), newest last. The bucket lives at least `ttlMs` more and keeps at
   * most about `maxCandidates` (the oldest go). Not durable.
   */
  addSemanticCandidate(
    bucket: string,
    candidate: SemanticCandidate,
    maxCandidates: number,
    ttlMs: number,
  ): Promise<void>;
  /**
   * The newest `depth` candidates of a bucket whose vectors have `dimensions` components, newest
   * first, expired ones left out (one read, whatever the bucket's size); with `nearest`, only the
   * `count` of them nearest its query, nearest first (decodeSemanticRecords).
   */
  scanSemanticCandidates(
    bucket: string,
    dimensions: number,
    depth: number,
    nearest?: SemanticNearest,
  ): Promise<SemanticCandidate[]>;

  /**
   * Adds one request's usage to a rolled-up cell: per scope (`<tenant>/<workspace>`), UTC day
   * (`YYYY-MM-DD`) and cell (model, key, token and Connection, see usage-cells.ts); the day's
   * cells expire `ttlSeconds` after their last change (the retention). Never one row per request.
   */
  recordUsage(
    scopeId: string,
    day: string,
    cell: string,
    deltas: UsageTotals,
    ttlSeconds: number,
  ): Promise<void>;
  /** The cells of a scope for each of `days`: day → cell → totals (days with none left out). */
  readUsage(scopeId: string, days: readonly string[]): Promise<Map<string, Map<string, UsageTotals>>>;

  /**
   * Stores a Responses-API record (response-records.ts; opaque here) under a workspace `scope` and
   * response id for `ttlMs`, and gives the records of `keepAlive` (the earlier responses of its
   * conversation, same scope) that same life, creating none that is gone: a conversation expires
   * from its last turn, never from the middle. Not durable: the memory store keeps them within a
   * byte budget.
   */
  putStoredResponse(
    scope: string,
    id: string,
    record: string,
    ttlMs: number,
    keepAlive: readonly string[],
  ): Promise<void>;
  /** The records of `ids` in that scope, in one round trip; undefined where absent or expired. */
  getStoredResponses(scope: string, ids: readonly string[]): Promise<Array<string | undefined>>;
  /** Removes a record of that scope; whether there was one. */
  deleteStoredResponse(scope: string, id: string): Promise<boolean>;

  /** Whether the backend answers (used by /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** A usage cell's totals (and a request's deltas to it). */
export interface UsageTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  cacheHits: number;
  /** What the cache hits would have cost. */
  savedMicros: number;
}

export const USAGE_FIELDS = [
  'requests',
  'inputTokens',
  'outputTokens',
  'costMicros',
  'cacheHits',
  'savedMicros',
] as const;

/** Totals of nothing yet. */
export function emptyUsageTotals(): UsageTotals {
  return { requests: 0, inputTokens: 0, outputTokens: 0, costMicros: 0, cacheHits: 0, savedMicros: 0 };
}

export type RuntimeUsage = Pick<RuntimeStore, 'recordUsage' | 'readUsage'>;

/**
 * The runtime store's domains, each a slice of RuntimeStore. Both stores are built from one
 * implementation of each (see ComposedRuntimeStore), so each domain's memory and Redis versions
 * answer to the same signatures.
 */
export type RuntimeCounters = Pick<
  RuntimeStore,
  | 'getBalance'
  | 'initBalance'
  | 'adjustBalance'
  | 'incrementCounter'
  | 'getCounter'
  | 'reserveWithinCap'
  | 'reserveUpToCap'
  | 'applySpendOnce'
>;

/** A change to spend: a tenant's balance, or a named counter (with its TTL and durability). */
export type SpendChange =
  | { kind: 'balance'; tenantId: string; deltaMicros: number }
  | { kind: 'counter'; name: string; by: number; ttlSeconds?: number; keep?: CounterKeep };

/**
 * What `applySpendOnce` did: changed the balance or counter; took the operation but found no
 * balance to change (a postpaid tenant, or a balance record that is gone); or nothing, the
 * operation having been taken before.
 */
export type SpendOnceOutcome = 'applied' | 'no-balance' | 'repeat';

/** How long an applied operation id is remembered (a replay later than this would apply again). */
export const SPEND_OPERATION_TTL_MS = 24 * 60 * 60 * 1000;
export type RuntimeRevocations = Pick<
  RuntimeStore,
  | 'recordToken'
  | 'getToken'
  | 'revokeToken'
  | 'revokeTokensForKey'
  | 'loadRevocations'
  | 'isTokenRevoked'
  | 'keyRevokedAt'
  | 'watchRevocations'
>;
export type RuntimeAuditLog = Pick<RuntimeStore, 'appendAudit' | 'listAudit'>;
export type RuntimeResponseCache = Pick<
  RuntimeStore,
  | 'getCacheEntry'
  | 'setCacheEntry'
  | 'loadCacheScope'
  | 'purgeCache'
  | 'invalidateCacheTags'
  | 'watchCacheInvalidations'
>;
export type RuntimeLocks = Pick<RuntimeStore, 'acquireLock' | 'releaseLock'>;
export type RuntimeStoredResponses = Pick<
  RuntimeStore,
  'putStoredResponse' | 'getStoredResponses' | 'deleteStoredResponse'
>;
export type RuntimeSemanticIndex = Pick<RuntimeStore, 'addSemanticCandidate' | 'scanSemanticCandidates'>;

/**
 * One answer a semantic lookup may serve: the exact cache key hash of the request that fetched it
 * (64 hex digits), when it stops being servable, and the question's vector quantised to int8
 * (component × 127, rounded): 384 bytes for the default model instead of 1,536.
 */
export interface SemanticCandidate {
  id: string;
  expiresAtMs: number;
  vector: Int8Array;
}

/** What a lookup keeps of a scan: the `count` records nearest `query` (a unit vector). */
export interface SemanticNearest {
  query: Float32Array;
  count: number;
}

/**
 * Whether an expiring counter must survive a restart of the memory store (DESIGN section 8): spend
 * is durable, kept with its expiry under STATE_DIR; a rate window (the default) lives in memory
 * alone. Once durable, a counter stays durable until it expires. Redis keeps every counter alike.
 */
export type CounterKeep = 'memory' | 'durable';

/** A minted ephemeral token's owner, kept until the token expires. */
export interface TokenRecord {
  jti: string;
  tenantId: string;
  workspaceId: string;
  parentKeyId: string;
  issuedAtMs: number;
  expiresAtMs: number;
}

/** The denylist: revoked token ids (with their expiry) and per-key revoke-all times. */
export interface Revocations {
  tokens: Map<string, number>;
  keys: Map<string, number>;
}

export type RevocationEvent =
  | { type: 'token'; jti: string; expiresAtMs: number }
  | { type: 'key'; keyId: string; atMs: number }
  | { type: 'reset' }
  | { type: 'down' };

/** How long a key's revoke-all is kept: no token lives longer. */
export const KEY_REVOCATION_TTL_MS = 24 * 60 * 60 * 1000;

export const AUDIT_LOG_LIMIT = 10_000;

/** One control-plane mutation: who, what, when, outcome. Never a secret. */
export interface AuditEntry {
  /** Sortable unique id (time-ordered). */
  id: string;
  at: string;
  /** The PAT (or key) id that acted. */
  actor: string;
  operation: string;
  /** What it acted on (an id, a workspace, a jti): never a secret. */
  target: string;
  outcome: 'success' | 'failure';
  message?: string;
}

/** A workspace's cache invalidation state. Generations start at 0. */
export interface CacheScopeState {
  generation: number;
  /** Generation per namespace that has been purged at least once. */
  namespaces: Map<string, number>;
  /** Invalidation time (Unix ms) per tag that has been revalidated. */
  tags: Map<string, number>;
}

export type CacheInvalidationEvent =
  | { type: 'purge'; workspaceId: string; namespace?: string; generation: number }
  | { type: 'tags'; workspaceId: string; tags: string[]; atMs: number }
  | { type: 'reset' }
  | { type: 'down' };
