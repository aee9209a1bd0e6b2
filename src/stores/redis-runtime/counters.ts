/**
 * The Redis runtime store's balances and counters: integer strings changed only with INCRBY (or a
 * Lua script around it), so that every gateway replica's debit is atomic; the cap reservations of
 * token limits and connection caps as scripts that read and add in one step. Every counter is
 * durable here, with or without a TTL (Redis persists them alike), so `keep` is not needed.
 */
import {
  assertReservation,
  assertSafeInteger,
  assertSpendChange,
  assertTtlSeconds,
} from '../counter-records.ts';
import { RedisScript } from '../redis-script.ts';
import {
  type RuntimeCounters,
  SPEND_OPERATION_TTL_MS,
  type SpendChange,
  type SpendOnceOutcome,
} from '../types.ts';
import { checkTransaction, parseInteger, type RedisRuntimeConnection } from './connection.ts';

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
 * KEYS: the balance or counter, its operation marker (same hash slot). ARGV: delta, TTL in seconds
 * or '', the marker's life in ms, '1' to change only an existing key (a balance). Applies the delta
 * only if the marker was not there: a replay of the same operation does nothing. Returns 1 when
 * the operation was taken and applied, 2 when taken with no key to change, 0 for a repeat.
 */
const APPLY_ONCE = new RedisScript(
  `if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[3]) then return 0 end
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return 2 end
redis.call('INCRBY', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then redis.call('EXPIRE', KEYS[1], ARGV[2], 'NX') end
return 1`,
  2,
);

export class RedisCounters implements RuntimeCounters {
  readonly #connection: RedisRuntimeConnection;

  constructor(connection: RedisRuntimeConnection) {
    this.#connection = connection;
  }

  async getBalance(tenantId: string): Promise<number | undefined> {
    const { client, keys } = this.#connection;
    return parseInteger(await client.get(keys.balance(tenantId)));
  }

  async initBalance(tenantId: string, micros: number): Promise<boolean> {
    assertSafeInteger('micros', micros);
    const { client, keys } = this.#connection;
    return (await client.set(keys.balance(tenantId), micros, 'NX')) === 'OK';
  }

  async adjustBalance(tenantId: string, deltaMicros: number): Promise<number> {
    assertSafeInteger('deltaMicros', deltaMicros);
    const { client, keys } = this.#connection;
    return client.incrby(keys.balance(tenantId), deltaMicros);
  }

  /** INCRBY, plus EXPIRE NX in the same transaction when a TTL is given (Redis 7.0 or later). */
  async incrementCounter(name: string, by: number, ttlSeconds?: number): Promise<number> {
    assertSafeInteger('by', by);
    assertTtlSeconds(ttlSeconds);
    const { client, keys } = this.#connection;
    const key = keys.counter(name);
    if (ttlSeconds === undefined) return client.incrby(key, by);
    const [value] = checkTransaction(
      await client.multi().incrby(key, by).expire(key, ttlSeconds, 'NX').exec(),
    );
    return value as number;
  }

  async applySpendOnce(change: SpendChange, operationId: string): Promise<SpendOnceOutcome> {
    assertSpendChange(change, operationId);
    const { client, keys } = this.#connection;
    const target = change.kind === 'balance' ? keys.balance(change.tenantId) : keys.counter(change.name);
    const delta = change.kind === 'balance' ? change.deltaMicros : change.by;
    const ttl = change.kind === 'counter' ? (change.ttlSeconds ?? '') : '';
    const applied = await APPLY_ONCE.run(
      client,
      [target, keys.operationMarker(target, operationId)],
      [delta, ttl, SPEND_OPERATION_TTL_MS, change.kind === 'balance' ? '1' : '0'],
    );
    return applied === 1 ? 'applied' : applied === 2 ? 'no-balance' : 'repeat';
  }

  async getCounter(name: string): Promise<number> {
    const { client, keys } = this.#connection;
    return parseInteger(await client.get(keys.counter(name))) ?? 0;
  }

  async reserveWithinCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
  ): Promise<{ ok: boolean; value: number }> {
    assertReservation(amount, cap, ttlSeconds);
    const reply = await this.#reserve(RESERVE_WITHIN_CAP, name, amount, cap, ttlSeconds);
    const [ok, value] = reply as [number, number | string];
    return { ok: ok === 1, value: parseInteger(String(value)) ?? 0 };
  }

  async reserveUpToCap(
    name: string,
    amount: number,
    cap: number,
    ttlSeconds?: number,
  ): Promise<{ ok: boolean; reserved: number; value: number }> {
    assertReservation(amount, cap, ttlSeconds);
    const reply = await this.#reserve(RESERVE_UP_TO_CAP, name, amount, cap, ttlSeconds);
    const [ok, reserved, value] = reply as [number, number, number | string];
    return { ok: ok === 1, reserved, value: parseInteger(String(value)) ?? 0 };
  }

  /** Runs a reservation script with the arguments both take: the counter; amount, cap, TTL or ''. */
  #reserve(
    script: RedisScript,
    name: string,
    amount: number,
    cap: number,
    ttlSeconds: number | undefined,
  ): Promise<unknown> {
    const { client, keys } = this.#connection;
    return script.run(client, [keys.counter(name)], [amount, cap, ttlSeconds ?? '']);
  }
}
