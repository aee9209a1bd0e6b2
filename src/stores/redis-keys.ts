/**
 * The Redis key layout: the one place that knows where each piece of state lives in Redis (STYLE
 * rule 7). Every key starts with a prefix (default `gw:`) so that several deployments, or test
 * runs, can share one Redis database.
 *
 * | key                         | type    | holds                                              |
 * |-----------------------------|---------|----------------------------------------------------|
 * | `<prefix>cfg:<kind>`        | hash    | config records of one kind: field = id, value = JSON |
 * | `<prefix>cfg:epoch`         | string  | epoch marker set by the reconciler after a full sync |
 * | `<prefix>cfg:feed`          | channel | change feed: JSON `{op, kind, id}` per put/delete   |
 * | `<prefix>rt:bal:<tenantId>` | string  | platform balance, integer USD micros (no TTL)       |
 * | `<prefix>rt:ctr:<name>`     | string  | counter, integer (TTL when it is a window counter)  |
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
}

export function createRedisKeyLayout(prefix: string = DEFAULT_KEY_PREFIX): RedisKeyLayout {
  const configRecordKeys = new Map<ConfigKind, string>();
  return {
    prefix,
    configRecords(kind) {
      let key = configRecordKeys.get(kind);
      if (key === undefined) {
        key = `${prefix}cfg:${kind}`;
        configRecordKeys.set(kind, key);
      }
      return key;
    },
    configEpoch: `${prefix}cfg:epoch`,
    configFeed: `${prefix}cfg:feed`,
    balance: (tenantId) => `${prefix}rt:bal:${tenantId}`,
    counter: (name) => `${prefix}rt:ctr:${name}`,
  };
}
