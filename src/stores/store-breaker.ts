/**
 * A circuit breaker around a store (DESIGN section 2, degraded mode). After a call fails for want
 * of the backend (a refused or dropped connection, a timeout: not a bad argument or a script's own
 * error), the breaker opens: every call fails at once with StoreUnavailableError instead of
 * waiting on a backend that is not there, and a probe checks the backend in the background. When
 * a probe answers, the breaker closes and its recovery handlers run (the spend journal's replay).
 * One log line and one metric change per transition, never per request.
 */
import type { Logger } from '../observability/logger.ts';

/** The backend is unreachable (or the breaker is open): the caller degrades. */
export class StoreUnavailableError extends Error {
  constructor(store: string, cause?: unknown) {
    super(`the ${store} store is unreachable`, cause === undefined ? undefined : { cause });
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Whether an error means the backend could not be reached, as opposed to a refused argument
 * (TypeError) or an error answered by the backend itself (a Redis reply error).
 */
export function isUnavailability(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (error instanceof TypeError || error instanceof RangeError) return false;
  if (error instanceof Error && error.name === 'ReplyError') return false;
  return error instanceof Error;
}

export interface StoreBreakerOptions {
  /** Names the store in logs and metrics (`runtime`). */
  name: string;
  /** Asks the backend whether it answers; must not throw. */
  probe: () => Promise<boolean>;
  /** Between probes while open; default 500 ms. */
  probeIntervalMs?: number;
  log: Logger;
}

export class StoreBreaker {
  readonly #options: StoreBreakerOptions;
  #open = false;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  readonly #recoveryHandlers: (() => Promise<void>)[] = [];
  /** Outages seen since start (times the breaker opened). */
  outages = 0;

  constructor(options: StoreBreakerOptions) {
    this.#options = options;
  }

  get open(): boolean {
    return this.#open;
  }

  /** Runs `handler` each time the breaker closes after an outage (the spend journal's replay). */
  onRecovered(handler: () => Promise<void>): void {
    this.#recoveryHandlers.push(handler);
  }

  /**
   * Runs `operation` unless the breaker is open; a failure for want of the backend opens it. One
   * promise more than the operation's own (this is on every store call of the hot path).
   */
  call<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#open) return Promise.reject(new StoreUnavailableError(this.#options.name));
    try {
      return operation().then(undefined, this.#failed);
    } catch (error) {
      // Thrown before a promise was made: rejected all the same, never thrown at the caller.
      return Promise.reject(error).then(undefined, this.#failed);
    }
  }

  /** A call's failure: opens the breaker when the backend is away, and rethrows. */
  readonly #failed = (error: unknown): never => {
    if (isUnavailability(error)) {
      this.trip(error);
      throw error instanceof StoreUnavailableError
        ? error
        : new StoreUnavailableError(this.#options.name, error);
    }
    throw error;
  };

  /** Opens the breaker (once) and starts probing. */
  trip(cause: unknown): void {
    if (this.#open || this.#stopped) return;
    this.#open = true;
    this.outages += 1;
    this.#options.log.warn(
      { store: this.#options.name, err: cause },
      `${this.#options.name} store unreachable: serving degraded until it answers again`,
    );
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#probe(), this.#options.probeIntervalMs ?? 500);
    this.#timer.unref();
  }

  async #probe(): Promise<void> {
    if (this.#stopped) return;
    if (!(await this.#options.probe().catch(() => false))) return this.#schedule();
    this.#open = false;
    this.#options.log.info({ store: this.#options.name }, `${this.#options.name} store reachable again`);
    for (const handler of this.#recoveryHandlers) {
      try {
        await handler();
      } catch (error) {
        this.#options.log.warn({ store: this.#options.name, err: error }, 'recovery after an outage failed');
      }
    }
  }
}
