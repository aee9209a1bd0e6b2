import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal.ts';
import type { ResolvedRoute } from '../providers/types.ts';
import { ZERO_USAGE } from '../shapes/usage.ts';
import type { ConfigView } from '../stores/config-view.ts';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import type { ConnectionRecord } from '../stores/records.ts';
import { ConnectionCaps, connectionSpendCounterName } from './connection-caps.ts';
import { TokenLimiter } from './ephemeral-token-limits.ts';
import { SpendLimits } from './spend-reservation.ts';

const principal = { tenantId: 'acme', workspaceId: 'main' } as Principal;
const platformRoute = { byok: false } as ResolvedRoute;
const byokRoute = { byok: true, credential: { id: 'acme/mine', slug: 'mine' } } as ResolvedRoute;
const noon = Date.UTC(2026, 10, 26, 12);

function limitsOn(runtime: MemoryRuntimeStore): SpendLimits {
  const record = { id: 'acme/mine', slug: 'mine', dailyCapMicros: 1000 } as ConnectionRecord;
  const view = { connectionBySlug: () => record } as unknown as ConfigView;
  return new SpendLimits(new TokenLimiter(runtime), new ConnectionCaps(runtime, view, () => noon));
}

const capSpend = async (runtime: MemoryRuntimeStore) =>
  runtime.getCounter(connectionSpendCounterName('acme/mine', noon));

describe('SpendReservation', () => {
  it('holds nothing for a platform key: reserving, settling and releasing touch no counter', async () => {
    const runtime = new MemoryRuntimeStore();
    const reservation = limitsOn(runtime).open(principal);
    await reservation.reserve(platformRoute, 500);
    expect(reservation.holding).toBe(false);
    await reservation.settle(300, ZERO_USAGE);
    reservation.release(() => expect.unreachable());
    expect(await capSpend(runtime)).toBe(0);
  });

  it('replaces a Connection hold by the actual cost once, and a later release gives nothing back', async () => {
    const runtime = new MemoryRuntimeStore();
    const reservation = limitsOn(runtime).open(principal);
    await reservation.reserve(byokRoute, 500);
    expect(reservation.holding).toBe(true);
    expect(await capSpend(runtime)).toBe(500);
    await reservation.settle(300, ZERO_USAGE);
    expect(reservation.holding).toBe(false);
    await reservation.settle(900, ZERO_USAGE);
    reservation.release(() => expect.unreachable());
    await new Promise((resolve) => setImmediate(resolve));
    expect(await capSpend(runtime)).toBe(300);
  });

  it('gives a Connection hold back on release when nothing was settled', async () => {
    const runtime = new MemoryRuntimeStore();
    const reservation = limitsOn(runtime).open(principal);
    await reservation.reserve(byokRoute, 500);
    reservation.release(() => expect.unreachable());
    expect(reservation.holding).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await capSpend(runtime)).toBe(0);
  });
});
