/**
 * One request's hold on what it may spend, in one object: an ephemeral token's rate window and
 * budget (ephemeral-token-limits.ts) and a Connection's daily cap (connection-caps.ts). The request
 * path opens it once (rate limits checked), reserves once it goes upstream (a cache hit never
 * does), settles it with the actual cost when the answer is accounted for (JSON or stream), and
 * releases it when the request is over; settle and release are each safe to call twice, and a
 * release after a settle gives nothing back.
 */
import type { Principal } from '../auth/principal.ts';
import type { ResolvedRoute } from '../providers/types.ts';
import { type TokenUsage, ZERO_USAGE } from '../shapes/usage.ts';
import type { ConnectionCapHold, ConnectionCaps } from './connection-caps.ts';
import type { TokenHold, TokenLimiter } from './ephemeral-token-limits.ts';

export class SpendReservation {
  readonly #limiter: TokenLimiter;
  readonly #caps: ConnectionCaps;
  readonly #principal: Principal;
  readonly #token: TokenHold | undefined;
  #cap: ConnectionCapHold | undefined;
  #finished = false;

  constructor(
    limiter: TokenLimiter,
    caps: ConnectionCaps,
    principal: Principal,
    token: TokenHold | undefined,
  ) {
    this.#limiter = limiter;
    this.#caps = caps;
    this.#principal = principal;
    this.#token = token;
  }

  /**
   * Reserves the estimate against the token's budget (402 once it is used up) and the route's
   * Connection cap (402 once the day's cap is reached). What was reserved before a refusal is
   * given back by `release`.
   */
  async reserve(route: ResolvedRoute, estimatedMicros: number): Promise<void> {
    await this.#limiter.reserve(this.#token, estimatedMicros);
    this.#cap = await this.#caps.admit(this.#principal, route, estimatedMicros);
  }

  /** Replaces what was reserved by the actual cost, and counts the tokens used; once. */
  async settle(costMicros: number, usage: TokenUsage): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    await Promise.all([
      this.#limiter.settle(this.#token, costMicros, usage),
      this.#caps.settle(this.#cap, costMicros),
    ]);
  }

  /** Gives back whatever was reserved and not settled (nothing was served); never throws. */
  release(onError: (error: unknown) => void): void {
    this.settle(0, ZERO_USAGE).catch(onError);
  }
}

/** Opens reservations: the token's rate limits are checked at the door (every request counts, hits too). */
export class SpendLimits {
  readonly #limiter: TokenLimiter;
  readonly #caps: ConnectionCaps;

  constructor(limiter: TokenLimiter, caps: ConnectionCaps) {
    this.#limiter = limiter;
    this.#caps = caps;
  }

  async admit(principal: Principal): Promise<SpendReservation> {
    const token = await this.#limiter.admit(principal);
    return new SpendReservation(this.#limiter, this.#caps, principal, token);
  }
}
