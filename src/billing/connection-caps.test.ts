import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stallCalls } from '../../test/helpers/stalled-store.ts';
import type { Principal } from '../auth/principal.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { createLogger } from '../observability/logger.ts';
import type { ResolvedRoute } from '../providers/types.ts';
import type { ConfigView } from '../stores/config-view.ts';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import type { ConnectionRecord } from '../stores/records.ts';
import {
  CONNECTION_SPEND_TTL_SECONDS,
  ConnectionCaps,
  connectionSpendCounterName,
  utcDay,
} from './connection-caps.ts';
import { SpendJournal } from './spend-journal.ts';

const principal = { tenantId: 'acme', workspaceId: 'main' } as Principal;
const byokRoute = {
  byok: true,
  credential: { id: 'acme/mine', slug: 'mine' },
} as ResolvedRoute;

function viewWith(dailyCapMicros: number | undefined): ConfigView {
  const record = { id: 'acme/mine', slug: 'mine', dailyCapMicros } as ConnectionRecord;
  return { connectionBySlug: () => record } as unknown as ConfigView;
}

/** A caps object on a clock the test moves. */
function capsAt(start: number, cap: number | undefined) {
  const clock = { now: start };
  const runtime = new MemoryRuntimeStore();
  const caps = new ConnectionCaps(runtime, viewWith(cap), () => clock.now);
  return { clock, runtime, caps };
}

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('the daily counter key', () => {
  it('is per Connection and per UTC date, and rolls at 00:00 UTC', () => {
    const lastMs = Date.UTC(2026, 2, 31, 23, 59, 59, 999);
    expect(utcDay(lastMs)).toBe('2026-03-31');
    expect(connectionSpendCounterName('acme/mine', lastMs)).toBe('spend:connection:acme/mine:2026-03-31');
    expect(connectionSpendCounterName('acme/mine', lastMs + 1)).toBe('spend:connection:acme/mine:2026-04-01');
    expect(connectionSpendCounterName('acme/other', lastMs)).not.toBe(
      connectionSpendCounterName('acme/mine', lastMs),
    );
    // Local time zones play no part.
    expect(utcDay(Date.parse('2026-04-01T01:30:00+03:00'))).toBe('2026-03-31');
    expect(CONNECTION_SPEND_TTL_SECONDS).toBe(172_800);
  });
});

describe('ConnectionCaps', () => {
  const noon = Date.UTC(2026, 3, 1, 12);

  it('leaves platform routes and Connections without a cap alone', async () => {
    const { caps, runtime } = capsAt(noon, undefined);
    expect(await caps.admit(principal, byokRoute, 500)).toBeUndefined();
    expect(await caps.admit(principal, { byok: false } as ResolvedRoute, 500)).toBeUndefined();
    expect(await runtime.getCounter(connectionSpendCounterName('acme/mine', noon))).toBe(0);
  });

  it('reserves the estimate, settles the actual cost once, and refuses once the day is spent', async () => {
    const { caps, runtime } = capsAt(noon, 1000);
    const counter = connectionSpendCounterName('acme/mine', noon);
    const hold = await caps.admit(principal, byokRoute, 100);
    expect(await runtime.getCounter(counter)).toBe(100);
    await caps.settle(hold, 700);
    expect(await runtime.getCounter(counter)).toBe(700);
    // A second settle (or release) of the same hold changes nothing.
    await caps.settle(hold, 5);
    caps.release(hold, () => {});
    expect(await runtime.getCounter(counter)).toBe(700);

    const second = await caps.admit(principal, byokRoute, 100);
    await caps.settle(second, 300);
    expect(await runtime.getCounter(counter)).toBe(1000);
    const error = await refusal(caps.admit(principal, byokRoute, 0));
    expect(error.statusCode).toBe(402);
    expect(error.code).toBe('service.credential_cap_exceeded');
    expect(error.message).toContain("connection 'mine'");
    expect(error.message).toContain('00:00 UTC');
  });

  it("keeps the day's spend across a standalone restart", async () => {
    const persistFile = join(mkdtempSync(join(tmpdir(), 'caps-')), 'runtime.json');
    const first = new MemoryRuntimeStore({ persistFile });
    const caps = new ConnectionCaps(first, viewWith(1000), () => noon);
    await caps.settle(await caps.admit(principal, byokRoute, 100), 950);
    await first.close();
    const second = await MemoryRuntimeStore.open({ persistFile });
    expect(await second.getCounter(connectionSpendCounterName('acme/mine', noon))).toBe(950);
    await refusal(new ConnectionCaps(second, viewWith(1000), () => noon).admit(principal, byokRoute, 100));
    await second.close();
  });

  it('gives a failed request its reservation back', async () => {
    const { caps, runtime } = capsAt(noon, 1000);
    const hold = await caps.admit(principal, byokRoute, 400);
    caps.release(hold, () => {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(await runtime.getCounter(connectionSpendCounterName('acme/mine', noon))).toBe(0);
  });

  it('refuses an estimate that does not fit what is left, naming what is left', async () => {
    const { caps } = capsAt(noon, 1000);
    await caps.settle(await caps.admit(principal, byokRoute, 1), 900);
    const error = await refusal(caps.admit(principal, byokRoute, 200));
    expect(error.message).toContain('100 of its daily cap of 1000');
  });

  it('starts the next UTC day from zero', async () => {
    const { caps, clock } = capsAt(Date.UTC(2026, 3, 1, 23, 59), 1000);
    await caps.settle(await caps.admit(principal, byokRoute, 1), 1000);
    await refusal(caps.admit(principal, byokRoute, 1));
    expect(await caps.spentToday('acme/mine')).toBe(1000);
    clock.now = Date.UTC(2026, 3, 2, 0, 0, 0, 1);
    expect(await caps.spentToday('acme/mine')).toBe(0);
    expect(await caps.admit(principal, byokRoute, 1)).toBeDefined();
  });
});

describe('a cap reservation the store made after its call timed out (a stalled Redis that woke)', () => {
  it('is given back, so that the day counts the cost once', async () => {
    const noon = Date.UTC(2026, 3, 1, 12);
    const runtime = new MemoryRuntimeStore();
    const { store: stalled, calls } = stallCalls(runtime, ['reserveWithinCap']);
    const journal = new SpendJournal({ runtime, log: createLogger('silent', 'journal') });
    const caps = new ConnectionCaps(stalled, viewWith(1000), () => noon, journal);
    const counter = connectionSpendCounterName('acme/mine', noon);
    // Served as if nothing were reserved: the settlement counts the whole cost.
    const hold = await caps.admit(principal, byokRoute, 100);
    expect(hold?.reservedMicros).toBe(0);
    await caps.settle(hold, 70);
    expect(await runtime.getCounter(counter)).toBe(70);
    calls[0]?.wake();
    await expect.poll(() => journal.stats.awaiting).toBe(0);
    await expect.poll(() => runtime.getCounter(counter)).toBe(70);
  });
});
