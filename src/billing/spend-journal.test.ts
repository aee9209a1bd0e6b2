import { describe, expect, it } from 'vitest';
import { stallCalls } from '../../test/helpers/stalled-store.ts';
import { createLogger } from '../observability/logger.ts';
import { MemoryRuntimeStore } from '../stores/memory-runtime-store.ts';
import { StoreUnavailableError } from '../stores/store-breaker.ts';
import type { RuntimeStore } from '../stores/types.ts';
import { SpendJournal } from './spend-journal.ts';

const log = createLogger('silent', 'journal');

/** A real memory store that can be made unreachable, and that can lose the reply of one applySpendOnce. */
function flakyStore() {
  const inner = new MemoryRuntimeStore();
  const state = { down: false, loseNextReply: false, applyCalls: 0 };
  const store = new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (state.down) throw new StoreUnavailableError('runtime');
        const result = await (value as (...parameters: unknown[]) => Promise<unknown>).apply(target, args);
        if (property === 'applySpendOnce') {
          state.applyCalls += 1;
          if (state.loseNextReply) {
            state.loseNextReply = false;
            // Applied, but the caller never hears so.
            throw new StoreUnavailableError('runtime');
          }
        }
        return result;
      };
    },
  }) as RuntimeStore;
  return { store, inner, state };
}

describe('SpendJournal', () => {
  it('applies at once while the store answers, and keeps nothing', async () => {
    const { store, inner } = flakyStore();
    await inner.initBalance('t1', 1000);
    const journal = new SpendJournal({ runtime: store, log });
    expect(await journal.apply({ kind: 'balance', tenantId: 't1', deltaMicros: -10 })).toBe(990);
    expect(journal.size).toBe(0);
  });

  it('throws a refused change back, and journals one the store could not be reached for, however it failed', async () => {
    const { store } = flakyStore();
    const journal = new SpendJournal({ runtime: store, log });
    // A bad argument is the caller's: not kept for later.
    await expect(journal.apply({ kind: 'balance', tenantId: 't1', deltaMicros: 0.5 })).rejects.toBeInstanceOf(
      TypeError,
    );
    expect(journal.size).toBe(0);
    // A store that fails before it even returns a promise is judged the same way.
    const throwing = new Proxy(store, {
      get: (target, property) =>
        property === 'incrementCounter'
          ? () => {
              throw new StoreUnavailableError('runtime');
            }
          : Reflect.get(target, property, target),
    });
    const early = new SpendJournal({ runtime: throwing, log });
    const applied = early.apply({ kind: 'counter', name: 'spend:t1', by: 3 });
    await expect(applied).resolves.toBeUndefined();
    expect(early.size).toBe(1);
  });

  it('sums changes per balance or counter while the store is down, and applies each sum once after', async () => {
    const { store, inner, state } = flakyStore();
    await inner.initBalance('t1', 1000);
    const journal = new SpendJournal({ runtime: store, log });
    state.down = true;
    for (let index = 0; index < 50; index += 1) {
      expect(await journal.apply({ kind: 'balance', tenantId: 't1', deltaMicros: -3 })).toBeUndefined();
      await journal.apply({ kind: 'counter', name: 'spend:t1', by: 3 });
    }
    // Bounded by targets, not by requests.
    expect(journal.size).toBe(2);
    expect(journal.stats.journaled).toBe(100);
    // A replay while still down keeps everything for later.
    await journal.replay();
    expect(journal.size).toBe(2);

    state.down = false;
    await journal.replay();
    expect(journal.size).toBe(0);
    expect(await inner.getBalance('t1')).toBe(850);
    expect(await inner.getCounter('spend:t1')).toBe(150);
    expect(journal.stats.replayed).toBe(2);
  });

  it('applies a sum once when its reply was lost and it is sent again', async () => {
    const { store, inner, state } = flakyStore();
    await inner.initBalance('t1', 1000);
    const journal = new SpendJournal({ runtime: store, log });
    journal.record({ kind: 'balance', tenantId: 't1', deltaMicros: -100 });
    state.loseNextReply = true;
    await journal.replay();
    // Applied, but not confirmed: still journaled, with the same operation id.
    expect(await inner.getBalance('t1')).toBe(900);
    expect(journal.size).toBe(1);
    // A change journaled meanwhile adds up for the next send, and the lost one is not applied twice.
    journal.record({ kind: 'balance', tenantId: 't1', deltaMicros: -5 });
    await journal.replay();
    await journal.replay();
    expect(await inner.getBalance('t1')).toBe(895);
    expect(journal.size).toBe(0);
    expect(state.applyCalls).toBe(3);
  });

  it('does not make a postpaid tenant prepaid: a balance debit applies only where a balance exists', async () => {
    const { store, inner } = flakyStore();
    const journal = new SpendJournal({ runtime: store, log });
    journal.record({ kind: 'balance', tenantId: 'postpaid', deltaMicros: -100 });
    journal.record({ kind: 'counter', name: 'spend:postpaid', by: 100 });
    await journal.replay();
    expect(await inner.getBalance('postpaid')).toBeUndefined();
    expect(await inner.getCounter('spend:postpaid')).toBe(100);
    expect(journal.size).toBe(0);
    // Counted apart from what was applied: the metric an operator reads when a prepaid balance went missing.
    expect(journal.stats).toMatchObject({ replayed: 1, withoutBalance: 1 });
  });

  it('drops and counts changes to more targets than it may hold', async () => {
    const { store } = flakyStore();
    const journal = new SpendJournal({ runtime: store, log, maxEntries: 2 });
    for (const name of ['a', 'b', 'c', 'c']) journal.record({ kind: 'counter', name, by: 1 });
    journal.record({ kind: 'counter', name: 'a', by: 1 });
    expect(journal.size).toBe(2);
    expect(journal.stats.dropped).toBe(2);
  });

  it('follows a change whose call timed out: applied when the store answers late, journaled only if it never took it', async () => {
    const { store, inner } = flakyStore();
    await inner.initBalance('t1', 1000);
    // The store's calls time out while their commands go on: the test decides how each ends.
    const { store: stalled, calls } = stallCalls(store, ['adjustBalance', 'incrementCounter']);
    const journal = new SpendJournal({ runtime: stalled, log });
    // The caller is not kept waiting, and nothing is journaled yet.
    expect(await journal.apply({ kind: 'balance', tenantId: 't1', deltaMicros: -10 })).toBeUndefined();
    expect(await journal.apply({ kind: 'balance', tenantId: 't1', deltaMicros: -20 })).toBeUndefined();
    expect(await journal.apply({ kind: 'counter', name: 'spend:t1', by: 30 })).toBeUndefined();
    expect(journal.stats.awaiting).toBe(3);
    expect(journal.size).toBe(0);
    // The first is answered late: applied, so never journaled.
    calls[0]?.wake();
    // The second's connection drops: it never reached the store, so it is journaled.
    calls[1]?.fail(new StoreUnavailableError('runtime'));
    // The third is refused by the store: logged, not journaled (a replay would be refused too).
    calls[2]?.fail(new TypeError('bad counter'));
    await expect.poll(() => journal.stats.awaiting).toBe(0);
    expect(journal.size).toBe(1);
    expect(journal.stats.journaled).toBe(1);
    expect(await inner.getBalance('t1')).toEqual(990);
    // The journaled one is applied by the replay, once: the balance ends where both charges say.
    await journal.replay();
    expect(await inner.getBalance('t1')).toEqual(970);
  });
});
