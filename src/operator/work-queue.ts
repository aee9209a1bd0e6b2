/**
 * The controllers' work queue, with client-go's workqueue semantics:
 *
 * - keys (`Kind/namespace/name`) are deduplicated: a key added while queued is queued once;
 * - one reconcile in flight per key: a key added while it is being processed is marked dirty and
 *   runs again right after, never concurrently;
 * - a failed reconcile is requeued with per-key exponential backoff (retryBaseMs doubling up to
 *   retryMaxMs, like ItemExponentialFailureRateLimiter); a success forgets the key's failures;
 * - up to `concurrency` different keys run at once;
 * - `exclusive(fn)` runs fn with no reconcile in flight (used for full rebuilds of the store).
 */

export interface ReconcileOutcome {
  /** Run the key again after this delay (no failure counted). */
  requeueAfterMs?: number;
}

export interface WorkQueueOptions {
  handler: (key: string) => Promise<ReconcileOutcome | undefined>;
  concurrency?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Told about each failure and when the key will be retried. */
  onError?: (key: string, error: unknown, failures: number, retryInMs: number) => void;
}

export class WorkQueue {
  readonly #handler: WorkQueueOptions['handler'];
  readonly #concurrency: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  readonly #onError: NonNullable<WorkQueueOptions['onError']>;
  /** FIFO of keys waiting to run; `#queuedSet` mirrors it for dedup. */
  #queue: string[] = [];
  readonly #queuedSet = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #delayed = new Map<string, { timer: NodeJS.Timeout; at: number }>();
  #inflight = new Set<Promise<void>>();
  #exclusiveDepth = 0;
  #stopped = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions) {
    this.#handler = options.handler;
    this.#concurrency = options.concurrency ?? 4;
    this.#retryBaseMs = options.retryBaseMs ?? 200;
    this.#retryMaxMs = options.retryMaxMs ?? 60_000;
    this.#onError = options.onError ?? (() => {});
  }

  add(key: string): void {
    if (this.#stopped) return;
    const delayed = this.#delayed.get(key);
    if (delayed) {
      clearTimeout(delayed.timer);
      this.#delayed.delete(key);
    }
    if (this.#processing.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#queuedSet.has(key)) return;
    this.#queuedSet.add(key);
    this.#queue.push(key);
    this.#pump();
  }

  /** Adds the key after a delay; an earlier pending delay for the key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#stopped) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const existing = this.#delayed.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.#delayed.set(key, { timer, at });
  }

  /** Consecutive failures of the key. */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Keys queued or running (not delayed ones). */
  get length(): number {
    return this.#queue.length + this.#processing.size;
  }

  /** Resolves when nothing is queued or running (delayed retries do not count). */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Runs fn once no reconcile is in flight; no reconcile starts until it is done. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.#exclusiveDepth += 1;
    try {
      while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
      return await fn();
    } finally {
      this.#exclusiveDepth -= 1;
      this.#pump();
    }
  }

  /** Drops everything queued or delayed and waits for running reconciles; the queue can be reused. */
  async drain(): Promise<void> {
    this.#queue = [];
    this.#queuedSet.clear();
    this.#dirty.clear();
    this.#failures.clear();
    for (const { timer } of this.#delayed.values()) clearTimeout(timer);
    this.#delayed.clear();
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
    this.#settleIdle();
  }

  /** Stops for good: nothing is accepted any more. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    await this.drain();
  }

  #pump(): void {
    while (
      !this.#stopped &&
      this.#exclusiveDepth === 0 &&
      this.#processing.size < this.#concurrency &&
      this.#queue.length > 0
    ) {
      const key = this.#queue.shift() as string;
      this.#queuedSet.delete(key);
      this.#processing.add(key);
      const run = this.#process(key);
      this.#inflight.add(run);
      void run.finally(() => {
        this.#inflight.delete(run);
        this.#pump();
        this.#settleIdle();
      });
    }
  }

  async #process(key: string): Promise<void> {
    let retryInMs: number | undefined;
    try {
      const outcome = await this.#handler(key);
      this.#failures.delete(key);
      retryInMs = outcome?.requeueAfterMs;
    } catch (error) {
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      retryInMs = Math.min(this.#retryMaxMs, this.#retryBaseMs * 2 ** Math.min(failures - 1, 30));
      this.#onError(key, error, failures, retryInMs);
    } finally {
      this.#processing.delete(key);
    }
    if (this.#dirty.delete(key)) this.add(key);
    else if (retryInMs !== undefined) this.addAfter(key, retryInMs);
  }

  #isIdle(): boolean {
    return this.#queue.length === 0 && this.#processing.size === 0;
  }

  #settleIdle(): void {
    if (!this.#isIdle()) return;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
