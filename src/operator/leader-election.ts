/**
 * Leader election on a coordination.k8s.io Lease, following client-go's leaderelection package:
 *
 * - A candidate tries to acquire every `retryPeriodMs` (jittered). It may take the lease when it
 *   is unheld, or when the holder has not renewed it for `leaseDurationMs` as *observed on this
 *   process's clock* (the time it last saw the lease record change), so clock skew between
 *   replicas does not matter.
 * - Every write is a replace guarded by the resourceVersion that was read; a conflict means
 *   someone else wrote first and the attempt failed.
 * - The leader renews every `retryPeriodMs`. If it cannot renew for `renewDeadlineMs` it stops
 *   leading (before anyone else may take over at `leaseDurationMs`); it steps down at once if it
 *   sees another holder. Then it becomes a candidate again. As with client-go's RenewDeadline, a
 *   renewal attempt is itself bounded by what is left of the deadline (its requests are aborted
 *   then): a slow API server cannot keep an attempt, and so the leadership, running past it. The
 *   deadline runs from the start of the last successful attempt, which is no later than the
 *   renewTime it wrote and than the moment a standby saw it.
 * - stop({ release: true }) hands the lease back (holder cleared, duration 1 s) so a standby takes
 *   over at its next retry instead of waiting for expiry.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import type { LeaseSpec } from '../resources/kubernetes-leases.ts';

export type { LeaseSpec };

/**
 * What leader election needs of the Lease API (resources/kubernetes-leases.ts in production). A
 * call given a signal rejects once the signal aborts.
 */
export interface LeaseClient {
  get(
    namespace: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<{ resourceVersion: string; spec: LeaseSpec } | undefined>;
  create(
    namespace: string,
    name: string,
    spec: LeaseSpec,
    signal?: AbortSignal,
  ): Promise<{ resourceVersion: string; spec: LeaseSpec }>;
  replace(
    namespace: string,
    name: string,
    resourceVersion: string,
    spec: LeaseSpec,
    signal?: AbortSignal,
  ): Promise<{ resourceVersion: string; spec: LeaseSpec }>;
}

export interface LeaderElectionLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  debug?(details: object, message: string): void;
}

export interface LeaderElectionOptions {
  leases: LeaseClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  /** Awaited before the lease is released (stop) or campaigning resumes (lost leadership). */
  onStoppedLeading: () => void | Promise<void>;
  log?: LeaderElectionLog;
  /** For tests; must advance with real time (the renew deadline is also a timer). */
  now?: () => number;
}

export const LEADER_ELECTION_DEFAULTS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};
/** client-go's JitterFactor for the acquire loop. */
const JITTER_FACTOR = 1.2;

/** metav1.MicroTime. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

type ElectionSettings = Required<Omit<LeaderElectionOptions, 'log' | 'now'>>;

export class LeaderElector {
  readonly #options: ElectionSettings;
  readonly #log: LeaderElectionLog;
  readonly #now: () => number;
  #observed: { resourceVersion: string; spec: LeaseSpec } | undefined;
  #observedAt = 0;
  #leader = false;
  #stopAbort = new AbortController();
  #running: Promise<void> | undefined;

  constructor(options: LeaderElectionOptions) {
    this.#options = {
      ...options,
      leaseDurationMs: options.leaseDurationMs ?? LEADER_ELECTION_DEFAULTS.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs ?? LEADER_ELECTION_DEFAULTS.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs ?? LEADER_ELECTION_DEFAULTS.retryPeriodMs,
    };
    const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = this.#options;
    if (!(leaseDurationMs > renewDeadlineMs && renewDeadlineMs > retryPeriodMs * JITTER_FACTOR)) {
      throw new Error('leader election needs leaseDuration > renewDeadline > 1.2 * retryPeriod');
    }
    this.#log = options.log ?? { info: () => {}, warn: () => {} };
    this.#now = options.now ?? Date.now;
  }

  get identity(): string {
    return this.#options.identity;
  }

  isLeader(): boolean {
    return this.#leader;
  }

  /** The holder last seen on the lease (this process's view). */
  observedHolder(): string | undefined {
    return this.#observed?.spec.holderIdentity || undefined;
  }

  start(): void {
    if (this.#running) return;
    this.#stopAbort = new AbortController();
    this.#running = this.#run();
  }

  /** Stops campaigning; with `release`, a leader hands the lease back first. */
  async stop(options: { release: boolean }): Promise<void> {
    this.#stopAbort.abort();
    await this.#running;
    this.#running = undefined;
    if (this.#leader) {
      this.#leader = false;
      // Reconciling has stopped before a standby can take over.
      await this.#options.onStoppedLeading();
      if (options.release) await this.#release();
    }
  }

  async #run(): Promise<void> {
    const stop = this.#stopAbort.signal;
    const { retryPeriodMs } = this.#options;
    while (!stop.aborted) {
      // Candidate: try until acquired.
      let acquiredAt = this.#now();
      while (!stop.aborted && !(await this.#tryAcquireOrRenew(stop))) {
        await this.#wait(retryPeriodMs * (1 + Math.random() * JITTER_FACTOR));
        acquiredAt = this.#now();
      }
      if (stop.aborted) return;
      this.#leader = true;
      this.#log.info({ identity: this.identity, lease: this.#options.name }, 'became the leader');
      this.#options.onStartedLeading();
      await this.#lead(acquiredAt);
      if (stop.aborted) return;
      this.#leader = false;
      await this.#options.onStoppedLeading();
    }
  }

  /**
   * Renews until the renew deadline passes without a renewal, or someone else holds the lease;
   * returns then (or on stop). `renewedAt` is when the last successful attempt started.
   */
  async #lead(renewedAt: number): Promise<void> {
    const stop = this.#stopAbort.signal;
    const { retryPeriodMs, renewDeadlineMs } = this.#options;
    const remaining = () => renewedAt + renewDeadlineMs - this.#now();
    while (!stop.aborted) {
      await this.#wait(Math.min(retryPeriodMs, Math.max(0, remaining())));
      if (stop.aborted) return;
      const attemptAt = this.#now();
      const leftMs = remaining();
      if (leftMs > 0) {
        const deadline = AbortSignal.any([stop, AbortSignal.timeout(leftMs)]);
        if (await this.#tryAcquireOrRenew(deadline)) {
          renewedAt = attemptAt;
          continue;
        }
        if (stop.aborted) return;
        const holder = this.observedHolder();
        if (holder !== undefined && holder !== this.identity) {
          this.#log.warn({ identity: this.identity, holder }, 'the lease was taken over; stepping down');
          return;
        }
        if (!deadline.aborted && remaining() > 0) continue;
      }
      this.#log.warn(
        { identity: this.identity, renewDeadlineMs },
        'could not renew the lease in time; stepping down',
      );
      return;
    }
  }

  async #wait(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.#stopAbort.signal }).catch(() => {});
  }

  /**
   * client-go's tryAcquireOrRenew: true when this process holds the lease afterwards; false on any
   * failure, including `signal` aborting the requests.
   */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { leases, namespace, name, identity, leaseDurationMs } = this.#options;
    const now = this.#now();
    const desired: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      const current = await leases.get(namespace, name, signal);
      if (!current) {
        this.#remember(await leases.create(namespace, name, desired, signal));
        return true;
      }
      if (!this.#observed || !isDeepStrictEqual(this.#observed.spec, current.spec)) {
        this.#observed = current;
        this.#observedAt = now;
      }
      const holder = current.spec.holderIdentity ?? '';
      const durationMs = (current.spec.leaseDurationSeconds ?? 0) * 1000;
      if (holder !== '' && holder !== identity && this.#observedAt + durationMs > now) return false;
      const transitions = current.spec.leaseTransitions ?? 0;
      if (holder === identity) {
        desired.acquireTime = current.spec.acquireTime ?? desired.acquireTime;
        desired.leaseTransitions = transitions;
      } else {
        desired.leaseTransitions = transitions + 1;
      }
      this.#remember(await leases.replace(namespace, name, current.resourceVersion, desired, signal));
      return true;
    } catch (error) {
      this.#log.debug?.({ identity, err: error }, 'lease acquire/renew failed');
      return false;
    }
  }

  #remember(lease: { resourceVersion: string; spec: LeaseSpec }): void {
    this.#observed = lease;
    this.#observedAt = this.#now();
  }

  async #release(): Promise<void> {
    const { leases, namespace, name, identity } = this.#options;
    try {
      const current = await leases.get(namespace, name);
      if (!current || current.spec.holderIdentity !== identity) return;
      const now = microTime(this.#now());
      await leases.replace(namespace, name, current.resourceVersion, {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: current.spec.leaseTransitions ?? 0,
      });
      this.#log.info({ identity, lease: name }, 'released the lease');
    } catch (error) {
      this.#log.warn({ identity, err: error }, 'could not release the lease');
    }
  }
}
