/**
 * What the gateway says about a response in its headers (specification 4.4): how the response
 * cache served it, what it cost against the tenant's balance, and who served it.
 */
import type { HeadersLike } from './http.ts';
import { parseRouting, type RoutingInfo } from './routing.ts';

/** The gateway's cache response headers. */
export const CACHE_RESPONSE_HEADERS = {
  status: 'x-service-cache',
  age: 'x-service-cache-age',
  similarity: 'x-service-cache-similarity',
} as const;

/** The gateway's balance headers, present on every successful response. */
export const BALANCE_HEADERS = {
  mode: 'x-service-balance-mode',
  charged: 'x-service-balance-charged-micros',
  remaining: 'x-service-balance-remaining-micros',
  currency: 'x-service-balance-currency',
} as const;

/**
 * How the response cache served a request: `hit` (an exact match), `semantic-hit` (the answer to a
 * similar question), `miss` (forwarded, and written unless `no-store`), `refresh` (forwarded and
 * overwritten: `force-refresh`, or the one caller that refreshed a stale entry), `stale` (served
 * inside a policy's stale window). Other strings are values of a newer gateway, passed through.
 */
export type CacheStatus = 'hit' | 'semantic-hit' | 'miss' | 'refresh' | 'stale' | (string & {});

/** The cache's account of one response. */
export interface CacheInfo {
  status: CacheStatus;
  /** Whether the answer came from the cache (`hit`, `semantic-hit` or `stale`): it cost nothing. */
  served: boolean;
  /** On `hit`: the entry's age in seconds. */
  ageSeconds?: number;
  /** On `semantic-hit`: the cosine similarity of the two questions (0 to 1). */
  similarity?: number;
}

/** The tenant's balance as one response left it. */
export interface BalanceInfo {
  /** `prepaid` (refused once used up) or `postpaid`. */
  mode: 'prepaid' | 'postpaid' | (string & {});
  /**
   * This response's cost in USD micros (0 on a cache hit and on BYOK traffic). Absent when
   * {@link BalanceInfo.chargeDeferred}.
   */
  chargedMicros?: number;
  /** True on streams: the charge is settled when the stream ends, after the headers were sent. */
  chargeDeferred: boolean;
  /** Prepaid only: the balance after this charge (on streams: before it), in USD micros. */
  remainingMicros?: number;
  /** The currency of the amounts (`USD`). */
  currency?: string;
}

/** Everything the gateway's headers say about one response. */
export interface GatewayResponseInfo {
  /** The HTTP status. */
  status: number;
  /** Who served; absent when the response carries no routing headers (e.g. a 401). */
  routing?: RoutingInfo;
  /** How the cache served; absent when the request was not cacheable or the cache was off. */
  cache?: CacheInfo;
  /** The balance; absent on error responses. */
  balance?: BalanceInfo;
}

const SERVED_FROM_CACHE: ReadonlySet<string> = new Set(['hit', 'semantic-hit', 'stale']);

function present(headers: HeadersLike, name: string): string | undefined {
  const value = headers.get(name)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(value: string | undefined): number | undefined {
  return value !== undefined && /^-?\d+$/.test(value) ? Number(value) : undefined;
}

function decimal(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** The cache's account of a response, or undefined when it carries no `x-service-cache` header. */
export function parseCacheInfo(headers: HeadersLike): CacheInfo | undefined {
  const status = present(headers, CACHE_RESPONSE_HEADERS.status)?.toLowerCase();
  if (status === undefined) return undefined;
  const cache: CacheInfo = { status, served: SERVED_FROM_CACHE.has(status) };
  const age = integer(present(headers, CACHE_RESPONSE_HEADERS.age));
  if (age !== undefined) cache.ageSeconds = age;
  const similarity = decimal(present(headers, CACHE_RESPONSE_HEADERS.similarity));
  if (similarity !== undefined) cache.similarity = similarity;
  return cache;
}

/** The balance of a response, or undefined when it carries none of the balance headers. */
export function parseBalanceInfo(headers: HeadersLike): BalanceInfo | undefined {
  const mode = present(headers, BALANCE_HEADERS.mode);
  const charged = present(headers, BALANCE_HEADERS.charged);
  const remaining = present(headers, BALANCE_HEADERS.remaining);
  const currency = present(headers, BALANCE_HEADERS.currency);
  if (mode === undefined && charged === undefined && remaining === undefined && currency === undefined)
    return undefined;
  const chargeDeferred = charged?.toLowerCase() === 'deferred';
  const balance: BalanceInfo = { mode: mode?.toLowerCase() ?? '', chargeDeferred };
  const chargedMicros = chargeDeferred ? undefined : integer(charged);
  if (chargedMicros !== undefined) balance.chargedMicros = chargedMicros;
  const remainingMicros = integer(remaining);
  if (remainingMicros !== undefined) balance.remainingMicros = remainingMicros;
  if (currency !== undefined) balance.currency = currency;
  return balance;
}

/** Routing, cache and balance of a response, from its status and headers. */
export function parseResponseInfo(response: { status: number; headers: HeadersLike }): GatewayResponseInfo {
  const info: GatewayResponseInfo = { status: response.status };
  const routing = parseRouting(response.headers);
  if (routing !== undefined) info.routing = routing;
  const cache = parseCacheInfo(response.headers);
  if (cache !== undefined) info.cache = cache;
  const balance = parseBalanceInfo(response.headers);
  if (balance !== undefined) info.balance = balance;
  return info;
}
