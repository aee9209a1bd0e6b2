/**
 * A process's local, synchronous mirror of the config store. The gateway answers every request
 * from these indexes (plain Map gets, no I/O, no allocation); the store's change feed keeps them
 * current: a `put` or `delete` re-reads that one record, a `reset` reloads the whole snapshot.
 *
 * Records held here are frozen: callers share them and must not (cannot) change them.
 */
import { GatewayError } from '../errors/gateway-error.ts';
import { ConfigIndex, type ConfigRecord } from './config-index.ts';
import type { ConfigKind, ConfigRecordMap } from './records.ts';
import type { ConfigChange, ConfigSnapshot, ConfigStore, Unsubscribe } from './types.ts';

/** 503: a change was written but this process's view did not show it within the allowed time. */
export class ConfigPropagationTimeoutError extends GatewayError {
  constructor(kind: ConfigKind, id: string, timeoutMs: number) {
    super(
      'service.config_propagation_timeout',
      503,
      'api_error',
      `the ${kind} '${id}' was not visible to the gateway within ${timeoutMs} ms`,
      true,
    );
  }
}

/**
 * 503: this process has no configuration yet (its store has not been built: a fresh gateway on a
 * Redis that came back empty). Retryable, and never a 401: the caller's key may well be valid.
 */
export class ConfigUnavailableError extends GatewayError {
  constructor() {
    super(
      'service.config_unavailable',
      503,
      'api_error',
      'the gateway has no configuration yet (its store is being rebuilt); retry shortly',
      true,
    );
  }
}

export interface ConfigViewOptions {
  /** Told about failed re-reads (the view then reloads, with backoff) and listeners that threw. */
  onError?: (error: unknown) => void;
  /** First delay before reloading after a failed read; doubles up to 5 s. Default 100 ms. */
  retryDelayMs?: number;
  /** How often to look again while the store has no epoch (not built yet, or wiped); default 500 ms. */
  rebuildPollMs?: number;
}

interface Waiter {
  readonly predicate: (record: ConfigRecord | undefined) => boolean;
  readonly resolve: (record: ConfigRecord | undefined) => void;
  readonly reject: (error: unknown) => void;
  readonly timer: NodeJS.Timeout;
}

const MAX_RETRY_DELAY_MS = 5000;

export class ConfigView extends ConfigIndex {
  readonly #store: ConfigStore;
  readonly #onError: (error: unknown) => void;
  readonly #retryDelayMs: number;
  readonly #changeListeners = new Set<(change: ConfigChange) => void>();
  readonly #waiters = new Map<string, Set<Waiter>>();
  #version = 0;
  #pending: ConfigChange[] = [];
  #draining = false;
  #closed = false;
  #failures = 0;
  #populated = false;
  readonly #rebuildPollMs: number;
  #resyncTimer: NodeJS.Timeout | undefined;
  #unsubscribe: Unsubscribe | undefined;

  private constructor(store: ConfigStore, options: ConfigViewOptions) {
    super();
    this.#store = store;
    this.#onError = options.onError ?? (() => {});
    this.#retryDelayMs = options.retryDelayMs ?? 100;
    this.#rebuildPollMs = options.rebuildPollMs ?? 500;
  }

  /** Subscribes, loads the snapshot, and resolves once the view answers lookups. */
  static async start(store: ConfigStore, options: ConfigViewOptions = {}): Promise<ConfigView> {
    const view = new ConfigView(store, options);
    // Subscribe before reading the snapshot so that nothing written in between is missed; hold
    // the changes that arrive meanwhile until the snapshot is in.
    view.#draining = true;
    view.#unsubscribe = await store.watch((change) => view.#enqueue(change));
    try {
      const snapshot = await view.#completeSnapshot();
      if (snapshot !== undefined) view.#replaceAll(snapshot);
      else view.#scheduleRebuildCheck();
    } catch (error) {
      await view.close();
      throw error;
    }
    void view.#drain();
    return view;
  }

  /**
   * Whether the view holds a built configuration: a snapshot the store's epoch vouched for (set by
   * the reconciler after a full sync). False for a fresh process on a store that has not been
   * built, or came back empty; such a process is not ready and answers 503, never 401.
   */
  get populated(): boolean {
    return this.#populated;
  }

  /**
   * The store's records when it is built: an epoch before and the same epoch after the read (so the
   * snapshot is not of a store being wiped or rebuilt); undefined when it has no epoch.
   */
  async #completeSnapshot(): Promise<ConfigSnapshot | undefined> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const before = await this.#store.getEpoch();
      if (before === undefined) return undefined;
      const snapshot = await this.#store.snapshot();
      if ((await this.#store.getEpoch()) === before) return snapshot;
    }
    return undefined;
  }

  /** While the store has no epoch: look again now and then (its rebuild does not announce the epoch). */
  #scheduleRebuildCheck(): void {
    if (this.#resyncTimer !== undefined || this.#closed) return;
    this.#resyncTimer = setTimeout(() => {
      this.#resyncTimer = undefined;
      this.#enqueue({ op: 'reset' });
    }, this.#rebuildPollMs);
    this.#resyncTimer.unref();
  }

  /** Incremented on every change applied (a record put or deleted, a full reload). */
  get version(): number {
    return this.#version;
  }

  /**
   * Resolves with the record once this view holds one for which `predicate` is true (pass
   * `(record) => record === undefined` to wait for a delete); rejects with
   * ConfigPropagationTimeoutError after `timeoutMs`.
   */
  whenApplied<K extends ConfigKind>(
    kind: K,
    id: string,
    predicate: (record: ConfigRecordMap[K] | undefined) => boolean,
    timeoutMs: number,
  ): Promise<ConfigRecordMap[K] | undefined> {
    const current = this.record(kind, id);
    if (predicate(current)) return Promise.resolve(current);
    if (this.#closed) return Promise.reject(new Error('the config view is closed'));
    const key = `${kind}\u0000${id}`;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate: predicate as Waiter['predicate'],
        resolve: resolve as Waiter['resolve'],
        reject,
        timer: setTimeout(() => {
          this.#removeWaiter(key, waiter);
          reject(new ConfigPropagationTimeoutError(kind, id, timeoutMs));
        }, timeoutMs),
      };
      let waiters = this.#waiters.get(key);
      if (waiters === undefined) {
        waiters = new Set();
        this.#waiters.set(key, waiters);
      }
      waiters.add(waiter);
    });
  }

  /**
   * Reloads everything from the store now: afterwards the view reflects at least every write that
   * completed before the call (used where a caller must see its own write, without the feed's delay).
   */
  async refresh(): Promise<void> {
    const snapshot = await this.#completeSnapshot();
    if (!this.#closed && snapshot !== undefined) this.#replaceAll(snapshot);
  }

  /** Called after each applied change, with `reset` after a full reload. Returns the unsubscriber. */
  onChange(listener: (change: ConfigChange) => void): () => void {
    const subscription = (change: ConfigChange) => listener(change);
    this.#changeListeners.add(subscription);
    return () => {
      this.#changeListeners.delete(subscription);
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#resyncTimer);
    this.#changeListeners.clear();
    for (const waiters of this.#waiters.values()) {
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error('the config view is closed'));
      }
    }
    this.#waiters.clear();
    await this.#unsubscribe?.();
  }

  #enqueue(change: ConfigChange): void {
    if (this.#closed) return;
    // A reload reads everything after this point, which covers every change queued before it.
    if (change.op === 'reset') this.#pending = [change];
    else this.#pending.push(change);
    if (this.#draining) return;
    // Start on the next microtask, so that changes delivered together (one socket read) form one batch.
    this.#draining = true;
    queueMicrotask(() => void this.#drain());
  }

  /** Applies queued changes in order, one batch at a time; never rejects. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#pending.length > 0 && !this.#closed) {
        const batch = this.#pending;
        this.#pending = [];
        await this.#applyBatch(batch);
      }
    } finally {
      this.#draining = false;
    }
  }

  async #applyBatch(batch: ConfigChange[]): Promise<void> {
    try {
      if (batch[0]?.op === 'reset') {
        const snapshot = await this.#completeSnapshot();
        if (this.#closed) return;
        this.#failures = 0;
        // A store without an epoch is empty or being rebuilt (Redis restarted without its data):
        // the view keeps serving what it last knew until the rebuild is complete.
        if (snapshot === undefined) this.#scheduleRebuildCheck();
        else this.#replaceAll(snapshot);
        return;
      }
      // Only the record's current state matters, so each record is read once per batch.
      const targets = new Map<string, { kind: ConfigKind; id: string }>();
      for (const change of batch) {
        if (change.op !== 'reset') targets.set(`${change.kind}\u0000${change.id}`, change);
      }
      const entries = [...targets];
      const records = await Promise.all(entries.map(([, { kind, id }]) => this.#store.get(kind, id)));
      if (this.#closed) return;
      entries.forEach(([key, { kind, id }], index) => {
        this.applyRecord(kind, id, records[index]);
        this.#version += 1;
        this.#settleWaiters(key, records[index]);
        this.#emit({ op: records[index] === undefined ? 'delete' : 'put', kind, id });
      });
    } catch (error) {
      this.#onError(error);
      this.#scheduleResync();
    }
  }

  #scheduleResync(): void {
    if (this.#resyncTimer !== undefined || this.#closed) return;
    const delay = Math.min(this.#retryDelayMs * 2 ** this.#failures, MAX_RETRY_DELAY_MS);
    this.#failures += 1;
    this.#resyncTimer = setTimeout(() => {
      this.#resyncTimer = undefined;
      this.#enqueue({ op: 'reset' });
    }, delay);
    this.#resyncTimer.unref();
  }

  #replaceAll(snapshot: ConfigSnapshot): void {
    this.clearRecords();
    for (const kind of Object.keys(snapshot) as ConfigKind[]) {
      for (const [id, record] of snapshot[kind]) this.applyRecord(kind, id, record);
    }
    this.#version += 1;
    this.#populated = true;
    for (const [key, waiters] of this.#waiters) {
      const separator = key.indexOf('\u0000');
      const kind = key.slice(0, separator) as ConfigKind;
      const record = this.record(kind, key.slice(separator + 1));
      this.#settleWaiters(key, record, waiters);
    }
    this.#emit({ op: 'reset' });
  }

  #settleWaiters(
    key: string,
    record: ConfigRecord | undefined,
    waiters: Set<Waiter> | undefined = this.#waiters.get(key),
  ): void {
    if (waiters === undefined) return;
    for (const waiter of waiters) {
      let satisfied: boolean;
      try {
        satisfied = waiter.predicate(record);
      } catch (error) {
        this.#removeWaiter(key, waiter);
        waiter.reject(error);
        continue;
      }
      if (satisfied) {
        this.#removeWaiter(key, waiter);
        waiter.resolve(record);
      }
    }
  }

  #removeWaiter(key: string, waiter: Waiter): void {
    clearTimeout(waiter.timer);
    const waiters = this.#waiters.get(key);
    if (waiters === undefined) return;
    waiters.delete(waiter);
    if (waiters.size === 0) this.#waiters.delete(key);
  }

  #emit(change: ConfigChange): void {
    for (const listener of this.#changeListeners) {
      try {
        listener(change);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}
