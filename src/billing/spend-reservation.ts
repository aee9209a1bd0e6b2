/**
 * One request's hold on what it may spend, in one object: an ephemeral token's rate window and
 * budget (ephemeral-token-limits.ts) and a Connection's daily cap (connection-caps.ts). The request
 * path opens it (no store call), checks the rates and reserves together with its other reads (one
 * round trip; a cache hit gives the reservation back), settles it with the actual cost when the
 * answer is accounted for (JSON or stream), and releases it when the request is over; settle and
 * release are each safe to call twice, and a release after a settle gives nothing back.
 */
import type { Principal } from '../auth/principal.ts';
import type { ResolvedRoute } from '../providers/types.ts';
import { type TokenUsage, ZERO_USAGE } from '../shapes/usage.ts';
import type { ConnectionCapHold, ConnectionCaps } from './connection-caps.ts';
import type { TokenHold, TokenLimiter } from './ephemeral-token-limits.ts';

/** What a reservation without a hold answers at once (a platform key's request holds nothing). */
/** What a call that has nothing to do answers: already settled, so a caller need not wait on it. */
export const NOTHING_TO_DO: Promise<void> = Promise.resolve();

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

  /** Counts the request in its token's rate window; 429 past a limit (hits count too). */
  checkRates(): Promise<void> {
    if (this.#token === undefined) return NOTHING_TO_DO;
    return this.#limiter.checkRates(this.#token, this.#principal);
  }

  /**
   * Reserves the estimate against the token's budget (402 once it is used up) and the route's
   * Connection cap (402 once the day's cap is reached), both at once. What was reserved before a
   * refusal is given back by `release`.
   */
  reserve(route: ResolvedRoute, estimatedMicros: number): Promise<void> {
    // Neither a token nor a capped Connection (a platform key's request): nothing to hold.
    if (this.#token === undefined && (!route.byok || route.credential === undefined)) return NOTHING_TO_DO;
    return this.#reserve(route, estimatedMicros);
  }

  async #reserve(route: ResolvedRoute, estimatedMicros: number): Promise<void> {
    const [token, cap] = await Promise.allSettled([
      this.#limiter.reserve(this.#token, estimatedMicros),
      this.#caps.admit(this.#principal, route, estimatedMicros),
    ]);
    if (cap.status === 'fulfilled') this.#cap = cap.value;
    if (token.status === 'rejected') throw token.reason;
    if (cap.status === 'rejected') throw cap.reason;
  }

  /** Whether settling has anything to do: a hold taken and not yet settled. */
  get holding(): boolean {
    return !this.#finished && (this.#token !== undefined || this.#cap !== undefined);
  }

  /** Replaces what was reserved by the actual cost, and counts the tokens used; once. */
  settle(costMicros: number, usage: TokenUsage): Promise<void> {
    if (!this.holding) {
      this.#finished = true;
      return NOTHING_TO_DO;
    }
    this.#finished = true;
    return Promise.all([
      this.#limiter.settle(this.#token, costMicros, usage),
      this.#caps.settle(this.#cap, costMicros),
    ]).then(() => undefined);
  }

  /** Gives back whatever was reserved and not settled (nothing was served); never throws. */
  release(onError: (error: unknown) => void): void {
    if (this.holding) this.settle(0, ZERO_USAGE).catch(onError);
    else this.#finished = true;
  }
}

/** Opens reservations: one per request, before anything is read from the store. */
export class SpendLimits {
  readonly #limiter: TokenLimiter;
  readonly #caps: ConnectionCaps;

  constructor(limiter: TokenLimiter, caps: ConnectionCaps) {
    this.#limiter = limiter;
    this.#caps = caps;
  }

  /** The request's reservation (no store call): check its rates, reserve, settle, release. */
  open(principal: Principal): SpendReservation {
    return new SpendReservation(this.#limiter, this.#caps, principal, this.#limiter.open(principal));
  }
}
