/**
 * A circuit breaker around a store (DESIGN section 2, degraded mode). After a call fails for want
 * of the backend (a refused or dropped connection, a timeout: not a bad argument or a script's own
 * error), the breaker opens: every call fails at once with StoreUnavailableError instead of
 * waiting on a backend that is not there, and a probe checks the backend in the background. When
 * a probe answers, the breaker closes and its recovery handlers run (the spend journal's replay).
 * One log line and one metric change per transition, never per request.
 */
import type { Logger } from '../observability/logger.ts';
import { waitAtMost } from './wait-at-most.ts';

/** The backend is unreachable (or the breaker is open): the caller degrades. */
export class StoreUnavailableError extends Error {
  constructor(store: string, cause?: unknown) {
    super(`the ${store} store is unreachable`, cause === undefined ? undefined : { cause });
    this.name = 'StoreUnavailableError';
  }
}

/**
 * A call that did not answer within the breaker's `callTimeoutMs`. The backend may still run it (a
 * stalled Redis runs what it was sent when it wakes): `outcome` is the call itself, still going,
 * for a caller that must know whether it took effect (the spend journal).
 */
export class StoreTimeoutError extends StoreUnavailableError {
  readonly outcome: Promise<unknown>;
  constructor(store: string, timeoutMs: number, outcome: Promise<unknown>) {
    super(store, new Error(`no answer within ${timeoutMs} ms`));
    this.name = 'StoreTimeoutError';
    this.outcome = outcome;
  }
}

/**
 * Reply errors of a server that cannot run the command at all and did not: a replica (a master
 * demoted by a failover, reached before the client moved on), a server still loading its data set,
 * a replica cut off from its master, a master short of the replicas `min-replicas-to-write` asks
 * for (one a failover left behind), a Redis Cluster node while the cluster is down (a master lost
 * and not yet replaced) or while the slot's keys are being moved. Like a refused connection, they
 * say where the data is not.
 */
const NOT_SERVING_REPLIES = /^(READONLY|LOADING|MASTERDOWN|NOREPLICAS|CLUSTERDOWN|TRYAGAIN) /;

/**
 * Whether an error means the backend could not be reached (or could not serve: see
 * NOT_SERVING_REPLIES), as opposed to a refused argument (TypeError) or an error answered by the
 * backend itself (any other Redis reply error).
 */
export function isUnavailability(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (error instanceof TypeError || error instanceof RangeError) return false;
  if (error instanceof Error && error.name === 'ReplyError')
    return NOT_SERVING_REPLIES.test(error.message) || isRefusedTransaction(error);
  return error instanceof Error;
}

/**
 * A MULTI that such a server refused: each queued write answered READONLY, NOREPLICAS or
 * CLUSTERDOWN, so EXEC ran nothing (`EXECABORT`; ioredis lists the queued commands' errors as
 * `previousErrors`). A transaction refused for a bad argument is not one.
 */
function isRefusedTransaction(error: Error): boolean {
  if (!error.message.startsWith('EXECABORT ')) return false;
  const previous = (error as Error & { previousErrors?: unknown }).previousErrors;
  return (
    Array.isArray(previous) &&
    previous.length > 0 &&
    previous.every((each) => each instanceof Error && NOT_SERVING_REPLIES.test(each.message))
  );
}

export interface StoreBreakerOptions {
  /** Names the store in logs and metrics (`runtime`). */
  name: string;
  /** Asks the backend whether it answers; must not throw. */
  probe: () => Promise<boolean>;
  /** Between probes while open; default 500 ms. */
  probeIntervalMs?: number;
  /**
   * A call that has not answered after this long fails with StoreTimeoutError and opens the breaker
   * (the call itself goes on); default: calls are not timed here (their client bounds them).
   */
  callTimeoutMs?: number;
  log: Logger;
}

/** A timed call still waiting for its answer, in a list ordered by deadline (all share one timeout). */
interface InFlight {
  readonly deadline: number;
  readonly expire: () => void;
  previous: InFlight | undefined;
  next: InFlight | undefined;
}

/**
 * The timed calls in flight, oldest first, and one timer for them all, set for the oldest's
 * deadline: a timer per call (what ioredis's `commandTimeout` arms for every command) costs more
 * than the call's own bookkeeping on the hot path. An answered call leaves the list at once, so
 * that nothing outlives its call (a list emptied only by the timer would keep every call of the
 * last second alive into the old generation).
 */
class InFlightCalls {
  #oldest: InFlight | undefined;
  #newest: InFlight | undefined;
  #timer: NodeJS.Timeout | undefined;

  push(call: InFlight): void {
    call.previous = this.#newest;
    if (this.#newest === undefined) this.#oldest = call;
    else this.#newest.next = call;
    this.#newest = call;
    if (this.#timer === undefined) this.#arm(call.deadline);
  }

  remove(call: InFlight): void {
    if (call.previous === undefined) {
      if (this.#oldest !== call) return; // expired already
      this.#oldest = call.next;
    } else call.previous.next = call.next;
    if (call.next === undefined) this.#newest = call.previous;
    else call.next.previous = call.previous;
    call.previous = undefined;
    call.next = undefined;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(deadline: number): void {
    this.#timer = setTimeout(this.#expire, Math.max(0, Math.ceil(deadline - performance.now())));
    this.#timer.unref();
  }

  readonly #expire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    let call = this.#oldest;
    while (call !== undefined && call.deadline <= now) {
      this.remove(call);
      call.expire();
      call = this.#oldest;
    }
    if (call !== undefined) this.#arm(call.deadline);
  };
}

export class StoreBreaker {
  readonly #options: StoreBreakerOptions;
  #open = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #inFlight = new InFlightCalls();
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
    let pending: Promise<T>;
    try {
      pending = operation();
    } catch (error) {
      // Thrown before a promise was made: rejected all the same, never thrown at the caller.
      return Promise.reject(error).then(undefined, this.#failed);
    }
    const timeoutMs = this.#options.callTimeoutMs;
    if (timeoutMs === undefined) return pending.then(undefined, this.#failed);
    return new Promise<T>((resolve, reject) => {
      const call: InFlight = {
        deadline: performance.now() + timeoutMs,
        expire: () => {
          const error = new StoreTimeoutError(this.#options.name, timeoutMs, pending);
          this.trip(error);
          reject(error);
        },
        previous: undefined,
        next: undefined,
      };
      this.#inFlight.push(call);
      pending.then(
        (value) => {
          this.#inFlight.remove(call);
          resolve(value);
        },
        (error: unknown) => {
          this.#inFlight.remove(call);
          try {
            this.#failed(error);
          } catch (failure) {
            reject(failure);
          }
        },
      );
    });
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
    this.#inFlight.stop();
  }

  /** One probe, bounded by `callTimeoutMs` when set: a stalled backend never answers it. */
  async #answers(): Promise<boolean> {
    const probe = this.#options.probe().catch(() => false);
    const timeoutMs = this.#options.callTimeoutMs;
    return timeoutMs === undefined ? probe : waitAtMost(probe, timeoutMs, false);
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#probe(), this.#options.probeIntervalMs ?? 500);
    this.#timer.unref();
  }

  async #probe(): Promise<void> {
    if (this.#stopped) return;
    if (!(await this.#answers())) return this.#schedule();
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
