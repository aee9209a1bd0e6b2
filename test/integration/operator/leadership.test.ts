import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OperatorHandle } from '../../../src/operator/operator.ts';
import { RedisConfigStore } from '../../../src/stores/redis-config-store.ts';
import type { ConfigStore } from '../../../src/stores/types.ts';
import {
  cachePolicy,
  type OperatorTestBed,
  operatorSuitesAvailable,
  startOperatorTestBed,
  TEST_LEASE,
  tenant,
} from './operator-test-bed.ts';

const available = operatorSuitesAvailable();
const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/gateway-system/leases/inference-gateway-operator';
interface Lease {
  spec: { holderIdentity?: string; renewTime?: string };
}

/** A Redis config store that counts its writes. */
function countingStore(url: string): { store: ConfigStore; writes: () => number } {
  const inner = new RedisConfigStore({ url });
  let writes = 0;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'put' || property === 'delete' || property === 'setEpoch') {
        return (...args: unknown[]) => {
          writes += 1;
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
  return { store, writes: () => writes };
}

interface Replica {
  operator: OperatorHandle;
  writes: () => number;
}

describe.runIf(available)('several operator replicas', () => {
  let bed: OperatorTestBed;
  const replicas: Replica[] = [];

  const startReplica = async (): Promise<Replica> => {
    const counting = countingStore(bed.redis.url);
    const operator = await bed.startOperator({ configStore: counting.store, redisUrl: undefined });
    const replica = { operator, writes: counting.writes };
    replicas.push(replica);
    return replica;
  };

  beforeAll(async () => {
    bed = await startOperatorTestBed();
    await startReplica();
    await startReplica();
  });
  afterAll(async () => {
    await bed?.close();
  });

  const leaders = () => replicas.filter((replica) => replica.operator.isLeader());

  it('elect exactly one leader, and only the leader writes', async () => {
    await vi.waitFor(() => expect(leaders()).toHaveLength(1), { timeout: 10_000 });
    await bed.applyTenant(tenant('one'));
    await bed.apply(cachePolicy('fast', 'tenant-one', { ttlSeconds: 30 }));
    await expect.poll(() => bed.store.get('cachePolicy', 'one/*/fast'), { timeout: 10_000 }).toBeDefined();
    // Two lease renewals later, still one leader.
    const renewTime = async () => ((await bed.plane.request('GET', LEASE_PATH)).body as Lease).spec.renewTime;
    for (let renewal = 0; renewal < 2; renewal += 1) {
      const seen = await renewTime();
      await expect.poll(renewTime, { timeout: 5_000 }).not.toBe(seen);
      expect(leaders()).toHaveLength(1);
    }
    const [leader] = leaders();
    const standby = replicas.find((replica) => replica !== leader) as Replica;
    expect(leader?.writes()).toBeGreaterThan(0);
    expect(standby.writes()).toBe(0);
    const lease = await bed.plane.request(
      'GET',
      '/apis/coordination.k8s.io/v1/namespaces/gateway-system/leases/inference-gateway-operator',
    );
    expect((lease.body as { spec: { holderIdentity: string } }).spec.holderIdentity).toBe(
      leader?.operator.identity,
    );
  });

  it('hands over within the lease duration when the leader crashes, and reconciling continues', async () => {
    const [leader] = leaders();
    const standby = replicas.find((replica) => replica !== leader) as Replica;
    const crashedAt = Date.now();
    await leader?.operator.crash();
    await vi.waitFor(() => expect(standby.operator.isLeader()).toBe(true), { timeout: 15_000, interval: 50 });
    const handoverMs = Date.now() - crashedAt;
    // client-go semantics: expiry is measured from the last renewal the standby observed, and
    // it polls every 1 to 2.2 retry periods (client-go's jitter): lease duration plus two polls at most.
    expect(handoverMs).toBeLessThanOrEqual(
      TEST_LEASE.leaseDurationMs + 2 * 2.2 * TEST_LEASE.retryPeriodMs + 300,
    );

    await bed.apply(cachePolicy('after', 'tenant-one', { ttlSeconds: 60 }));
    await expect
      .poll(() => bed.store.get('cachePolicy', 'one/*/after'), { timeout: 10_000 })
      .toMatchObject({ ttlSeconds: 60 });
    expect(standby.writes()).toBeGreaterThan(0);
  });

  it('rebuilds a wiped config store without any resource change', async () => {
    const [leader] = leaders();
    await leader?.operator.settled();
    const before = await bed.store.snapshot();
    expect(before.tenant.size).toBe(1);
    expect(before.cachePolicy.size).toBeGreaterThan(0);

    const { Redis } = await import('ioredis');
    const client = new Redis(bed.redis.url);
    await client.flushall();
    client.disconnect();
    await expect.poll(() => bed.store.getEpoch(), { timeout: 10_000 }).toBeDefined();
    expect(await bed.store.snapshot()).toEqual(before);

    // A Redis restart without persistence: same repair once it is back.
    await bed.redis.restart();
    await expect.poll(() => bed.store.snapshot().catch(() => undefined), { timeout: 15_000 }).toEqual(before);
  });

  it('hands over at once when the leader stops gracefully and releases the lease', async () => {
    const standby = await startReplica();
    const [leader] = leaders();
    const stoppedAt = Date.now();
    await leader?.operator.stop();
    await vi.waitFor(() => expect(standby.operator.isLeader()).toBe(true), { timeout: 10_000, interval: 50 });
    expect(Date.now() - stoppedAt).toBeLessThan(TEST_LEASE.leaseDurationMs);
    await bed.apply(cachePolicy('third', 'tenant-one', { ttlSeconds: 90 }));
    await expect.poll(() => bed.store.get('cachePolicy', 'one/*/third'), { timeout: 10_000 }).toBeDefined();
  });
});
