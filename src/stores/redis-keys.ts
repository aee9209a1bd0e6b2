/**
 * The Redis key layout: the one place that knows where each piece of state lives in Redis (STYLE
 * rule 7). Every key starts with a prefix (default `gw:`) so that several deployments, or test
 * runs, can share one Redis database.
 *
 * | key                         | type    | holds                                              |
 * |-----------------------------|---------|----------------------------------------------------|
 * | `<prefix>{cfg}:<kind>`      | hash    | config records of one kind: field = id, value = JSON |
 * | `<prefix>{cfg}:epoch`       | string  | epoch marker set by the reconciler after a full sync |
 * | `<prefix>cfg:feed`          | channel | change feed: JSON `{op, kind, id}` per put/delete   |
 * | `<prefix>rt:bal:{<tenantId>}` | string | platform balance, integer USD micros (no TTL)       |
 * | `<prefix>rt:ctr:{<name>}`   | string  | counter, integer (TTL when it is a window counter)  |
 * | `<key>:once:<operationId>`  | string  | marker of a journaled spend change applied to the balance or counter `<key>` (PX one day) |
 * | `<prefix>rt:tok:<jti>`      | string  | minted token's owner, JSON TokenRecord (PX: until it expires) |
 * | `<prefix>rt:{rev}:tok:<jti>`  | string  | revoked token: its expiry, ms (PX: until it expires)  |
 * | `<prefix>rt:{rev}:key:<keyId>`| string  | key revoke-all time, ms (PX: until that time + KEY_REVOCATION_TTL_MS) |
 * | `<prefix>rt:{rev}:tokens`     | zset    | index of revoked tokens: member jti, score expiry ms |
 * | `<prefix>rt:{rev}:keys`       | zset    | index of key revoke-alls: member keyId, score time ms |
 * | `<prefix>rt:revocations`    | channel | revocation feed: JSON `{type:'token',jti,expiresAtMs}` or `{type:'key',keyId,atMs}` |
 * | `<prefix>rt:audit:<tenantId>` | zset  | audit log: score 0, member `<id>\0<JSON entry>`, so ordered by id (lex) |
 * | `<prefix>cache:e:<key>`     | string  | cache entry, opaque (the caller's hashed key); PX = TTL + SWR window |
 * | `<prefix>cache:lock:<name>` | string  | lock: a random token (SET NX PX; released by compare-and-delete) |
 * | `<prefix>cache:{<scope>}:gens` | hash | purge generations of a cache scope (`<tenant>/<workspace>`): field '' = the workspace's, field = namespace (as given) → integer (HINCRBY; no TTL) |
 * | `<prefix>cache:{<scope>}:tags` | hash | tag invalidation times: field = tag → ms (never moves back; no TTL) |
 * | `<prefix>cache:sem2:<bucket>` | string | semantic candidates of one bucket: a 16-byte header (the key's incarnation, 8 random bytes; the count of records ever appended, float64 LE), then fixed-size binary records end to end, newest last (semantic-records.ts, redis-runtime/semantic-index.ts); PX = the longest candidate's life. (`cache:sem:`, the layout without the header, is no longer written: its keys expire.) |
 * | `<prefix>rt:resp:{<scope>}:<id>` | string | a stored Responses-API record (response-records.ts) of a workspace (`<tenant>/<workspace>`); PX = the retention, renewed for a conversation's earlier records on each turn |
 * | `<prefix>rt:cache`          | channel | cache feed: JSON `{type:'purge',workspaceId,namespace?,generation}` or `{type:'tags',workspaceId,tags,atMs}` |
 *
 * Redis Cluster: every script, transaction and pipeline keeps its keys in one hash slot, by the
 * `{...}` hash tags above: the config records and epoch (`{cfg}`, read in one pipeline), the
 * revocations and their indexes (`{rev}`, written by one script), a cache scope's generations and
 * tags (`{<scope>}`, read in one pipeline), a balance or counter and the markers of the journaled
 * changes applied to it (`{<tenantId>}`, `{<name>}`, one script), a workspace's stored responses
 * (`{<scope>}`, read with one MGET, written with one MULTI). Every other operation touches one key;
 * the commands of one request's step leave back to back, before any answer, so a request still
 * pays one round trip.
 *
 * The two revocation indexes let loadRevocations read the whole denylist without SCAN; they are
 * trimmed of expired members (ZREMRANGEBYSCORE) on every revocation and every load. The per-item
 * string keys serve the direct checks and expire on their own.
 *
 * Namespaces and tags are hash fields, so any string is safe in them (':' included) and
 * loadCacheScope reads a workspace back with two HGETALLs, no SCAN. Namespace '' is refused by the
 * stores, since that field is the workspace's own generation.
 */
import type { ConfigKind } from './records.ts';

export const DEFAULT_KEY_PREFIX = 'gw:';

export interface RedisKeyLayout {
  readonly prefix: string;
  /** The hash holding every record of one kind. */
  configRecords(kind: ConfigKind): string;
  readonly configEpoch: string;
  /** The pub/sub channel carrying config changes. */
  readonly configFeed: string;
  balance(tenantId: string): string;
  counter(name: string): string;
  /** The marker of a spend operation applied to `target` (a balance or counter key): same hash slot. */
  operationMarker(target: string, operationId: string): string;
  token(jti: string): string;
  revokedToken(jti: string): string;
  revokedKey(keyId: string): string;
  readonly revokedTokensIndex: string;
  readonly revokedKeysIndex: string;
  /** The pub/sub channel carrying revocations. */
  readonly revocationFeed: string;
  audit(tenantId: string): string;
  cacheEntry(key: string): string;
  cacheLock(name: string): string;
  /** The hash of a cache scope's purge generations (field '' for the workspace itself). */
  cacheGenerations(scope: string): string;
  /** The hash of a cache scope's tag invalidation times. */
  cacheTags(scope: string): string;
  /** The pub/sub channel carrying purges and tag invalidations. */
  readonly cacheFeed: string;
  /** One semantic bucket's candidates (the bucket is the caller's opaque key). */
  semanticBucket(bucket: string): string;
  /** A stored response of a workspace scope: every record of one scope in one hash slot. */
  storedResponse(scope: string, id: string): string;
}

export function createRedisKeyLayout(prefix: string = DEFAULT_KEY_PREFIX): RedisKeyLayout {
  const configRecordKeys = new Map<ConfigKind, string>();
  return {
    prefix,
    configRecords(kind) {
      let key = configRecordKeys.get(kind);
      if (key === undefined) {
        key = `${prefix}{cfg}:${kind}`;
        configRecordKeys.set(kind, key);
      }
      return key;
    },
    configEpoch: `${prefix}{cfg}:epoch`,
    configFeed: `${prefix}cfg:feed`,
    balance: (tenantId) => `${prefix}rt:bal:{${tenantId}}`,
    counter: (name) => `${prefix}rt:ctr:{${name}}`,
    operationMarker: (target, operationId) => `${target}:once:${operationId}`,
    token: (jti) => `${prefix}rt:tok:${jti}`,
    revokedToken: (jti) => `${prefix}rt:{rev}:tok:${jti}`,
    revokedKey: (keyId) => `${prefix}rt:{rev}:key:${keyId}`,
    revokedTokensIndex: `${prefix}rt:{rev}:tokens`,
    revokedKeysIndex: `${prefix}rt:{rev}:keys`,
    revocationFeed: `${prefix}rt:revocations`,
    audit: (tenantId) => `${prefix}rt:audit:${tenantId}`,
    cacheEntry: (key) => `${prefix}cache:e:${key}`,
    cacheLock: (name) => `${prefix}cache:lock:${name}`,
    cacheGenerations: (scope) => `${prefix}cache:{${scope}}:gens`,
    cacheTags: (scope) => `${prefix}cache:{${scope}}:tags`,
    cacheFeed: `${prefix}rt:cache`,
    semanticBucket: (bucket) => `${prefix}cache:sem2:${bucket}`,
    storedResponse: (scope, id) => `${prefix}rt:resp:{${scope}}:${id}`,
  };
}
