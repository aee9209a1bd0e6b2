/**
 * Spend is never lost to a Redis outage (DESIGN section 2). A debit, a spend counter or a budget
 * settlement that cannot reach the runtime store is kept here, summed per balance or counter
 * (so the journal is bounded by how many tenants, tokens and Connections spent, not by how many
 * requests), and applied when the store answers again: each sum as one operation with an id,
 * through `applySpendOnce`, so that a replay whose reply was lost and is sent again applies once.
 * Changes made while a replay is in flight add up for the next one.
 *
 * A change whose call timed out on a connection that stayed up (a stalled Redis: SIGSTOP, a long
 * fork or script) is not journaled at once: the stalled server still holds the command and runs it
 * when it wakes. The journal follows the command on (StoreTimeoutError's `outcome`): answered, it
 * was applied and nothing is kept; failed for want of the store (the connection dropped), it is
 * journaled then. Until either, it counts as `awaiting`.
 *
 * What stays uncertain: a command on its way when the connection dropped may or may not have been
 * applied by Redis; it is journaled, as not applied. That window is the instant of the drop.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../observability/logger.ts';
import { isUnavailability, StoreTimeoutError } from '../stores/store-breaker.ts';
import type { RuntimeStore, SpendChange } from '../stores/types.ts';

export interface SpendJournalOptions {
  runtime: RuntimeStore;
  log: Logger;
  /** Balances and counters held at most; a change to one more is dropped (and counted). Default 100,000. */
  maxEntries?: number;
}

interface Entry {
  change: SpendChange;
  /** Not yet sent: the sum of the changes journaled since the last send. */
  pending: number;
  /** Sent and not confirmed: resent with the same id until the store confirms. */
  inFlight?: { operationId: string; amount: number };
}

export interface SpendJournalStats {
  /** Balances and counters with spend waiting. */
  entries: number;
  /** Changes journaled since start. */
  journaled: number;
  /** Operations applied by replays since start. */
  replayed: number;
  /**
   * Balance operations replayed where the tenant had no balance to change, since start: a postpaid
   * tenant whose balance could not be read during the outage (as it should be), or a prepaid
   * tenant's balance record gone from the store (worth a look).
   */
  withoutBalance: number;
  /** Changes dropped because the journal was full. */
  dropped: number;
  /** Changes sent to a store that has not answered yet (their calls timed out): neither applied nor journaled. */
  awaiting: number;
}

const keyOf = (change: SpendChange) =>
  change.kind === 'balance' ? `b\u0000${change.tenantId}` : `c\u0000${change.name}`;
const amountOf = (change: SpendChange) => (change.kind === 'balance' ? change.deltaMicros : change.by);
const withAmount = (change: SpendChange, amount: number): SpendChange =>
  change.kind === 'balance' ? { ...change, deltaMicros: amount } : { ...change, by: amount };

export class SpendJournal {
  readonly #runtime: RuntimeStore;
  readonly #log: Logger;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, Entry>();
  readonly stats: SpendJournalStats = {
    entries: 0,
    journaled: 0,
    replayed: 0,
    withoutBalance: 0,
    dropped: 0,
    awaiting: 0,
  };
  #replaying: Promise<void> | undefined;
  #overflowLoggedAt = Number.NEGATIVE_INFINITY;

  constructor(options: SpendJournalOptions) {
    this.#runtime = options.runtime;
    this.#log = options.log;
    this.#maxEntries = options.maxEntries ?? 100_000;
  }

  /**
   * Applies `change` now; when the store cannot be reached, journals it and resolves with
   * undefined. Any other error (a refused argument) is thrown.
   */
  apply(change: SpendChange): Promise<number | undefined> {
    const journalIfUnreachable = (error: unknown): undefined => {
      if (!isUnavailability(error)) throw error;
      if (error instanceof StoreTimeoutError) this.#follow(change, error.outcome);
      else this.record(change);
      return undefined;
    };
    try {
      const applied =
        change.kind === 'balance'
          ? this.#runtime.adjustBalance(change.tenantId, change.deltaMicros)
          : this.#runtime.incrementCounter(change.name, change.by, change.ttlSeconds, change.keep);
      return applied.then(undefined, journalIfUnreachable);
    } catch (error) {
      // Thrown before a promise was made: judged the same way, and rejected rather than thrown.
      return Promise.reject(error).then(undefined, journalIfUnreachable);
    }
  }

  /** A change whose call timed out: journaled only if the command turns out not to have reached the store. */
  #follow(change: SpendChange, outcome: Promise<unknown>): void {
    this.stats.awaiting += 1;
    outcome.then(
      () => {
        this.stats.awaiting -= 1;
      },
      (error: unknown) => {
        this.stats.awaiting -= 1;
        if (isUnavailability(error)) this.record(change);
        else this.#log.error({ err: error, change }, 'a spend change the store answered late was refused');
      },
    );
  }

  /**
   * A reservation whose call timed out, so that the request went on as if nothing were reserved
   * (its settlement then charges the whole cost). If the store ran it after all (a stalled Redis
   * that woke), `undo` says what to give back, and it is applied (or journaled) like any change.
   */
  undoIfApplied<T>(outcome: Promise<T>, undo: (late: T) => SpendChange | undefined): void {
    this.stats.awaiting += 1;
    outcome.then(
      (late) => {
        this.stats.awaiting -= 1;
        const change = undo(late);
        if (change === undefined) return;
        this.apply(change).catch((error: unknown) =>
          this.#log.error({ err: error, change }, 'giving back a reservation the store made late failed'),
        );
      },
      () => {
        // Never reached the store (the connection dropped): nothing to give back.
        this.stats.awaiting -= 1;
      },
    );
  }

  /** Keeps a change to apply later. */
  record(change: SpendChange): void {
    const amount = amountOf(change);
    if (amount === 0) return;
    const key = keyOf(change);
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      if (this.#entries.size >= this.#maxEntries) {
        this.stats.dropped += 1;
        const nowMs = Date.now();
        if (nowMs - this.#overflowLoggedAt > 60_000) {
          this.#overflowLoggedAt = nowMs;
          this.#log.error({ maxEntries: this.#maxEntries }, 'spend journal full: dropping spend changes');
        }
        return;
      }
      entry = { change, pending: 0 };
      this.#entries.set(key, entry);
    }
    entry.pending += amount;
    this.stats.journaled += 1;
    this.stats.entries = this.#entries.size;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Applies everything journaled; resolves when done or when the store fails again (kept for later). */
  replay(): Promise<void> {
    if (this.#replaying !== undefined) return this.#replaying;
    this.#replaying = this.#replayAll().finally(() => {
      this.#replaying = undefined;
    });
    return this.#replaying;
  }

  async #replayAll(): Promise<void> {
    if (this.#entries.size === 0) return;
    const started = this.#entries.size;
    let applied = 0;
    let withoutBalance = 0;
    for (const [key, entry] of this.#entries) {
      if (entry.inFlight === undefined) {
        if (entry.pending === 0) {
          this.#entries.delete(key);
          continue;
        }
        entry.inFlight = { operationId: randomUUID(), amount: entry.pending };
        entry.pending = 0;
      }
      const { operationId, amount } = entry.inFlight;
      try {
        const outcome = await this.#runtime.applySpendOnce(withAmount(entry.change, amount), operationId);
        if (outcome === 'applied') this.stats.replayed += 1;
        else if (outcome === 'no-balance') {
          this.stats.withoutBalance += 1;
          withoutBalance += 1;
        }
        applied += 1;
      } catch (error) {
        // Unreachable again: the rest waits for the next recovery, this one with the same id.
        this.stats.entries = this.#entries.size;
        if (isUnavailability(error)) return;
        throw error;
      }
      entry.inFlight = undefined;
      if (entry.pending === 0) this.#entries.delete(key);
    }
    this.stats.entries = this.#entries.size;
    this.#log.info(
      { entries: started, applied, withoutBalance },
      'spend journaled during the outage applied',
    );
  }
}
