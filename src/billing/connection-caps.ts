/**
 * A Connection's daily spend cap (`spec.dailyCapMicros`): the cost of the BYOK requests it served
 * per UTC day, counted in the runtime store (shared by every gateway process) under a key of the
 * Connection's id and the UTC date that expires two days later. Once the day's spend has reached
 * the cap, the Connection is refused for the rest of the UTC day with 402
 * `service.credential_cap_exceeded`; at 00:00 UTC a new key starts from zero.
 *
 * The reservation pattern of ephemeral-token-limits.ts: before forwarding, the request's estimated cost
 * (input at about four characters per token plus `max_tokens` of output, at the model's list
 * prices) is reserved against the cap in one atomic step, refused when it does not fit; after the
 * response the reservation is replaced by the actual cost; a request that fails before an answer
 * gives it back. Overshoot: with `max_tokens` set, concurrent requests cannot take the day past the
 * cap beyond the error of the input estimate; without it, by at most the output cost of the
 * requests in flight when the cap is reached. A request admitted just before midnight is settled
 * on the day it was admitted.
 *
 * What counts is the cost at list prices (billing/prices.ts), the same figure the platform would
 * have charged; nothing of it is debited from the platform balance. Models without a price cost 0
 * and so never move the counter. Connections without a cap cost no runtime-store round trip.
 */
import type { Principal } from '../auth/principal.ts';
import { CreditCapExceededError } from '../errors/gateway-error.ts';
import type { ResolvedRoute } from '../providers/types.ts';
import type { ConfigView } from '../stores/config-view.ts';
import { isUnavailability, StoreTimeoutError } from '../stores/store-breaker.ts';
import type { RuntimeStore } from '../stores/types.ts';
import type { SpendJournal } from './spend-journal.ts';

/** The day's counter outlives its day by a day, so a request settled after midnight still finds it. */
export const CONNECTION_SPEND_TTL_SECONDS = 2 * 86_400;

/** The UTC date of an instant, `YYYY-MM-DD`. */
export function utcDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/** The runtime-store counter of a Connection's spend on the UTC day of `nowMs`. */
export function connectionSpendCounterName(connectionId: string, nowMs: number): string {
  return `spend:connection:${connectionId}:${utcDay(nowMs)}`;
}

/** One request's reservation against its Connection's cap; settled at most once. */
export interface ConnectionCapHold {
  readonly counter: string;
  readonly reservedMicros: number;
  settled: boolean;
}

export class ConnectionCaps {
  readonly #runtime: RuntimeStore;
  readonly #view: ConfigView;
  readonly #now: () => number;
  readonly #journal: SpendJournal | undefined;

  /** With a journal, caps fail open while the store is unreachable, and the spend is applied when it is back. */
  constructor(runtime: RuntimeStore, view: ConfigView, now: () => number = Date.now, journal?: SpendJournal) {
    this.#runtime = runtime;
    this.#view = view;
    this.#now = now;
    this.#journal = journal;
  }

  /**
   * Reserves the estimate against the cap of the Connection that serves `route`; undefined for
   * platform routes and Connections without a cap. Throws 402 when the day's cap is reached.
   */
  async admit(
    principal: Principal,
    route: ResolvedRoute,
    estimatedMicros: number,
  ): Promise<ConnectionCapHold | undefined> {
    if (!route.byok || route.credential === undefined) return undefined;
    const connection = this.#view.connectionBySlug(principal.tenantId, route.credential.slug);
    const cap = connection?.dailyCapMicros;
    if (cap === undefined) return undefined;
    const counter = connectionSpendCounterName(route.credential.id, this.#now());
    // At least one micro, so that a spent cap refuses even requests estimated at nothing.
    const reservedMicros = Math.max(1, estimatedMicros);
    let reservation: { ok: boolean; value: number };
    try {
      reservation = await this.#runtime.reserveWithinCap(
        counter,
        reservedMicros,
        cap,
        CONNECTION_SPEND_TTL_SECONDS,
        // A day's spend survives a standalone restart, like every spend record.
        'durable',
      );
    } catch (error) {
      // Degraded: nothing reserved; the settlement journals the whole cost. A reservation that timed
      // out may still be made by a stalled store when it wakes: then it is given back.
      if (this.#journal !== undefined && isUnavailability(error)) {
        if (error instanceof StoreTimeoutError) {
          this.#journal.undoIfApplied(error.outcome as Promise<{ ok: boolean; value: number }>, (late) =>
            late.ok
              ? {
                  kind: 'counter',
                  name: counter,
                  by: -reservedMicros,
                  ttlSeconds: CONNECTION_SPEND_TTL_SECONDS,
                  keep: 'durable',
                }
              : undefined,
          );
        }
        return { counter, reservedMicros: 0, settled: false };
      }
      throw error;
    }
    if (!reservation.ok) {
      const { slug } = route.credential;
      const message =
        reservation.value >= cap
          ? `connection '${slug}' has reached its daily cap of ${cap} USD micros; it resumes at 00:00 UTC`
          : `connection '${slug}' has ${cap - reservation.value} of its daily cap of ${cap} USD micros left, ` +
            `less than this request's estimated ${reservedMicros}; lower max_tokens or wait for 00:00 UTC`;
      throw new CreditCapExceededError(message);
    }
    return { counter, reservedMicros, settled: false };
  }

  /** Replaces the reservation by the actual cost (once; later calls do nothing). */
  async settle(hold: ConnectionCapHold | undefined, costMicros: number): Promise<void> {
    if (hold === undefined || hold.settled) return;
    hold.settled = true;
    const delta = costMicros - hold.reservedMicros;
    if (delta === 0) return;
    if (this.#journal === undefined) {
      await this.#runtime.incrementCounter(hold.counter, delta, CONNECTION_SPEND_TTL_SECONDS, 'durable');
      return;
    }
    await this.#journal.apply({
      kind: 'counter',
      name: hold.counter,
      by: delta,
      ttlSeconds: CONNECTION_SPEND_TTL_SECONDS,
      keep: 'durable',
    });
  }

  /** Gives an unsettled reservation back (nothing was served); never throws. */
  release(hold: ConnectionCapHold | undefined, onError: (error: unknown) => void): void {
    this.settle(hold, 0).catch(onError);
  }

  /** What the Connection spent on the UTC day of now. */
  spentToday(connectionId: string): Promise<number> {
    return this.#runtime.getCounter(connectionSpendCounterName(connectionId, this.#now()));
  }
}
