import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaderElector, type LeaseClient, type LeaseSpec } from './leader-election.ts';

/**
 * An in-memory Lease API with resourceVersion checks, and switches to make it fail or slow (each
 * call then takes `delayMs`, unless its signal aborts it first).
 */
class FakeLeases implements LeaseClient {
  lease: { resourceVersion: string; spec: LeaseSpec } | undefined;
  failing = false;
  delayMs = 0;
  #version = 0;

  async get(_namespace: string, _name: string, signal?: AbortSignal) {
    await this.#check(signal);
    return this.lease && structuredClone(this.lease);
  }

  async create(_namespace: string, _name: string, spec: LeaseSpec, signal?: AbortSignal) {
    await this.#check(signal);
    if (this.lease) throw new Error('409 already exists');
    return this.#store(spec);
  }

  async replace(
    _namespace: string,
    _name: string,
    resourceVersion: string,
    spec: LeaseSpec,
    signal?: AbortSignal,
  ) {
    await this.#check(signal);
    if (!this.lease || this.lease.resourceVersion !== resourceVersion) throw new Error('409 conflict');
    return this.#store(spec);
  }

  #store(spec: LeaseSpec) {
    this.#version += 1;
    this.lease = { resourceVersion: String(this.#version), spec: structuredClone(spec) };
    return structuredClone(this.lease);
  }

  async #check(signal: AbortSignal | undefined) {
    if (this.delayMs > 0) await sleep(this.delayMs, undefined, { signal });
    if (this.failing) throw new Error('apiserver unavailable');
  }
}

const TIMINGS = { leaseDurationMs: 600, renewDeadlineMs: 400, retryPeriodMs: 100 };

describe('LeaderElector', () => {
  const electors: LeaderElector[] = [];
  afterEach(async () => {
    await Promise.all(electors.splice(0).map((elector) => elector.stop({ release: false })));
  });

  const candidate = (leases: FakeLeases, identity: string, events: string[] = [], timings = TIMINGS) => {
    const elector = new LeaderElector({
      leases,
      namespace: 'ns',
      name: 'lease',
      identity,
      ...timings,
      onStartedLeading: () => {
        events.push(`${identity} started`);
      },
      onStoppedLeading: () => {
        events.push(`${identity} stopped`);
      },
    });
    electors.push(elector);
    elector.start();
    return elector;
  };

  it('refuses timings where the renew deadline is not below the lease duration', () => {
    expect(
      () =>
        new LeaderElector({
          leases: new FakeLeases(),
          namespace: 'ns',
          name: 'lease',
          identity: 'a',
          leaseDurationMs: 10_000,
          renewDeadlineMs: 10_000,
          onStartedLeading: () => {},
          onStoppedLeading: () => {},
        }),
    ).toThrow(/leaseDuration > renewDeadline/);
  });

  it('elects one of two candidates and keeps renewing', async () => {
    const leases = new FakeLeases();
    const a = candidate(leases, 'a');
    const b = candidate(leases, 'b');
    await vi.waitFor(() => expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1));
    const leader = a.isLeader() ? 'a' : 'b';
    const firstRenew = leases.lease?.spec.renewTime;
    await vi.waitFor(() => expect(leases.lease?.spec.renewTime).not.toBe(firstRenew));
    expect(leases.lease?.spec).toMatchObject({
      holderIdentity: leader,
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    });
    expect(leases.lease?.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
  });

  it('lets a standby take over only after the lease duration when the leader vanishes', async () => {
    const leases = new FakeLeases();
    const a = candidate(leases, 'a');
    await vi.waitFor(() => expect(a.isLeader()).toBe(true));
    const b = candidate(leases, 'b');
    await vi.waitFor(() => expect(b.observedHolder()).toBe('a'));
    await a.stop({ release: false });
    const stoppedAt = Date.now();
    await vi.waitFor(() => expect(b.isLeader()).toBe(true), { timeout: 3_000, interval: 10 });
    const waited = Date.now() - stoppedAt;
    // Not before the holder's last renewal is a lease duration old (renewals were at most one retry period apart).
    expect(waited).toBeGreaterThanOrEqual(TIMINGS.leaseDurationMs - TIMINGS.retryPeriodMs - 50);
    expect(leases.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('hands over at once after a release', async () => {
    const leases = new FakeLeases();
    const a = candidate(leases, 'a');
    await vi.waitFor(() => expect(a.isLeader()).toBe(true));
    const b = candidate(leases, 'b');
    await vi.waitFor(() => expect(b.observedHolder()).toBe('a'));
    await a.stop({ release: true });
    expect(leases.lease?.spec.holderIdentity).toBe('');
    const releasedAt = Date.now();
    await vi.waitFor(() => expect(b.isLeader()).toBe(true), { timeout: 3_000, interval: 10 });
    expect(Date.now() - releasedAt).toBeLessThan(TIMINGS.leaseDurationMs);
  });

  it('stops leading when it cannot renew within the renew deadline, then campaigns again', async () => {
    const leases = new FakeLeases();
    const events: string[] = [];
    const a = candidate(leases, 'a', events);
    await vi.waitFor(() => expect(a.isLeader()).toBe(true));
    leases.failing = true;
    const failedAt = Date.now();
    await vi.waitFor(() => expect(a.isLeader()).toBe(false), { timeout: 2_000, interval: 10 });
    const lostAfter = Date.now() - failedAt;
    expect(lostAfter).toBeGreaterThanOrEqual(TIMINGS.renewDeadlineMs - TIMINGS.retryPeriodMs);
    // It stepped down before anyone else could have taken the lease over.
    expect(lostAfter).toBeLessThan(TIMINGS.leaseDurationMs);
    leases.failing = false;
    await vi.waitFor(() => expect(a.isLeader()).toBe(true), { timeout: 2_000 });
    expect(events).toEqual(['a started', 'a stopped', 'a started']);
  });

  it('steps down by the renew deadline when the API server is slow, without waiting for the late attempt', async () => {
    // Production has 5 s request timeouts against a 10 s renew deadline and a 15 s lease: an attempt
    // started late in the deadline must not keep the leader leading past it.
    const timings = { leaseDurationMs: 2_000, renewDeadlineMs: 1_000, retryPeriodMs: 200 };
    const leases = new FakeLeases();
    const events: string[] = [];
    const a = candidate(leases, 'a', events, timings);
    await vi.waitFor(() => expect(a.isLeader()).toBe(true));
    // Every call now answers long after the lease would have expired.
    leases.delayMs = 10 * timings.leaseDurationMs;
    await vi.waitFor(() => expect(a.isLeader()).toBe(false), { timeout: 3_000, interval: 5 });
    const steppedDownAt = Date.now();
    expect(events).toEqual(['a started', 'a stopped']);
    // The last renewal that went through wrote its own start time; the deadline counts from there.
    const lastRenewal = Date.parse(leases.lease?.spec.renewTime ?? '');
    const leadingFor = steppedDownAt - lastRenewal;
    expect(leadingFor).toBeGreaterThanOrEqual(timings.renewDeadlineMs - 20);
    expect(leadingFor).toBeLessThanOrEqual(timings.renewDeadlineMs + 200);
    // So no standby could have taken the lease over while it still led.
    expect(leadingFor).toBeLessThan(timings.leaseDurationMs);
  });

  it('steps down at once when it sees another holder', async () => {
    const leases = new FakeLeases();
    const a = candidate(leases, 'a');
    await vi.waitFor(() => expect(a.isLeader()).toBe(true));
    // Someone took the lease (e.g. after this process was paused past the lease duration).
    await leases.replace('ns', 'lease', leases.lease?.resourceVersion ?? '', {
      holderIdentity: 'intruder',
      leaseDurationSeconds: 60,
      renewTime: new Date().toISOString(),
    });
    await vi.waitFor(() => expect(a.isLeader()).toBe(false), { timeout: 1_000, interval: 10 });
  });
});
