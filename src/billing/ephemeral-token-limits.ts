/**
 * Per-token budget and rate limits, counted in the runtime store so that every gateway process
 * shares them.
 *
 * Budget (specification 5, rule 3: refused with 402 once the cap is used up): a request that
 * goes upstream reserves `min(estimate, what is left)` against the token's cap in one atomic step,
 * and is refused only when nothing is left; after the response the reservation is replaced by the
 * actual cost, which may take the spend past the cap (then every later request is refused). So a
 * token with a budget of 1 micro serves one paid request. Sharing out what is left bounds the
 * overshoot: once the reservations in flight cover the cap, concurrent requests are refused rather
 * than all passing on the last micro; the spend can exceed the cap by at most the difference
 * between actual and reserved cost of the requests in flight. The estimate is the input (about four
 * characters per token) plus `max_tokens` of output at the model's prices. A cache hit never
 * reserves (the lookup comes first) and costs nothing.
 *
 * The budget's counter lives as long as the token (plus a minute) and is durable, as spend is
 * (DESIGN section 8): a standalone restart does not hand a token its budget back.
 *
 * Rate limits: fixed one-minute windows. Requests per minute are counted as they arrive (429 past
 * the limit); tokens per minute are added as responses report usage, and a request is refused
 * while the window's total is at or over the limit.
 */
import type { Principal } from '../auth/principal.ts';
import { CreditCapExceededError, RateLimitedError } from '../errors/gateway-error.ts';
import type { TokenUsage } from '../shapes/usage.ts';
import { isUnavailability, StoreTimeoutError } from '../stores/store-breaker.ts';
import type { RuntimeStore } from '../stores/types.ts';
import type { SpendJournal } from './spend-journal.ts';

/** One request's admission of a token: its rate window and budget reservation; settled at most once. */
export interface TokenHold {
  readonly jti: string;
  readonly budgetMicros: number | undefined;
  /** Reserved against the budget so far (0 until `reserve`). */
  reservedMicros: number;
  readonly window: number;
  readonly ttlSeconds: number;
  readonly budgeted: boolean;
  readonly countsTokens: boolean;
  settled: boolean;
}

const WINDOW_MS = 60_000;

export function budgetCounterName(jti: string): string {
  return `budget:token:${jti}`;
}

function requestCounterName(jti: string, window: number): string {
  return `rate:req:${jti}:${window}`;
}

function tokenCounterName(jti: string, window: number): string {
  return `rate:tok:${jti}:${window}`;
}

export class TokenLimiter {
  readonly #runtime: RuntimeStore;
  readonly #journal: SpendJournal | undefined;

  /**
   * With a journal, the limits fail open while the store is unreachable (a request is let through,
   * its budget spend journaled and applied when the store is back) rather than failing the request.
   */
  constructor(runtime: RuntimeStore, journal?: SpendJournal) {
    this.#runtime = runtime;
    this.#journal = journal;
  }

  /**
   * Checks the rate limits (every request counts, cache hits too); undefined for principals that
   * are not tokens. The budget is reserved later, by `reserve`, once the request goes upstream.
   */
  async admit(principal: Principal, nowMs = Date.now()): Promise<TokenHold | undefined> {
    const hold = this.open(principal, nowMs);
    await this.checkRates(hold, principal, nowMs);
    return hold;
  }

  /** The request's hold on the token (no store call); undefined for principals that are not tokens. */
  open(principal: Principal, nowMs = Date.now()): TokenHold | undefined {
    const token = principal.token;
    if (token === undefined) return undefined;
    return {
      jti: token.jti,
      budgetMicros: token.budgetMicros,
      reservedMicros: 0,
      window: Math.floor(nowMs / WINDOW_MS),
      ttlSeconds: Math.max(60, Math.ceil((token.expiresAtMs - nowMs) / 1000) + 60),
      budgeted: token.budgetMicros !== undefined,
      countsTokens: token.limits?.tokensPerMinute !== undefined,
      settled: false,
    };
  }

  /** Counts the request in the token's window and refuses it (429) past either limit. */
  async checkRates(hold: TokenHold | undefined, principal: Principal, nowMs = Date.now()): Promise<void> {
    const limits = principal.token?.limits;
    if (hold === undefined || limits === undefined) return;
    const retryAfter = (WINDOW_MS - (nowMs % WINDOW_MS)) / 1000;
    let requests: number | undefined;
    let tokens: number | undefined;
    try {
      [requests, tokens] = await Promise.all([
        limits.requestsPerMinute === undefined
          ? undefined
          : this.#runtime.incrementCounter(requestCounterName(hold.jti, hold.window), 1, 120),
        limits.tokensPerMinute === undefined
          ? undefined
          : this.#runtime.getCounter(tokenCounterName(hold.jti, hold.window)),
      ]);
    } catch (error) {
      // Degraded (the store is away): rate windows are not enforced until it is back.
      if (this.#journal !== undefined && isUnavailability(error)) return;
      throw error;
    }
    if (requests !== undefined && requests > (limits.requestsPerMinute ?? Number.POSITIVE_INFINITY)) {
      throw new RateLimitedError(
        `this token allows ${limits.requestsPerMinute} requests per minute`,
        retryAfter,
      );
    }
    if (tokens !== undefined && tokens >= (limits.tokensPerMinute ?? Number.POSITIVE_INFINITY)) {
      throw new RateLimitedError(`this token allows ${limits.tokensPerMinute} tokens per minute`, retryAfter);
    }
  }

  /**
   * Reserves `min(estimate, what is left)` of the token's budget (at least one micro, so that an
   * estimate of nothing still needs something left); 402 once the budget is used up.
   */
  async reserve(hold: TokenHold | undefined, estimatedMicros: number): Promise<void> {
    if (hold?.budgetMicros === undefined || hold.settled) return;
    let reservation: { ok: boolean; reserved: number };
    try {
      reservation = await this.#runtime.reserveUpToCap(
        budgetCounterName(hold.jti),
        Math.max(1, estimatedMicros),
        hold.budgetMicros,
        hold.ttlSeconds,
        'durable',
      );
    } catch (error) {
      // Degraded: nothing reserved; the settlement journals the whole cost. A reservation that timed
      // out may still be made by a stalled store when it wakes: then it is given back.
      if (this.#journal !== undefined && isUnavailability(error)) {
        if (error instanceof StoreTimeoutError) {
          const { jti, ttlSeconds } = hold;
          this.#journal.undoIfApplied(error.outcome as Promise<{ ok: boolean; reserved: number }>, (late) =>
            late.ok && late.reserved > 0
              ? {
                  kind: 'counter',
                  name: budgetCounterName(jti),
                  by: -late.reserved,
                  ttlSeconds,
                  keep: 'durable',
                }
              : undefined,
          );
        }
        return;
      }
      throw error;
    }
    if (!reservation.ok) {
      throw new CreditCapExceededError(`this token's budget of ${hold.budgetMicros} micros is used up`);
    }
    hold.reservedMicros += reservation.reserved;
  }

  /**
   * Replaces the reservation by the actual cost and counts the tokens used, once: a later call
   * (the handler's catch giving the reservation back after accounting failed further on) does
   * nothing, so a reservation is never refunded twice.
   */
  async settle(hold: TokenHold | undefined, costMicros: number, usage: TokenUsage): Promise<void> {
    if (hold === undefined || hold.settled) return;
    hold.settled = true;
    const work: Promise<unknown>[] = [];
    if (hold.budgeted && costMicros !== hold.reservedMicros) {
      const change = {
        kind: 'counter' as const,
        name: budgetCounterName(hold.jti),
        by: costMicros - hold.reservedMicros,
        ttlSeconds: hold.ttlSeconds,
        keep: 'durable' as const,
      };
      work.push(
        this.#journal === undefined
          ? this.#runtime.incrementCounter(change.name, change.by, change.ttlSeconds, change.keep)
          : this.#journal.apply(change),
      );
    }
    const used = usage.inputTokens + usage.cachedInputTokens + usage.cacheWriteTokens + usage.outputTokens;
    if (hold.countsTokens && used > 0) {
      // A rate window, not spend: while the store is away it is simply not counted.
      const counted = this.#runtime.incrementCounter(tokenCounterName(hold.jti, hold.window), used, 120);
      work.push(
        this.#journal === undefined
          ? counted
          : counted.catch((error: unknown) => {
              if (!isUnavailability(error)) throw error;
            }),
      );
    }
    await Promise.all(work);
  }
}
