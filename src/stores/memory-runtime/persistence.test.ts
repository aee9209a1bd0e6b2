import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeAuditEntry, makeTokenRecord } from '../../../test/contract/runtime-store-contract.ts';
import { MemoryRuntimeStore } from '../memory-runtime-store.ts';
import { KEY_REVOCATION_TTL_MS } from '../types.ts';

describe('MemoryRuntimeStore persistence', () => {
  let directory: string;
  let file: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gw-runtime-'));
    file = join(directory, 'state', 'runtime.json');
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps balances and durable counters across a reopen, but not TTL counters', async () => {
    const first = await MemoryRuntimeStore.open({ persistFile: file });
    await first.initBalance('t1', 1000);
    await first.adjustBalance('t1', -250);
    await first.incrementCounter('spend:t1', 42);
    await first.incrementCounter('rate:t1', 3, 60);
    await first.close();

    const second = await MemoryRuntimeStore.open({ persistFile: file });
    expect(await second.getBalance('t1')).toBe(750);
    expect(await second.initBalance('t1', 5)).toBe(false);
    expect(await second.getCounter('spend:t1')).toBe(42);
    expect(await second.getCounter('rate:t1')).toBe(0);
    await second.close();
  });

  it('writes behind without waiting for close, to a file only its owner can read', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file, persistDelayMs: 10 });
    await store.initBalance('t1', 7);
    await vi.waitFor(
      async () => expect(JSON.parse(await readFile(file, 'utf8')).balances).toEqual({ t1: 7 }),
      {
        timeout: 2000,
        interval: 20,
      },
    );
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await store.close();
  });

  it('writes the latest state of a burst of changes', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file });
    await store.initBalance('t1', 0);
    await Promise.all(Array.from({ length: 50 }, () => store.adjustBalance('t1', 2)));
    await store.close();
    const reopened = new MemoryRuntimeStore({ persistFile: file });
    expect(await reopened.getBalance('t1')).toBe(100);
    await reopened.close();
  });

  it('starts empty without a file, and refuses a corrupt one rather than resetting balances', async () => {
    const empty = new MemoryRuntimeStore({ persistFile: file });
    expect(await empty.getBalance('t1')).toBeUndefined();
    await empty.close();

    await writeFile(join(directory, 'corrupt.json'), '{"v":1,"balances":');
    expect(() => new MemoryRuntimeStore({ persistFile: join(directory, 'corrupt.json') })).toThrow();
    await writeFile(join(directory, 'fractional.json'), '{"v":1,"balances":{"t1":1.5},"counters":{}}');
    expect(() => new MemoryRuntimeStore({ persistFile: join(directory, 'fractional.json') })).toThrow(
      /not an integer/,
    );
  });

  it('keeps a TTL counter kept durable across a reopen, with its expiry', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const start = Date.UTC(2026, 3, 1, 12);
      vi.setSystemTime(start);
      const first = new MemoryRuntimeStore({ persistFile: file });
      expect(await first.reserveWithinCap('budget:j1', 30, 100, 60, 'durable')).toEqual({
        ok: true,
        value: 30,
      });
      // Later touches without the flag keep it durable (as they keep its expiry).
      await first.incrementCounter('budget:j1', 12, 60);
      await first.incrementCounter('rate:j1', 1, 60, 'memory');
      await first.close();

      vi.setSystemTime(start + 59_000);
      const second = new MemoryRuntimeStore({ persistFile: file });
      expect(await second.getCounter('budget:j1')).toBe(42);
      expect(await second.getCounter('rate:j1')).toBe(0);
      await second.close();

      vi.setSystemTime(start + 60_000);
      const third = new MemoryRuntimeStore({ persistFile: file });
      expect(await third.getCounter('budget:j1')).toBe(0);
      await third.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a file whose expiring counters are malformed', async () => {
    const malformed = join(directory, 'expiring.json');
    await writeFile(
      malformed,
      '{"v":2,"balances":{},"counters":{},"expiringCounters":{"c":{"value":1.5,"expiresAt":9}}}',
    );
    expect(() => new MemoryRuntimeStore({ persistFile: malformed })).toThrow(/not an integer/);
    await writeFile(malformed, '{"v":2,"balances":{},"counters":{},"expiringCounters":{"c":7}}');
    expect(() => new MemoryRuntimeStore({ persistFile: malformed })).toThrow(/not an integer/);
  });

  it('turns a durable counter into an expiring one when first given a TTL, as Redis EXPIRE NX does', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file });
    await store.incrementCounter('c', 1);
    await store.incrementCounter('c', 1, 60);
    await store.close();
    const reopened = new MemoryRuntimeStore({ persistFile: file });
    expect(await reopened.getCounter('c')).toBe(0);
    await reopened.close();
  });
});

describe('MemoryRuntimeStore persistence of tokens, revocations and the audit log', () => {
  let directory: string;
  let file: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gw-runtime-'));
    file = join(directory, 'runtime.json');
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('keeps them across a reopen', async () => {
    const now = Date.now();
    const token = makeTokenRecord('j1', { expiresAtMs: now + 60_000 });
    const first = await MemoryRuntimeStore.open({ persistFile: file });
    await first.recordToken(token);
    await first.revokeToken('j1', token.expiresAtMs);
    await first.revokeTokensForKey('k1', now);
    await first.appendAudit('t1', makeAuditEntry(1));
    await first.appendAudit('t1', makeAuditEntry(2, { outcome: 'failure', message: 'denied' }));
    await first.close();

    const second = await MemoryRuntimeStore.open({ persistFile: file });
    expect(await second.getToken('j1')).toEqual(token);
    expect(await second.isTokenRevoked('j1')).toBe(true);
    expect(await second.keyRevokedAt('k1')).toBe(now);
    expect(await second.loadRevocations()).toEqual({
      tokens: new Map([['j1', token.expiresAtMs]]),
      keys: new Map([['k1', now]]),
    });
    expect(await second.listAudit('t1', 10)).toEqual([
      makeAuditEntry(2, { outcome: 'failure', message: 'denied' }),
      makeAuditEntry(1),
    ]);
    // Still monotonic after the reopen.
    await second.revokeTokensForKey('k1', now - 1000);
    expect(await second.keyRevokedAt('k1')).toBe(now);
    await second.close();
  });

  it('writes them behind, without waiting for close', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file, persistDelayMs: 10 });
    await store.revokeToken('j1', Date.now() + 60_000);
    await vi.waitFor(
      async () => expect(Object.keys(JSON.parse(await readFile(file, 'utf8')).revokedTokens)).toEqual(['j1']),
      { timeout: 2000, interval: 20 },
    );
    await store.close();
  });

  it('drops entries that expired while it was closed, on load and from the next write', async () => {
    const now = Date.now();
    const live = makeTokenRecord('live', { expiresAtMs: now + 60_000 });
    await writeFile(
      file,
      JSON.stringify({
        v: 2,
        balances: { t1: 5 },
        counters: {},
        tokens: [makeTokenRecord('dead', { expiresAtMs: now - 1 }), live],
        revokedTokens: { dead: now - 1, live: now + 60_000 },
        revokedKeys: { dead: now - KEY_REVOCATION_TTL_MS - 1, live: now },
        audit: { t1: [makeAuditEntry(2), makeAuditEntry(1)] },
      }),
    );
    const store = new MemoryRuntimeStore({ persistFile: file });
    expect(await store.getToken('dead')).toBeUndefined();
    expect(await store.getToken('live')).toEqual(live);
    expect(await store.loadRevocations()).toEqual({
      tokens: new Map([['live', now + 60_000]]),
      keys: new Map([['live', now]]),
    });
    expect((await store.listAudit('t1', 10)).map((entry) => entry.id)).toEqual(['a000002', 'a000001']);
    await store.adjustBalance('t1', 1);
    await store.close();
    const written = JSON.parse(await readFile(file, 'utf8'));
    expect(written.v).toBe(2);
    expect(written.tokens.map((token: { jti: string }) => token.jti)).toEqual(['live']);
    expect(Object.keys(written.revokedTokens)).toEqual(['live']);
    expect(Object.keys(written.revokedKeys)).toEqual(['live']);
  });

  it('drops revocations and tokens lazily once they expire while open', async () => {
    const store = new MemoryRuntimeStore({ persistFile: file });
    await store.recordToken(makeTokenRecord('j1', { expiresAtMs: Date.now() + 200 }));
    await store.revokeToken('j1', Date.now() + 200);
    await vi.waitFor(async () => expect(await store.isTokenRevoked('j1')).toBe(false), {
      timeout: 2000,
      interval: 20,
    });
    expect(await store.getToken('j1')).toBeUndefined();
    await store.close();
    const reopened = new MemoryRuntimeStore({ persistFile: file });
    expect((await reopened.loadRevocations()).tokens.size).toBe(0);
    await reopened.close();
  });

  it('reads a version 1 file (balances and counters only) and writes version 2', async () => {
    await writeFile(file, '{"v":1,"balances":{"t1":7},"counters":{"c":2}}');
    const store = new MemoryRuntimeStore({ persistFile: file });
    expect(await store.getBalance('t1')).toBe(7);
    expect(await store.getCounter('c')).toBe(2);
    expect(await store.loadRevocations()).toEqual({ tokens: new Map(), keys: new Map() });
    await store.appendAudit('t1', makeAuditEntry(1));
    await store.close();
    const written = JSON.parse(await readFile(file, 'utf8'));
    expect(written).toMatchObject({ v: 2, balances: { t1: 7 }, counters: { c: 2 } });
    expect(written.audit.t1).toHaveLength(1);
  });

  it('trims a stored audit log to a smaller limit on load', async () => {
    const first = new MemoryRuntimeStore({ persistFile: file });
    for (let sequence = 1; sequence <= 6; sequence += 1)
      await first.appendAudit('t1', makeAuditEntry(sequence));
    await first.close();
    const second = new MemoryRuntimeStore({ persistFile: file, auditLimit: 3 });
    expect((await second.listAudit('t1', 10)).map((entry) => entry.id)).toEqual([
      'a000006',
      'a000005',
      'a000004',
    ]);
    await second.close();
  });

  it('refuses a file with malformed tokens, revocations or audit entries', async () => {
    const base = { v: 2, balances: {}, counters: {} };
    const cases = [
      { ...base, tokens: [{ jti: 'j1' }] },
      { ...base, tokens: {} },
      { ...base, revokedTokens: { j1: 'soon' } },
      { ...base, revokedKeys: { k1: 1.5 } },
      { ...base, audit: { t1: [{ id: 'a1' }] } },
      { ...base, audit: { t1: {} } },
      { ...base, v: 3 },
    ];
    for (const [index, state] of cases.entries()) {
      const path = join(directory, `bad-${index}.json`);
      await writeFile(path, JSON.stringify(state));
      expect(() => new MemoryRuntimeStore({ persistFile: path }), JSON.stringify(state)).toThrow();
    }
  });
});
