import { describe, expect, it } from 'vitest';
import { stallCalls } from '../../test/helpers/stalled-store.ts';
import type { Principal } from '../auth/principal.ts';
import { createLogger } from '../observability/logger.ts';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import { decodeCell, encodeCell, UsageRecorder, utcDay } from './usage-analytics.ts';

const principal = (jti?: string): Principal => ({
  kind: jti === undefined ? 'api-key' : 'ephemeral',
  tenantId: 't1',
  workspaceId: 'w1',
  keyId: 'k1',
  grants: new Set(['chat:write']),
  ...(jti === undefined
    ? {}
    : {
        token: {
          jti,
          routes: new Set(['chat']),
          models: new Set<string>(),
          expiresAtMs: Date.now() + 60_000,
        },
      }),
});

describe('UsageRecorder', () => {
  it('sums requests per cell in the process and adds the sums to the store when flushed', async () => {
    const runtime = new MemoryRuntimeStore();
    const recorder = new UsageRecorder({
      runtime,
      log: createLogger('silent', 'usage'),
      retentionDays: 1,
      flushIntervalMs: 3_600_000,
    });
    const base = { model: 'openai/gpt-4o', connectionSlug: undefined, inputTokens: 10, outputTokens: 5 };
    recorder.record({ ...base, principal: principal(), costMicros: 100 });
    recorder.record({ ...base, principal: principal(), costMicros: 100 });
    recorder.record({
      ...base,
      principal: principal(),
      inputTokens: 0,
      outputTokens: 0,
      costMicros: 0,
      savedMicros: 100,
    });
    recorder.record({ ...base, principal: principal('tok-1'), connectionSlug: 'mine', costMicros: 40 });
    const today = utcDay(Date.now());
    expect((await runtime.readUsage('t1/w1', [today])).size).toBe(0);
    await recorder.close();

    const cells = (await runtime.readUsage('t1/w1', [today])).get(today);
    const byKey = new Map(
      [...(cells ?? new Map())].map(([cell, totals]) => [decodeCell(cell).tokenId, totals]),
    );
    expect(byKey.get('')).toEqual({
      requests: 3,
      inputTokens: 20,
      outputTokens: 10,
      costMicros: 200,
      cacheHits: 1,
      savedMicros: 100,
    });
    expect(byKey.get('tok-1')).toMatchObject({ requests: 1, costMicros: 40 });
    const tokenCell = [...(cells?.keys() ?? [])].find(
      (cell) => decodeCell(cell).tokenId === 'tok-1',
    ) as string;
    expect(decodeCell(tokenCell)).toEqual({
      model: 'openai/gpt-4o',
      keyId: 'k1',
      tokenId: 'tok-1',
      connection: 'mine',
      route: '',
    });
    expect(encodeCell(decodeCell(tokenCell))).toBe(tokenCell);
    await runtime.close();
  });

  it("keeps a model route's requests in cells of their own, the target that served as the model", async () => {
    const runtime = new MemoryRuntimeStore();
    const recorder = new UsageRecorder({
      runtime,
      log: createLogger('silent', 'usage'),
      retentionDays: 1,
      flushIntervalMs: 3_600_000,
    });
    const base = { connectionSlug: undefined, inputTokens: 1, outputTokens: 1, costMicros: 1 };
    recorder.record({ ...base, principal: principal(), model: 'openai/gpt-4o-mini', route: 'chat-default' });
    recorder.record({ ...base, principal: principal(), model: 'openai/gpt-4o-mini' });
    await recorder.close();
    const today = utcDay(Date.now());
    const cells = [...((await runtime.readUsage('t1/w1', [today])).get(today)?.keys() ?? [])].map(decodeCell);
    expect(cells.map((cell) => [cell.model, cell.route]).sort()).toEqual([
      ['openai/gpt-4o-mini', ''],
      ['openai/gpt-4o-mini', 'chat-default'],
    ]);
    // A cell written before routes existed (four fields) reads as no route.
    expect(decodeCell(['m', 'k', 't', 'c'].join('\u001f')).route).toBe('');
    await runtime.close();
  });

  it('counts a flush whose write timed out once: kept if the store never took it, not if a stalled store made it later', async () => {
    const runtime = new MemoryRuntimeStore();
    // Each write times out for the recorder; the test decides whether the store makes it late or drops it.
    const { store: stalled, calls: writes } = stallCalls(runtime, ['recordUsage']);
    const recorder = new UsageRecorder({
      runtime: stalled,
      log: createLogger('silent', 'usage'),
      retentionDays: 1,
      flushIntervalMs: 3_600_000,
    });
    const base = { model: 'openai/gpt-4o', connectionSlug: undefined, inputTokens: 10, outputTokens: 5 };
    const today = utcDay(Date.now());
    const requests = async () =>
      [...((await runtime.readUsage('t1/w1', [today])).get(today)?.values() ?? [])].reduce(
        (sum, totals) => sum + totals.requests,
        0,
      );
    // A first request's write times out, and the stalled store makes it when it wakes.
    recorder.record({ ...base, principal: principal(), costMicros: 100 });
    await recorder.flush();
    writes[0]?.wake();
    await expect.poll(requests).toBe(1);
    // A second one's write times out and its connection drops: it never reached the store.
    recorder.record({ ...base, principal: principal(), costMicros: 100 });
    await recorder.flush();
    writes[1]?.fail(Object.assign(new Error('Connection is closed.'), { code: 'ECONNRESET' }));
    // The next flush sends the second again (and only it).
    await new Promise((resolve) => setImmediate(resolve));
    const sent = writes.length;
    await recorder.flush();
    expect(writes.length).toBe(sent + 1);
    writes[sent]?.wake();
    await expect.poll(requests).toBe(2);
    await recorder.close();
    expect(await requests()).toBe(2);
    await runtime.close();
  });
});
