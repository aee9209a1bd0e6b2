import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stallCalls } from '../../test/helpers/stalled-store.ts';
import type { Principal } from '../auth/principal.ts';
import { CreditCapExceededError } from '../errors/gateway-error.ts';
import { createLogger } from '../observability/logger.ts';
import type { TokenUsage } from '../shapes/usage.ts';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import { budgetCounterName, TokenLimiter } from './ephemeral-token-limits.ts';
import { SpendJournal } from './spend-journal.ts';

const USAGE: TokenUsage = { inputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 5 };

function tokenPrincipal(expiresAtMs: number, budgetMicros = 1000): Principal {
  return {
    kind: 'ephemeral',
    tenantId: 'acme',
    workspaceId: 'main',
    keyId: 'key_1',
    grants: new Set(['chat:write']),
    token: { jti: 'jti_1', routes: new Set(['chat']), models: new Set(), budgetMicros, expiresAtMs },
  };
}

describe('TokenLimiter budget', () => {
  let directory: string;
  let file: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gw-token-limits-'));
    file = join(directory, 'runtime.json');
  });
  afterEach(async () => {
    vi.useRealTimers();
    await rm(directory, { recursive: true, force: true });
  });

  it("keeps a token's spend across a restart of the memory store, until the token is long expired", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.UTC(2026, 3, 1, 12);
    vi.setSystemTime(start);
    const principal = tokenPrincipal(start + 600_000);
    const first = await MemoryRuntimeStore.open({ persistFile: file });
    const limiter = new TokenLimiter(first);
    const hold = await limiter.admit(principal);
    await limiter.reserve(hold, 100);
    await limiter.settle(hold, 700, USAGE);
    await first.close();

    const second = await MemoryRuntimeStore.open({ persistFile: file });
    expect(await second.getCounter(budgetCounterName('jti_1'))).toBe(700);
    // 700 of 1000 spent: 300 are left, and a request estimated at 400 reserves them.
    const limiter2 = new TokenLimiter(second);
    const next = await limiter2.admit(principal);
    await limiter2.reserve(next, 400);
    expect(next?.reservedMicros).toBe(300);
    expect(await second.getCounter(budgetCounterName('jti_1'))).toBe(1000);
    // Used up: the next request is refused.
    await expect(limiter2.reserve(await limiter2.admit(principal), 1)).rejects.toBeInstanceOf(
      CreditCapExceededError,
    );
    await second.close();

    // The counter lives as long as the token plus a minute; after that it is gone, on disk too.
    vi.setSystemTime(start + 600_000 + 61_000);
    const third = await MemoryRuntimeStore.open({ persistFile: file });
    expect(await third.getCounter(budgetCounterName('jti_1'))).toBe(0);
    await third.close();
  });

  it('keeps rate windows in memory only', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.UTC(2026, 3, 1, 12);
    vi.setSystemTime(start);
    const budgeted = tokenPrincipal(start + 600_000);
    const principal: Principal = {
      ...budgeted,
      token: { ...budgeted.token!, limits: { requestsPerMinute: 1 } },
    };
    const first = await MemoryRuntimeStore.open({ persistFile: file });
    await new TokenLimiter(first).admit(principal);
    await first.close();
    const second = await MemoryRuntimeStore.open({ persistFile: file });
    // The window restarts with the process: the one request allowed is allowed again.
    await expect(new TokenLimiter(second).admit(principal)).resolves.toBeDefined();
    await second.close();
  });
});

describe('TokenLimiter.settle', () => {
  it('settles a hold once: settling it again (a failed step after accounting) refunds nothing', async () => {
    const runtime = await MemoryRuntimeStore.open({});
    const limiter = new TokenLimiter(runtime);
    const principal: Principal = {
      ...tokenPrincipal(Date.now() + 600_000),
      token: { ...tokenPrincipal(Date.now() + 600_000).token!, limits: { tokensPerMinute: 1000 } },
    };
    const hold = await limiter.admit(principal);
    await limiter.reserve(hold, 300);
    expect(await runtime.getCounter(budgetCounterName('jti_1'))).toBe(300);
    await limiter.settle(hold, 250, USAGE);
    expect(await runtime.getCounter(budgetCounterName('jti_1'))).toBe(250);
    await limiter.settle(hold, 0, USAGE);
    expect(await runtime.getCounter(budgetCounterName('jti_1'))).toBe(250);
    // The tokens used are counted once too.
    expect(await runtime.getCounter(`rate:tok:jti_1:${hold!.window}`)).toBe(15);
    expect(hold!.settled).toBe(true);
    await runtime.close();
  });
});

describe('a reservation the store made after its call timed out (a stalled Redis that woke)', () => {
  it('is given back, so that the token is charged its cost once', async () => {
    const runtime = await MemoryRuntimeStore.open({});
    // reserveUpToCap times out for the caller; the store runs it when woken.
    const { store: stalled, calls } = stallCalls(runtime, ['reserveUpToCap']);
    const journal = new SpendJournal({ runtime, log: createLogger('silent', 'journal') });
    const limiter = new TokenLimiter(stalled, journal);
    const hold = await limiter.admit(tokenPrincipal(Date.now() + 600_000));
    // Served as if nothing were reserved: the settlement charges the whole cost.
    await limiter.reserve(hold, 300);
    expect(hold?.reservedMicros).toBe(0);
    await limiter.settle(hold, 250, USAGE);
    expect(await runtime.getCounter(budgetCounterName('jti_1'))).toBe(250);
    expect(journal.stats.awaiting).toBe(1);
    // The store wakes and makes the reservation: it is given back.
    calls[0]?.wake();
    await expect.poll(() => journal.stats.awaiting).toBe(0);
    await expect.poll(() => runtime.getCounter(budgetCounterName('jti_1'))).toBe(250);
    await runtime.close();
  });
});
