import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeRuntimeStoreContract } from '../../test/contract/runtime-store-contract.ts';
import { MemoryRuntimeStore } from './memory-runtime-store.ts';

describeRuntimeStoreContract('memory', () => {
  const store = new MemoryRuntimeStore();
  return { open: async () => store };
});

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

describe('MemoryRuntimeStore expiry', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires a TTL counter exactly at its TTL', async () => {
    vi.useFakeTimers();
    const store = new MemoryRuntimeStore();
    await store.incrementCounter('window', 5, 10);
    vi.advanceTimersByTime(9_999);
    expect(await store.getCounter('window')).toBe(5);
    vi.advanceTimersByTime(1);
    expect(await store.getCounter('window')).toBe(0);
    expect(await store.incrementCounter('window', 1, 10)).toBe(1);
    await store.close();
  });
});
