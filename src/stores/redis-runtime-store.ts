/**
 * The runtime store on Redis (layout in redis-keys.ts): balances and counters as integer strings,
 * changed only with INCRBY (or a Lua script around it) so that every gateway replica's debit is
 * atomic; minted tokens and revocations as keys that expire on their own, with two sorted-set
 * indexes so the whole denylist loads without SCAN; each revocation announced on a pub/sub feed in
 * the same atomic step as its write; the audit log as one lex-ordered sorted set per tenant.
 * Cache entries and locks are plain keys with PX; purge generations and tag times are one hash
 * each per workspace, changed by scripts that also announce the change on the cache feed.
 */
import type { Redis } from 'ioredis';
import {
  assertCacheEntry,
  assertCacheKey,
  assertLockName,
  assertLockRelease,
  assertPurge,
  assertTtlMs,
  assertWorkspaceId,
  checkTagInvalidation,
  parseCacheInvalidationMessage,
} from './cache-records.ts';
import { assertReservation, assertSafeInteger, assertTtlSeconds } from './counter-records.ts';
import { newLockToken } from './memory-cache.ts';
import { closeRedisClient, createRedisClient, type RedisStoreOptions } from './redis-client.ts';
import { RedisFeed } from './redis-feed.ts';
import { createRedisKeyLayout, type RedisKeyLayout } from './redis-keys.ts';
import { RedisScript } from './redis-script.ts';
import {
  assertAuditEntry,
  assertAuditLimit,
  assertAuditQuery,
  assertKeyRevocation,
  assertTokenRecord,
  assertTokenRevocation,
  parseRevocationMessage,
  toAuditEntry,
  toTokenRecord,
} from './runtime-records.ts';
import {
  AUDIT_LOG_LIMIT,
  type AuditEntry,
  type CacheInvalidationEvent,
  type CacheScopeState,
  KEY_REVOCATION_TTL_MS,
  type RevocationEvent,
  type Revocations,
  type RuntimeStore,
  type TokenRecord,
  type Unsubscribe,
} from './types.ts';

export interface RedisRuntimeStoreOptions extends RedisStoreOptions {
  /** Audit entries kept per tenant; default AUDIT_LOG_LIMIT (smaller in tests). */
  auditLimit?: number;
}

function parseInteger(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`runtime store holds a non-integer value '${raw}'`);
  return value;
}

function checkTransaction(results: [Error | null, unknown][] | null): unknown[] {
  if (results === null) throw new Error('runtime store transaction was aborted');
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

/** `ZRANGE ... WITHSCORES` reply (member, score, member, score, ...) as a map. */
function scoresToMap(reply: unknown): Map<string, number> {
  const flat = reply as string[];
  const map = new Map<string, number>();
  for (let index = 0; index + 1 < flat.length; index += 2) {
    map.set(flat[index] as string, Number(flat[index + 1]));
  }
  return map;
}

/** Lua: the counter KEYS[1] as `current` (0 when absent; an error when not an integer), and `raw`. */
const READ_COUNTER = `local raw = redis.call('GET', KEYS[1])
local current = 0
if raw then
  current = tonumber(raw)
  if current == nil then return redis.error_reply('ERR counter holds a non-integer value') end
end`;

/**
 * KEYS: counter. ARGV: amount, cap, ttlSeconds ('' for none). INCRBY only when within the cap;
 * EXPIRE NX as incrementCounter does (a TTL set when the counter has none, never extended).
 * Returns {1, value} or {0, current value as a string}.
 */
const RESERVE_WITHIN_CAP = new RedisScript(
  `${READ_COUNTER}
if current + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return {0, raw or '0'} end
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if ARGV[3] ~= '' then redis.call('EXPIRE', KEYS[1], ARGV[3], 'NX') end
return {1, value}`,
  1,
);

/**
 * KEYS: the counter. ARGV: amount, cap, TTL in seconds or ''. Below the cap, adds
 * min(amount, cap - current) (setting the TTL on creation); at or above it, adds nothing.
 * Returns {1 or 0, reserved, value}.
 */
const RESERVE_UP_TO_CAP = new RedisScript(
  `${READ_COUNTER}
local cap = tonumber(ARGV[2])
if current >= cap then return {0, 0, raw or '0'} end
local reserved = math.min(tonumber(ARGV[1]), cap - current)
if reserved <= 0 then return {1, 0, raw or '0'} end
local value = redis.call('INCRBY', KEYS[1], reserved)
if ARGV[3] ~= '' then redis.call('EXPIRE', KEYS[1], ARGV[3], 'NX') end
return {1, reserved, value}`,
  1,
);

/**
 * KEYS: the item's key, the index. ARGV: member, time (ms), PX for the item's key, trim bound
 * (index scores at or below it have expired), feed channel, feed message prefix, feed field.
 * Keeps the later of the stored and the given time (never moves back), trims the index, indexes
 * the item and announces the time in force. Returns that time.
 */
const REVOKE = new RedisScript(
  `local current = redis.call('GET', KEYS[1])
local value = ARGV[2]
if current and tonumber(current) and tonumber(current) >= tonumber(ARGV[2]) then
  value = current
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
redis.call('ZADD', KEYS[2], 'GT', value, ARGV[1])
redis.call('PUBLISH', ARGV[5], ARGV[6] .. cjson.encode(ARGV[1]) .. ',"' .. ARGV[7] .. '":' .. value .. '}')
return value`,
  2,
);

/** KEYS: the lock. ARGV: token. Deletes the lock only while that token holds it. */
const RELEASE_LOCK = new RedisScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
  1,
);

/**
 * KEYS: the workspace's generations hash. ARGV: field ('' for the workspace), feed channel, feed
 * message up to the generation. Bumps the generation and announces it; returns it.
 */
const PURGE = new RedisScript(
  `local generation = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PUBLISH', ARGV[2], ARGV[3] .. generation .. '}')
return generation`,
  1,
);

/**
 * KEYS: the workspace's tag times hash. ARGV: time (ms), feed channel, feed message up to the tag
 * list, then per tag the tag and its JSON. Sets each tag's time unless it is already later (never
 * moves back) and announces the tags now at that time, if any. Returns how many.
 */
const INVALIDATE_TAGS = new RedisScript(
  `local at = tonumber(ARGV[1])
local moved = {}
for i = 4, #ARGV, 2 do
  local current = tonumber(redis.call('HGET', KEYS[1], ARGV[i]))
  if current == nil or current <= at then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[1])
    moved[#moved + 1] = ARGV[i + 1]
  end
end
if #moved > 0 then
  redis.call('PUBLISH', ARGV[2], ARGV[3] .. table.concat(moved, ',') .. ']}')
end
return #moved`,
  1,
);

/** Between an audit member's id and its JSON: below every character an id may hold. */
const AUDIT_SEPARATOR = '\u0000';

export class RedisRuntimeStore implements RuntimeStore {
  readonly #keys: RedisKeyLayout;
  readonly #client: Redis;
  readonly #onError: (error: unknown) => void;
  readonly #auditLimit: number;
  readonly #feed: RedisFeed<RevocationEvent>;
  readonly #cacheFeed: RedisFeed<CacheInvalidationEvent>;

  constructor(options: RedisRuntimeStoreOptions) {
    this.#auditLimit = options.auditLimit ?? AUDIT_LOG_LIMIT;
    assertAuditLimit(this.#auditLimit);
    this.#keys = createRedisKeyLayout(options.keyPrefix);
    this.#onError = options.onError ?? (() => {});
    this.#client = createRedisClient(options, 'gw-runtime');
    this.#feed = new RedisFeed<RevocationEvent>(this.#client, {
      connectionName: 'gw-revocations',
      channel: this.#keys.revocationFeed,
      parse: (message) => {
        const event = parseRevocationMessage(message);
        if (event === undefined) this.#onError(new Error('skipped a malformed revocation feed message'));
        return event;
      },
      reset: { type: 'reset' },
      down: { type: 'down' },
      onError: this.#onError,
    });
    this.#cacheFeed = new RedisFeed<CacheInvalidationEvent>(this.#client, {
      connectionName: 'gw-cache-feed',
      channel: this.#keys.cacheFeed,
      parse: (message) => {
        const event = parseCacheInvalidationMessage(message);
        if (event === undefined) this.#onError(new Error('skipped a malformed cache feed message'));
        return event;
      },
      reset: { type: 'reset' },
      down: { type: 'down' },
      onError: this.#onError,
    });
  }

  async getBalance(tenantId: string): Promise<number | undefined> {
    return parseInteger(await this.#client.get(this.#keys.balance(tenantId)));
  }

  async initBalance(tenantId: string, micros: number): Promise<boolean> {
    assertSafeInteger('micros', micros);
    return (await this.#client.set(this.#keys.balance(tenantId), micros, 'NX')) === 'OK';
  }

  async adjustBalance(tenantId: string, deltaMicros: number): Promise<number> {
    assertSafeInteger('deltaMicros', deltaMicros);
    return this.#client.incrby(this.#keys.balance(tenantId), deltaMicros);
  }

  /** INCRBY, plus EXPIRE NX in the same transaction when a TTL is given (Redis 7.0 or later). */
  async incrementCounter(name: string, by: number, ttlSeconds?: number): Promise<number> {
    assertSafeInteger('by', by);
    assertTtlSeconds(ttlSeconds);
    const key = this.#keys.counter(name);
    if (ttlSeconds === undefined) return this.#client.incrby(key, by);
    const [value] = checkTransaction(
      await this.#client.multi().incrby(key, by).expire(key, ttlSeconds, 'NX').exec(),
    );
    return value as number;
  }

  async getCounter(name: string): Promise<number> {
    return parseInteger(await this.#client.get(this.#keys.counter(name))) ?? 0;
  }

  async reserveWithinCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
  ): Promise<{ ok: boolean; value: number }> {
    assertReservation(amount, cap, ttlSeconds);
    const [ok, value] = (await RESERVE_WITHIN_CAP.run(
      this.#client,
      [this.#keys.counter(name)],
      [amount, cap, ttlSeconds ?? ''],
    )) as [number, number | string];
    return { ok: ok === 1, value: parseInteger(String(value)) ?? 0 };
  }

  async reserveUpToCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
  ): Promise<{ ok: boolean; reserved: number; value: number }> {
    assertReservation(amount, cap, ttlSeconds);
    const [ok, reserved, value] = (await RESERVE_UP_TO_CAP.run(
      this.#client,
      [this.#keys.counter(name)],
      [amount, cap, ttlSeconds ?? ''],
    )) as [number, number, number | string];
    return { ok: ok === 1, reserved, value: parseInteger(String(value)) ?? 0 };
  }

  async recordToken(record: TokenRecord): Promise<void> {
    assertTokenRecord(record);
    const ttlMs = record.expiresAtMs - Date.now();
    // Already expired: nothing will ever ask about it (and PX must be positive).
    if (ttlMs <= 0) return;
    await this.#client.set(this.#keys.token(record.jti), JSON.stringify(toTokenRecord(record)), 'PX', ttlMs);
  }

  async getToken(jti: string): Promise<TokenRecord | undefined> {
    const raw = await this.#client.get(this.#keys.token(jti));
    if (raw === null) return undefined;
    let record: TokenRecord | undefined;
    try {
      record = toTokenRecord(JSON.parse(raw));
    } catch {
      record = undefined;
    }
    if (record === undefined) {
      this.#onError(new Error(`skipped a malformed token record for '${jti}'`));
      return undefined;
    }
    return record.expiresAtMs > Date.now() ? record : undefined;
  }

  async revokeToken(jti: string, expiresAtMs: number): Promise<void> {
    assertTokenRevocation(jti, expiresAtMs);
    const now = Date.now();
    if (expiresAtMs <= now) return;
    await REVOKE.run(
      this.#client,
      [this.#keys.revokedToken(jti), this.#keys.revokedTokensIndex],
      [
        jti,
        expiresAtMs,
        expiresAtMs - now,
        now,
        this.#keys.revocationFeed,
        '{"type":"token","jti":',
        'expiresAtMs',
      ],
    );
  }

  async revokeTokensForKey(keyId: string, atMs: number): Promise<void> {
    assertKeyRevocation(keyId, atMs);
    const now = Date.now();
    const expiresAtMs = atMs + KEY_REVOCATION_TTL_MS;
    // Every token issued before such a time has expired already.
    if (expiresAtMs <= now) return;
    await REVOKE.run(
      this.#client,
      [this.#keys.revokedKey(keyId), this.#keys.revokedKeysIndex],
      [
        keyId,
        atMs,
        expiresAtMs - now,
        now - KEY_REVOCATION_TTL_MS,
        this.#keys.revocationFeed,
        '{"type":"key","keyId":',
        'atMs',
      ],
    );
  }

  /** Two sorted sets, trimmed and read in one transaction: no SCAN, work bounded by live entries. */
  async loadRevocations(): Promise<Revocations> {
    const now = Date.now();
    const { revokedTokensIndex, revokedKeysIndex } = this.#keys;
    const [, , tokens, keys] = checkTransaction(
      await this.#client
        .multi()
        .zremrangebyscore(revokedTokensIndex, '-inf', now)
        .zremrangebyscore(revokedKeysIndex, '-inf', now - KEY_REVOCATION_TTL_MS)
        .zrange(revokedTokensIndex, 0, -1, 'WITHSCORES')
        .zrange(revokedKeysIndex, 0, -1, 'WITHSCORES')
        .exec(),
    );
    return { tokens: scoresToMap(tokens), keys: scoresToMap(keys) };
  }

  async isTokenRevoked(jti: string): Promise<boolean> {
    const until = parseInteger(await this.#client.get(this.#keys.revokedToken(jti)));
    return until !== undefined && until > Date.now();
  }

  async keyRevokedAt(keyId: string): Promise<number | undefined> {
    const at = parseInteger(await this.#client.get(this.#keys.revokedKey(keyId)));
    return at !== undefined && at + KEY_REVOCATION_TTL_MS > Date.now() ? at : undefined;
  }

  /**
   * A dedicated subscriber connection (shared by this store's watchers): `down` when it drops,
   * `reset` once it is subscribed again (not on the first connect).
   */
  watchRevocations(listener: (event: RevocationEvent) => void): Promise<Unsubscribe> {
    return this.#feed.watch(listener);
  }

  /** ZADD and a trim to the newest `auditLimit` members by id, in one transaction. */
  async appendAudit(tenantId: string, entry: AuditEntry): Promise<void> {
    assertAuditEntry(tenantId, entry);
    const key = this.#keys.audit(tenantId);
    const member = `${entry.id}${AUDIT_SEPARATOR}${JSON.stringify(toAuditEntry(entry))}`;
    checkTransaction(
      await this.#client
        .multi()
        .zadd(key, 0, member)
        .zremrangebyrank(key, 0, -(this.#auditLimit + 1))
        .exec(),
    );
  }

  /** ZREVRANGEBYLEX from just below `before` (members `<id>\0...` sort by id): O(log n + limit). */
  async listAudit(tenantId: string, limit: number, before?: string): Promise<AuditEntry[]> {
    assertAuditQuery(tenantId, limit, before);
    if (limit === 0) return [];
    const members = await this.#client.zrevrangebylex(
      this.#keys.audit(tenantId),
      before === undefined ? '+' : `(${before}`,
      '-',
      'LIMIT',
      0,
      limit,
    );
    const entries: AuditEntry[] = [];
    for (const member of members) {
      const separator = member.indexOf(AUDIT_SEPARATOR);
      let entry: AuditEntry | undefined;
      try {
        entry = separator < 0 ? undefined : toAuditEntry(JSON.parse(member.slice(separator + 1)));
      } catch {
        entry = undefined;
      }
      if (entry === undefined) this.#onError(new Error(`skipped a malformed audit entry of '${tenantId}'`));
      else entries.push(entry);
    }
    return entries;
  }

  async getCacheEntry(key: string): Promise<string | undefined> {
    assertCacheKey(key);
    return (await this.#client.get(this.#keys.cacheEntry(key))) ?? undefined;
  }

  async setCacheEntry(key: string, value: string, ttlMs: number): Promise<void> {
    assertCacheEntry(key, value, ttlMs);
    await this.#client.set(this.#keys.cacheEntry(key), value, 'PX', ttlMs);
  }

  async acquireLock(name: string, ttlMs: number): Promise<string | undefined> {
    assertLockName(name);
    assertTtlMs(ttlMs);
    const token = newLockToken();
    const reply = await this.#client.set(this.#keys.cacheLock(name), token, 'PX', ttlMs, 'NX');
    return reply === 'OK' ? token : undefined;
  }

  async releaseLock(name: string, token: string): Promise<void> {
    assertLockRelease(name, token);
    await RELEASE_LOCK.run(this.#client, [this.#keys.cacheLock(name)], [token]);
  }

  /** Both hashes in one round trip (pipelined HGETALLs): no SCAN, work bounded by the workspace's own state. */
  async loadCacheScope(workspaceId: string): Promise<CacheScopeState> {
    assertWorkspaceId(workspaceId);
    const [generations, tags] = checkTransaction(
      await this.#client
        .pipeline()
        .hgetall(this.#keys.cacheGenerations(workspaceId))
        .hgetall(this.#keys.cacheTags(workspaceId))
        .exec(),
    ) as [Record<string, string>, Record<string, string>];
    const state: CacheScopeState = { generation: 0, namespaces: new Map(), tags: new Map() };
    for (const [field, raw] of Object.entries(generations)) {
      const value = this.#parseScopeInteger(workspaceId, raw);
      if (value === undefined) continue;
      if (field === '') state.generation = value;
      else state.namespaces.set(field, value);
    }
    for (const [tag, raw] of Object.entries(tags)) {
      const value = this.#parseScopeInteger(workspaceId, raw);
      if (value !== undefined) state.tags.set(tag, value);
    }
    return state;
  }

  async purgeCache(workspaceId: string, namespace?: string): Promise<number> {
    assertPurge(workspaceId, namespace);
    const message = JSON.stringify(
      namespace === undefined ? { type: 'purge', workspaceId } : { type: 'purge', workspaceId, namespace },
    );
    const generation = await PURGE.run(
      this.#client,
      [this.#keys.cacheGenerations(workspaceId)],
      [namespace ?? '', this.#keys.cacheFeed, `${message.slice(0, -1)},"generation":`],
    );
    return Number(generation);
  }

  /** Announces the tags whose time is now `atMs` (not those already invalidated later), if any. */
  async invalidateCacheTags(workspaceId: string, tags: readonly string[], atMs: number): Promise<void> {
    const unique = checkTagInvalidation(workspaceId, tags, atMs);
    if (unique.length === 0) return;
    const message = JSON.stringify({ type: 'tags', workspaceId, atMs });
    await INVALIDATE_TAGS.run(
      this.#client,
      [this.#keys.cacheTags(workspaceId)],
      [
        atMs,
        this.#keys.cacheFeed,
        `${message.slice(0, -1)},"tags":[`,
        ...unique.flatMap((tag) => [tag, JSON.stringify(tag)]),
      ],
    );
  }

  /** As watchRevocations, on its own subscriber connection. */
  watchCacheInvalidations(listener: (event: CacheInvalidationEvent) => void): Promise<Unsubscribe> {
    return this.#cacheFeed.watch(listener);
  }

  #parseScopeInteger(workspaceId: string, raw: string): number | undefined {
    const value = Number(raw);
    if (raw !== '' && Number.isSafeInteger(value)) return value;
    this.#onError(new Error(`skipped a malformed cache scope value of '${workspaceId}'`));
    return undefined;
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.#client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#feed.close(), this.#cacheFeed.close()]);
    await closeRedisClient(this.#client);
  }
}
