/**
 * The runtime store on Redis: balances and counters as integer strings (layout in redis-keys.ts),
 * changed only with INCRBY so that every gateway replica's debit is atomic.
 */
import type { Redis } from 'ioredis';
import { assertSafeInteger, assertTtlSeconds } from './memory-runtime-store.ts';
import { closeRedisClient, createRedisClient, type RedisStoreOptions } from './redis-config-store.ts';
import { createRedisKeyLayout, type RedisKeyLayout } from './redis-keys.ts';
import type { RuntimeStore } from './types.ts';

function parseInteger(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`runtime store holds a non-integer value '${raw}'`);
  return value;
}

export class RedisRuntimeStore implements RuntimeStore {
  readonly #keys: RedisKeyLayout;
  readonly #client: Redis;

  constructor(options: RedisStoreOptions) {
    this.#keys = createRedisKeyLayout(options.keyPrefix);
    this.#client = createRedisClient(options, 'gw-runtime');
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
    const results = await this.#client.multi().incrby(key, by).expire(key, ttlSeconds, 'NX').exec();
    if (results === null) throw new Error('runtime store transaction was aborted');
    const [[incrementError, value] = [], [expireError] = []] = results;
    if (incrementError) throw incrementError;
    if (expireError) throw expireError;
    return value as number;
  }

  async getCounter(name: string): Promise<number> {
    return parseInteger(await this.#client.get(this.#keys.counter(name))) ?? 0;
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.#client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await closeRedisClient(this.#client);
  }
}
