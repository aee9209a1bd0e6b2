/**
 * The in-memory runtime store (standalone mode, tests). Balances, counters without a TTL, counters
 * with a TTL kept `durable` (spend, with its expiry), minted tokens, revocations and the audit log
 * are durable: with `persistFile` they are loaded at construction and written behind (debounced,
 * atomically: temp file, fsync, rename, mode 0600). Other counters with a TTL are rate windows:
 * memory only. Everything that expires (TTL counters, tokens, revocations) is dropped lazily on
 * read, by an unref'd sweep, and on load.
 * The cache (entries, locks, purge generations, tag times) is memory only: entries live in a
 * byte-bounded LRU (`maxCacheBytes`), and without them the generations and tag times have nothing
 * left to guard after a restart.
 */
import {
  assertCacheEntry,
  assertCacheKey,
  assertLockName,
  assertLockRelease,
  assertPurge,
  assertTtlMs,
  assertWorkspaceId,
  checkTagInvalidation,
} from './cache-records.ts';
import { assertReservation, assertSafeInteger, assertTtlSeconds } from './counter-records.ts';
import { DEFAULT_MAX_CACHE_BYTES, LockTable, LruCache } from './memory-cache.ts';
import {
  type PersistedDomains,
  type PersistedState,
  PersistedStateFile,
  readPersistedState,
} from './memory-runtime/persistence.ts';
import {
  assertAuditEntry,
  assertAuditLimit,
  assertAuditQuery,
  assertKeyRevocation,
  assertTokenRecord,
  assertTokenRevocation,
  compareIds,
  toAuditEntry,
  toTokenRecord,
} from './runtime-records.ts';
import {
  AUDIT_LOG_LIMIT,
  type AuditEntry,
  type CacheInvalidationEvent,
  type CacheScopeState,
  type CounterKeep,
  KEY_REVOCATION_TTL_MS,
  type RevocationEvent,
  type Revocations,
  type RuntimeStore,
  type TokenRecord,
  type Unsubscribe,
} from './types.ts';

export interface MemoryRuntimeStoreOptions {
  /** Where durable records are kept (e.g. `<STATE_DIR>/runtime.json`); absent: memory only. */
  persistFile?: string;
  /** Delay between a durable change and its write; default 100 ms. */
  persistDelayMs?: number;
  /** How often expired counters, tokens, revocations, cache entries and locks are swept; default 60 s. */
  sweepIntervalMs?: number;
  /** Told about failed background writes (retried at the next change) and revocation listeners that threw. */
  onError?: (error: unknown) => void;
  /** Audit entries kept per tenant; default AUDIT_LOG_LIMIT (smaller in tests). */
  auditLimit?: number;
  /**
   * The cache's budget, keys and values counted at two bytes a character; the least recently
   * used entries are evicted beyond it. Default 256 MiB.
   */
  maxCacheBytes?: number;
}

interface ExpiringCounter {
  value: number;
  expiresAt: number;
  /** Persisted (spend) rather than memory only (a rate window). */
  durable: boolean;
}

/** A key's revoke-all is needed until every token issued before it has expired. */
function keyRevocationExpiresAt(atMs: number): number {
  return atMs + KEY_REVOCATION_TTL_MS;
}

/** The index of the first entry whose id is not below `id` (entries sorted by id). */
function lowerBound(entries: readonly AuditEntry[], id: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareIds((entries[middle] as AuditEntry).id, id) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class MemoryRuntimeStore implements RuntimeStore {
  readonly #balances = new Map<string, number>();
  readonly #durableCounters = new Map<string, number>();
  readonly #expiringCounters = new Map<string, ExpiringCounter>();
  readonly #tokens = new Map<string, TokenRecord>();
  /** jti → the token's expiry (ms). */
  readonly #revokedTokens = new Map<string, number>();
  /** keyId → revoke-all time (ms). */
  readonly #revokedKeys = new Map<string, number>();
  /** tenantId → entries sorted by id, oldest first. */
  readonly #audit = new Map<string, AuditEntry[]>();
  readonly #auditLimit: number;
  readonly #revocationListeners = new Set<(event: RevocationEvent) => void>();
  readonly #cache: LruCache;
  readonly #locks = new LockTable();
  /** workspaceId → its purge generations and tag invalidation times (never persisted). */
  readonly #cacheScopes = new Map<string, CacheScopeState>();
  readonly #cacheListeners = new Set<(event: CacheInvalidationEvent) => void>();
  readonly #stateFile: PersistedStateFile | undefined;
  readonly #onError: (error: unknown) => void;
  readonly #sweepTimer: NodeJS.Timeout;
  #closed = false;

  /** Reads `persistFile` synchronously (once, at start) when given; throws if it is corrupt. */
  constructor(options: MemoryRuntimeStoreOptions = {}) {
    this.#onError = options.onError ?? (() => {});
    this.#auditLimit = options.auditLimit ?? AUDIT_LOG_LIMIT;
    assertAuditLimit(this.#auditLimit);
    this.#cache = new LruCache(options.maxCacheBytes ?? DEFAULT_MAX_CACHE_BYTES);
    if (options.persistFile !== undefined) {
      const state = readPersistedState(options.persistFile);
      if (state !== undefined) this.#load(state);
      this.#stateFile = new PersistedStateFile(options.persistFile, {
        delayMs: options.persistDelayMs ?? 100,
        onError: this.#onError,
        collect: (now) => this.#collectDurable(now),
      });
    }
    this.#sweepTimer = setInterval(() => this.#sweepAll(), options.sweepIntervalMs ?? 60_000);
    this.#sweepTimer.unref();
  }

  /** The constructor's asynchronous twin, for composition roots that await their stores. */
  static async open(options: MemoryRuntimeStoreOptions = {}): Promise<MemoryRuntimeStore> {
    return new MemoryRuntimeStore(options);
  }

  async getBalance(tenantId: string): Promise<number | undefined> {
    return this.#balances.get(tenantId);
  }

  async initBalance(tenantId: string, micros: number): Promise<boolean> {
    assertSafeInteger('micros', micros);
    if (this.#balances.has(tenantId)) return false;
    this.#balances.set(tenantId, micros);
    this.#schedulePersist();
    return true;
  }

  async adjustBalance(tenantId: string, deltaMicros: number): Promise<number> {
    assertSafeInteger('deltaMicros', deltaMicros);
    const balance = (this.#balances.get(tenantId) ?? 0) + deltaMicros;
    this.#balances.set(tenantId, balance);
    this.#schedulePersist();
    return balance;
  }

  /**
   * Mirrors Redis INCRBY + EXPIRE NX: the TTL is set when the counter has none (usually at
   * creation) and is kept by later increments, with or without a TTL argument.
   */
  async incrementCounter(
    name: string,
    by: number,
    ttlSeconds?: number,
    keep: CounterKeep = 'memory',
  ): Promise<number> {
    assertSafeInteger('by', by);
    assertTtlSeconds(ttlSeconds);
    return this.#increment(name, by, ttlSeconds, keep);
  }

  async getCounter(name: string): Promise<number> {
    return this.#counterValue(name);
  }

  #counterValue(name: string): number {
    return this.#liveExpiringCounter(name)?.value ?? this.#durableCounters.get(name) ?? 0;
  }

  #increment(name: string, by: number, ttlSeconds: number | undefined, keep: CounterKeep): number {
    const expiring = this.#liveExpiringCounter(name);
    if (expiring !== undefined) {
      expiring.value += by;
      if (keep === 'durable') expiring.durable = true;
      if (expiring.durable) this.#schedulePersist();
      return expiring.value;
    }
    const value = (this.#durableCounters.get(name) ?? 0) + by;
    if (ttlSeconds === undefined) {
      this.#durableCounters.set(name, value);
    } else {
      const wasDurable = this.#durableCounters.delete(name);
      const durable = keep === 'durable';
      this.#expiringCounters.set(name, { value, expiresAt: Date.now() + ttlSeconds * 1000, durable });
      if (wasDurable || durable) this.#schedulePersist();
      return value;
    }
    this.#schedulePersist();
    return value;
  }

  async reserveWithinCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
    keep: CounterKeep = 'memory',
  ): Promise<{ ok: boolean; value: number }> {
    assertReservation(amount, cap, ttlSeconds);
    const current = this.#counterValue(name);
    if (current + amount > cap) return { ok: false, value: current };
    return { ok: true, value: this.#increment(name, amount, ttlSeconds, keep) };
  }

  async reserveUpToCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
    keep: CounterKeep = 'memory',
  ): Promise<{ ok: boolean; reserved: number; value: number }> {
    assertReservation(amount, cap, ttlSeconds);
    const current = this.#counterValue(name);
    if (current >= cap || amount <= 0) return { ok: current < cap, reserved: 0, value: current };
    const reserved = Math.min(amount, cap - current);
    return { ok: true, reserved, value: this.#increment(name, reserved, ttlSeconds, keep) };
  }

  async recordToken(record: TokenRecord): Promise<void> {
    assertTokenRecord(record);
    // Already expired: nothing will ever ask about it (Redis could not even set its PX).
    if (record.expiresAtMs <= Date.now()) return;
    this.#tokens.set(record.jti, toTokenRecord(record) as TokenRecord);
    this.#schedulePersist();
  }

  async getToken(jti: string): Promise<TokenRecord | undefined> {
    const record = this.#tokens.get(jti);
    if (record === undefined) return undefined;
    if (record.expiresAtMs > Date.now()) return { ...record };
    this.#tokens.delete(jti);
    return undefined;
  }

  async revokeToken(jti: string, expiresAtMs: number): Promise<void> {
    assertTokenRevocation(jti, expiresAtMs);
    if (expiresAtMs <= Date.now()) return;
    // Revoked twice: the later expiry wins, as on Redis.
    const until = Math.max(this.#liveRevokedToken(jti) ?? expiresAtMs, expiresAtMs);
    if (until !== this.#revokedTokens.get(jti)) {
      this.#revokedTokens.set(jti, until);
      this.#schedulePersist();
    }
    this.#announce({ type: 'token', jti, expiresAtMs: until });
  }

  async revokeTokensForKey(keyId: string, atMs: number): Promise<void> {
    assertKeyRevocation(keyId, atMs);
    if (keyRevocationExpiresAt(atMs) <= Date.now()) return;
    // Never moved back: announced with the time in force.
    const at = Math.max(this.#liveRevokedKey(keyId) ?? atMs, atMs);
    if (at !== this.#revokedKeys.get(keyId)) {
      this.#revokedKeys.set(keyId, at);
      this.#schedulePersist();
    }
    this.#announce({ type: 'key', keyId, atMs: at });
  }

  async loadRevocations(): Promise<Revocations> {
    this.#sweepExpired();
    return { tokens: new Map(this.#revokedTokens), keys: new Map(this.#revokedKeys) };
  }

  async isTokenRevoked(jti: string): Promise<boolean> {
    return this.#liveRevokedToken(jti) !== undefined;
  }

  async keyRevokedAt(keyId: string): Promise<number | undefined> {
    return this.#liveRevokedKey(keyId);
  }

  /** Events are delivered asynchronously (never inside the revoking call). The feed never goes down. */
  async watchRevocations(listener: (event: RevocationEvent) => void): Promise<Unsubscribe> {
    const subscription = (event: RevocationEvent) => listener(event);
    this.#revocationListeners.add(subscription);
    return async () => {
      this.#revocationListeners.delete(subscription);
    };
  }

  async appendAudit(tenantId: string, entry: AuditEntry): Promise<void> {
    assertAuditEntry(tenantId, entry);
    const copy = toAuditEntry(entry) as AuditEntry;
    let entries = this.#audit.get(tenantId);
    if (entries === undefined) {
      entries = [];
      this.#audit.set(tenantId, entries);
    }
    const index = lowerBound(entries, copy.id);
    if (entries[index]?.id === copy.id) entries[index] = copy;
    else entries.splice(index, 0, copy);
    // The oldest (smallest ids) go first, as the Redis log trims its lowest members.
    if (entries.length > this.#auditLimit) entries.splice(0, entries.length - this.#auditLimit);
    this.#schedulePersist();
  }

  async listAudit(tenantId: string, limit: number, before?: string): Promise<AuditEntry[]> {
    assertAuditQuery(tenantId, limit, before);
    const entries = this.#audit.get(tenantId) ?? [];
    const end = before === undefined ? entries.length : lowerBound(entries, before);
    return entries
      .slice(Math.max(0, end - limit), end)
      .reverse()
      .map((entry) => ({ ...entry }));
  }

  async getCacheEntry(key: string): Promise<string | undefined> {
    assertCacheKey(key);
    return this.#cache.get(key);
  }

  async setCacheEntry(key: string, value: string, ttlMs: number): Promise<void> {
    assertCacheEntry(key, value, ttlMs);
    this.#cache.set(key, value, ttlMs);
  }

  async acquireLock(name: string, ttlMs: number): Promise<string | undefined> {
    assertLockName(name);
    assertTtlMs(ttlMs);
    return this.#locks.acquire(name, ttlMs);
  }

  async releaseLock(name: string, token: string): Promise<void> {
    assertLockRelease(name, token);
    this.#locks.release(name, token);
  }

  async loadCacheScope(workspaceId: string): Promise<CacheScopeState> {
    assertWorkspaceId(workspaceId);
    const scope = this.#cacheScopes.get(workspaceId);
    return {
      generation: scope?.generation ?? 0,
      namespaces: new Map(scope?.namespaces),
      tags: new Map(scope?.tags),
    };
  }

  async purgeCache(workspaceId: string, namespace?: string): Promise<number> {
    assertPurge(workspaceId, namespace);
    const scope = this.#cacheScope(workspaceId);
    let generation: number;
    if (namespace === undefined) {
      generation = ++scope.generation;
      this.#announceCache({ type: 'purge', workspaceId, generation });
    } else {
      generation = (scope.namespaces.get(namespace) ?? 0) + 1;
      scope.namespaces.set(namespace, generation);
      this.#announceCache({ type: 'purge', workspaceId, namespace, generation });
    }
    return generation;
  }

  /** Announces the tags whose time is now `atMs` (not those already invalidated later), if any. */
  async invalidateCacheTags(workspaceId: string, tags: readonly string[], atMs: number): Promise<void> {
    const unique = checkTagInvalidation(workspaceId, tags, atMs);
    if (unique.length === 0) return;
    const scope = this.#cacheScope(workspaceId);
    const moved: string[] = [];
    for (const tag of unique) {
      const current = scope.tags.get(tag);
      if (current !== undefined && current > atMs) continue;
      scope.tags.set(tag, atMs);
      moved.push(tag);
    }
    if (moved.length > 0) this.#announceCache({ type: 'tags', workspaceId, tags: moved, atMs });
  }

  /** Events are delivered asynchronously (never inside the invalidating call). The feed never goes down. */
  async watchCacheInvalidations(listener: (event: CacheInvalidationEvent) => void): Promise<Unsubscribe> {
    const subscription = (event: CacheInvalidationEvent) => listener(event);
    this.#cacheListeners.add(subscription);
    return async () => {
      this.#cacheListeners.delete(subscription);
    };
  }

  async ping(): Promise<boolean> {
    return !this.#closed;
  }

  /** Stops the timers and writes any pending durable change; rejects if that write fails. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#revocationListeners.clear();
    this.#cacheListeners.clear();
    this.#cache.clear();
    this.#locks.clear();
    clearInterval(this.#sweepTimer);
    await this.#stateFile?.close();
  }

  #liveExpiringCounter(name: string): ExpiringCounter | undefined {
    const counter = this.#expiringCounters.get(name);
    if (counter === undefined) return undefined;
    if (counter.expiresAt > Date.now()) return counter;
    this.#expiringCounters.delete(name);
    return undefined;
  }

  #liveRevokedToken(jti: string): number | undefined {
    const until = this.#revokedTokens.get(jti);
    if (until === undefined) return undefined;
    if (until > Date.now()) return until;
    this.#revokedTokens.delete(jti);
    return undefined;
  }

  #liveRevokedKey(keyId: string): number | undefined {
    const at = this.#revokedKeys.get(keyId);
    if (at === undefined) return undefined;
    if (keyRevocationExpiresAt(at) > Date.now()) return at;
    this.#revokedKeys.delete(keyId);
    return undefined;
  }

  #announce(event: RevocationEvent): void {
    this.#deliverLater(this.#revocationListeners, event);
  }

  #announceCache(event: CacheInvalidationEvent): void {
    this.#deliverLater(this.#cacheListeners, event);
  }

  /** Each listener gets its own copy: one that mutates an event cannot change another's. */
  #deliverLater<E extends object>(listeners: ReadonlySet<(event: E) => void>, event: E): void {
    queueMicrotask(() => {
      for (const listener of listeners) {
        try {
          listener(structuredClone(event));
        } catch (error) {
          this.#onError(error);
        }
      }
    });
  }

  #cacheScope(workspaceId: string): CacheScopeState {
    let scope = this.#cacheScopes.get(workspaceId);
    if (scope === undefined) {
      scope = { generation: 0, namespaces: new Map(), tags: new Map() };
      this.#cacheScopes.set(workspaceId, scope);
    }
    return scope;
  }

  /** Expired entries are dropped here rather than persisted; the next write leaves them out. */
  /** The timer's sweep: also of the cache and locks, which nothing else walks. */
  #sweepAll(): void {
    const now = Date.now();
    this.#cache.sweep(now);
    this.#locks.sweep(now);
    this.#sweepExpired();
  }

  #sweepExpired(): void {
    const now = Date.now();
    for (const [name, counter] of this.#expiringCounters) {
      if (counter.expiresAt <= now) this.#expiringCounters.delete(name);
    }
    for (const [jti, record] of this.#tokens) {
      if (record.expiresAtMs <= now) this.#tokens.delete(jti);
    }
    for (const [jti, until] of this.#revokedTokens) {
      if (until <= now) this.#revokedTokens.delete(jti);
    }
    for (const [keyId, at] of this.#revokedKeys) {
      if (keyRevocationExpiresAt(at) <= now) this.#revokedKeys.delete(keyId);
    }
  }

  #load(state: PersistedState): void {
    for (const [tenantId, micros] of Object.entries(state.balances)) this.#balances.set(tenantId, micros);
    for (const [name, value] of Object.entries(state.counters)) this.#durableCounters.set(name, value);
    for (const [name, { value, expiresAt }] of Object.entries(state.expiringCounters ?? {})) {
      this.#expiringCounters.set(name, { value, expiresAt, durable: true });
    }
    for (const record of state.tokens ?? [])
      this.#tokens.set(record.jti, toTokenRecord(record) as TokenRecord);
    for (const [jti, until] of Object.entries(state.revokedTokens ?? {})) this.#revokedTokens.set(jti, until);
    for (const [keyId, at] of Object.entries(state.revokedKeys ?? {})) this.#revokedKeys.set(keyId, at);
    for (const [tenantId, stored] of Object.entries(state.audit ?? {})) {
      const entries = stored.map((entry) => toAuditEntry(entry) as AuditEntry);
      entries.sort((a, b) => compareIds(a.id, b.id));
      if (entries.length > this.#auditLimit) entries.splice(0, entries.length - this.#auditLimit);
      this.#audit.set(tenantId, entries);
    }
    this.#sweepExpired();
  }

  #schedulePersist(): void {
    this.#stateFile?.schedule();
  }

  #collectDurable(now: number): PersistedDomains {
    return {
      balances: Object.fromEntries(this.#balances),
      counters: Object.fromEntries(this.#durableCounters),
      expiringCounters: Object.fromEntries(
        [...this.#expiringCounters]
          .filter(([, counter]) => counter.durable && counter.expiresAt > now)
          .map(([name, { value, expiresAt }]) => [name, { value, expiresAt }]),
      ),
      tokens: [...this.#tokens.values()].filter((record) => record.expiresAtMs > now),
      revokedTokens: Object.fromEntries([...this.#revokedTokens].filter(([, until]) => until > now)),
      revokedKeys: Object.fromEntries(
        [...this.#revokedKeys].filter(([, at]) => keyRevocationExpiresAt(at) > now),
      ),
      audit: Object.fromEntries(this.#audit),
    };
  }
}
