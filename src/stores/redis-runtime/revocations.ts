/**
 * The Redis runtime store's minted tokens and denylist: each token's owner, each revoked token and
 * each key's revoke-all time as a key that expires on its own, and two sorted-set indexes so that
 * the whole denylist loads without SCAN. A revocation is written, indexed and announced on the
 * revocation feed in one atomic step.
 */
import type { RedisFeed } from '../redis-feed.ts';
import { RedisScript } from '../redis-script.ts';
import {
  assertKeyRevocation,
  assertTokenRecord,
  assertTokenRevocation,
  parseRevocationMessage,
  toTokenRecord,
} from '../runtime-records.ts';
import {
  KEY_REVOCATION_TTL_MS,
  type RevocationEvent,
  type Revocations,
  type RuntimeRevocations,
  type TokenRecord,
  type Unsubscribe,
} from '../types.ts';
import {
  checkTransaction,
  createEventFeed,
  parseInteger,
  type RedisRuntimeConnection,
} from './connection.ts';

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

/** `ZRANGE ... WITHSCORES` reply (member, score, member, score, ...) as a map. */
function scoresToMap(reply: unknown): Map<string, number> {
  const flat = reply as string[];
  const map = new Map<string, number>();
  for (let index = 0; index + 1 < flat.length; index += 2) {
    map.set(flat[index] as string, Number(flat[index + 1]));
  }
  return map;
}

export class RedisRevocations implements RuntimeRevocations {
  readonly #connection: RedisRuntimeConnection;
  readonly #feed: RedisFeed<RevocationEvent>;

  constructor(connection: RedisRuntimeConnection) {
    this.#connection = connection;
    this.#feed = createEventFeed(connection, {
      connectionName: 'gw-revocations',
      channel: connection.keys.revocationFeed,
      name: 'revocation',
      parse: parseRevocationMessage,
    });
  }

  async recordToken(record: TokenRecord): Promise<void> {
    assertTokenRecord(record);
    const ttlMs = record.expiresAtMs - Date.now();
    // Already expired: nothing will ever ask about it (and PX must be positive).
    if (ttlMs <= 0) return;
    const { client, keys } = this.#connection;
    await client.set(keys.token(record.jti), JSON.stringify(toTokenRecord(record)), 'PX', ttlMs);
  }

  async getToken(jti: string): Promise<TokenRecord | undefined> {
    const { client, keys, onError } = this.#connection;
    const raw = await client.get(keys.token(jti));
    if (raw === null) return undefined;
    let record: TokenRecord | undefined;
    try {
      record = toTokenRecord(JSON.parse(raw));
    } catch {
      record = undefined;
    }
    if (record === undefined) {
      onError(new Error(`skipped a malformed token record for '${jti}'`));
      return undefined;
    }
    return record.expiresAtMs > Date.now() ? record : undefined;
  }

  async revokeToken(jti: string, expiresAtMs: number): Promise<void> {
    assertTokenRevocation(jti, expiresAtMs);
    const now = Date.now();
    if (expiresAtMs <= now) return;
    const { client, keys } = this.#connection;
    await REVOKE.run(
      client,
      [keys.revokedToken(jti), keys.revokedTokensIndex],
      [
        jti,
        expiresAtMs,
        expiresAtMs - now,
        now,
        keys.revocationFeed,
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
    const { client, keys } = this.#connection;
    await REVOKE.run(
      client,
      [keys.revokedKey(keyId), keys.revokedKeysIndex],
      [
        keyId,
        atMs,
        expiresAtMs - now,
        now - KEY_REVOCATION_TTL_MS,
        keys.revocationFeed,
        '{"type":"key","keyId":',
        'atMs',
      ],
    );
  }

  /** Two sorted sets, trimmed and read in one transaction: no SCAN, work bounded by live entries. */
  async loadRevocations(): Promise<Revocations> {
    const now = Date.now();
    const { client, keys } = this.#connection;
    const { revokedTokensIndex, revokedKeysIndex } = keys;
    const [, , tokens, revokedKeys] = checkTransaction(
      await client
        .multi()
        .zremrangebyscore(revokedTokensIndex, '-inf', now)
        .zremrangebyscore(revokedKeysIndex, '-inf', now - KEY_REVOCATION_TTL_MS)
        .zrange(revokedTokensIndex, 0, -1, 'WITHSCORES')
        .zrange(revokedKeysIndex, 0, -1, 'WITHSCORES')
        .exec(),
    );
    return { tokens: scoresToMap(tokens), keys: scoresToMap(revokedKeys) };
  }

  async isTokenRevoked(jti: string): Promise<boolean> {
    const { client, keys } = this.#connection;
    const until = parseInteger(await client.get(keys.revokedToken(jti)));
    return until !== undefined && until > Date.now();
  }

  async keyRevokedAt(keyId: string): Promise<number | undefined> {
    const { client, keys } = this.#connection;
    const at = parseInteger(await client.get(keys.revokedKey(keyId)));
    return at !== undefined && at + KEY_REVOCATION_TTL_MS > Date.now() ? at : undefined;
  }

  /**
   * A dedicated subscriber connection (shared by this store's watchers): `down` when it drops,
   * `reset` once it is subscribed again (not on the first connect).
   */
  watchRevocations(listener: (event: RevocationEvent) => void): Promise<Unsubscribe> {
    return this.#feed.watch(listener);
  }

  /** Forgets every watcher and closes the feed's connection. */
  close(): Promise<void> {
    return this.#feed.close();
  }
}
