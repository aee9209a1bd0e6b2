import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaderElector, type LeaseClient, type LeaseSpec } from './leader-election.ts';

/** An in-memory Lease API with resourceVersion checks, and a switch to make it fail. */
class FakeLeases implements LeaseClient {
  lease: { resourceVersion: string; spec: LeaseSpec } | undefined;
  failing = false;
  #version = 0;

  async get() {
    this.#check();
    return this.lease && structuredClone(this.lease);
  }

  async create(_namespace: string, _name: string, spec: LeaseSpec) {
    this.#check();
    if (this.lease) throw new Error('409 already exists');
    return this.#store(spec);
  }

  async replace(_namespace: string, _name: string, resourceVersion: string, spec: LeaseSpec) {
    this.#check();
    if (!this.lease || this.lease.resourceVersion !== resourceVersion) throw new Error('409 conflict');
    return this.#store(spec);
  }

  #store(spec: LeaseSpec) {
    this.#version += 1;
    this.lease = { resourceVersion: String(this.#version), spec: structuredClone(spec) };
    return structuredClone(this.lease);
  }

  #check() {
    if (this.failing) throw new Error('apiserver unavailable');
  }
}

const TIMINGS = { leaseDurationMs: 600, renewDeadlineMs: 400, retryPeriodMs: 100 };

describe('LeaderElector', () => {
  const electors: LeaderElector[] = [];
  afterEach(async () => {
    await Promise.all(electors.splice(0).map((elector) => elector.stop({ release: false })));
  });

  const candidate = (leases: FakeLeases, identity: string, events: string[] = []) => {
    const elector = new LeaderElector({
      leases,
      namespace: 'ns',
      name: 'lease',
      identity,
      ...TIMINGS,
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
